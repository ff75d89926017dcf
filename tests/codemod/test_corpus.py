"""The issue-11 client corpus is usable as ground truth: every module parses and imports, and
MANIFEST.yaml lists every module, points at real lines and uses only known rule IDs.

The corpus (tests/codemod/corpus/) holds realistic v1 client modules; MANIFEST.yaml says, per HTTP
call site, what a correct rewrite must produce (migrate / flag / untouched). The rewrite's own
exact-output and execution tests consume them; this file only guards the corpus itself.
"""
from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path

import libcst as cst
import pytest
import yaml

from tests.codemod.tools import load

CORPUS = Path(__file__).parent / "corpus"
MANIFEST = yaml.safe_load((CORPUS / "MANIFEST.yaml").read_text())
MODULES: dict = MANIFEST["modules"]
RULES = {r["id"] for r in yaml.safe_load((Path(__file__).parents[2] / "mappings" / "data" / "rules.yaml").read_text())}
OUTCOMES = {"migrate", "compat", "flag", "untouched"}  # compat: v2 through the generated compat module (state 2)
DUMMY = {"base": "http://127.0.0.1:9/v1", "v2": "http://127.0.0.1:9/v2", "key": "key-alice",
         "pod": "pod-1", "endpoint": "ep-1", "jobs": "http://127.0.0.1:9/v2"}


def corpus_entries() -> set[str]:
    """Top-level modules (*.py) and package directories of the corpus."""
    return {p.name for p in CORPUS.iterdir() if p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists())}


def source_files(name: str) -> list[Path]:
    path = CORPUS / name
    return sorted(path.glob("*.py")) if path.is_dir() else [path]


def entries(spec: dict):
    """Every located item of a module: constants, calls and the reads under calls, with the file each lives in."""
    for key in ("constants", "calls"):
        for item in spec.get(key) or []:
            yield item
            for read in item.get("reads") or []:
                yield {**read, "file": read.get("file", item.get("file"))}


def test_manifest_lists_every_corpus_module_and_nothing_else():
    assert set(MODULES) == corpus_entries()
    assert len(MODULES) >= 32


@pytest.mark.parametrize("name", sorted(corpus_entries()))
def test_corpus_module_parses(name):
    for path in source_files(name):
        cst.parse_module(path.read_text())


@pytest.mark.parametrize("name", sorted(corpus_entries()))
def test_corpus_module_imports_and_exposes_its_drive_function(name, monkeypatch):
    drive = MODULES[name].get("drive")
    for var, value in ((drive or {}).get("env") or {}).items():
        monkeypatch.setenv(var, value.format(**DUMMY))
    if (CORPUS / name).is_dir():
        monkeypatch.syspath_prepend(str(CORPUS))
        try:
            module = importlib.import_module(f"{name}.{(drive or {}).get('module', 'client')}")
        finally:
            for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
                del sys.modules[loaded]
    else:
        module = load((CORPUS / name).read_text(), f"corpus_{name[:-3]}")
    if drive is not None:
        function = getattr(module, drive.get("call", "scenario"))
        assert list(inspect.signature(function).parameters) == ["base_url", "api_key", "ids"]
        for attribute in drive.get("set") or {}:
            assert hasattr(module, attribute), f"drive sets {attribute}, which the module does not define"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_manifest_lines_point_at_what_they_claim(name):
    spec = MODULES[name]
    for item in entries(spec):
        target = item.get("file") or name
        lines = (CORPUS / target).read_text().splitlines()
        assert 1 <= item["line"] <= len(lines), item
        assert item["at"] in lines[item["line"] - 1], f"{target}:{item['line']} does not contain {item['at']!r}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_manifest_outcomes_are_complete_and_use_known_rules(name):
    spec = MODULES[name]
    assert spec["outcome"] in OUTCOMES
    calls = spec["calls"]
    assert calls, "a corpus module without call sites"
    outcomes = {call["outcome"] for call in calls}
    assert outcomes <= OUTCOMES
    for item in entries(spec):
        rule = item.get("rule")
        if rule not in (None, "none"):
            assert rule in RULES, f"unknown rule {rule} at line {item.get('line')}"
    for call in calls:
        if call["outcome"] in ("flag", "compat"):
            assert call.get("rule") in RULES and call.get("why"), call
        elif call["outcome"] == "migrate" and not call["v1"].startswith("helper:"):
            assert call.get("v2", {}).get("route", "").startswith("/v2/"), call
    if spec["outcome"] == "untouched":
        assert outcomes == {"untouched"}
    elif spec["outcome"] == "flag":
        assert "flag" in outcomes
    else:
        assert outcomes & {"migrate", "compat"} and "flag" not in outcomes
