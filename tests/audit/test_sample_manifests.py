"""The language sample repositories' EXPECTED manifests are usable ground truth.

Each `<sample>.EXPECTED.yaml` next to a sample directory lists every API call line of that sample
(issue 13: "every API call line is found"), the lines that are not this API's, and the comments and
docs that must not be findings. This guards the manifests themselves: each entry points at a line
that holds what it claims, and each call names what it calls.
"""
from __future__ import annotations

import re

import pytest
import yaml

from tests.audit.conftest import SAMPLES

MANIFESTS = sorted(SAMPLES.glob("*.EXPECTED.yaml"))
CALL_KINDS = {"v1", "v1-base", "v1-path", "v1-query", "v1-read", "v1-wrapper", "v1-error-read", "v1-test-pin",
              "graphql", "graphql-url", "graphql-call"}
NOT_OURS_KINDS = {"job-api", "pod-proxy", "v2", "own-server"}
ROUTE = re.compile(r"^(GET|POST|PATCH|DELETE) /(pods|endpoints|templates|networkvolumes|containerregistryauth|billing)[\w{}|/]*$")


def load(path):
    return yaml.safe_load(path.read_text())


def test_every_language_sample_has_a_manifest():
    names = {p.name.removesuffix(".EXPECTED.yaml") for p in MANIFESTS}
    assert {"bash_cli", "go_sdk", "ts_mcp_server", "powershell_ops", "graphql_mixed"} <= names
    for name in names:
        assert (SAMPLES / name).is_dir(), f"{name}.EXPECTED.yaml has no sample directory"


@pytest.mark.parametrize("manifest", MANIFESTS, ids=lambda p: p.name)
def test_manifest_lines_hold_what_they_claim(manifest):
    data = load(manifest)
    root = SAMPLES / data["sample"]
    seen = set()
    for section in ("calls", "not_ours", "not_findings"):
        for entry in data[section] or []:
            lines = (root / entry["file"]).read_text().splitlines()
            assert 1 <= entry["line"] <= len(lines), entry
            assert entry["at"] in lines[entry["line"] - 1], f"{entry['file']}:{entry['line']} lacks {entry['at']!r}"
            key = (entry["file"], entry["line"])
            assert key not in seen, f"{key} is listed twice"
            seen.add(key)


@pytest.mark.parametrize("manifest", MANIFESTS, ids=lambda p: p.name)
def test_manifest_calls_name_what_they_call(manifest):
    data = load(manifest)
    assert data["calls"], "a sample without API calls"
    for entry in data["calls"]:
        assert entry["kind"] in CALL_KINDS, entry
        if entry["kind"] in ("v1", "v1-test-pin"):
            assert ROUTE.match(entry["route"].split(" (")[0]), entry["route"]
        if entry["kind"] == "graphql":
            assert entry["operations"] and entry["op_kind"] in ("query", "mutation"), entry
    for entry in data["not_ours"] or []:
        assert entry["kind"] in NOT_OURS_KINDS, entry
    for entry in data["not_findings"]:
        assert entry["why"], entry
