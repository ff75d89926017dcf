"""The architecture's one hard boundary: proxy and codemod never import each other; both read mappings."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def imported_packages(package: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
        found[str(path.relative_to(ROOT))] = names
    return found


@pytest.mark.parametrize("package,forbidden", [("proxy", "codemod"), ("codemod", "proxy"), ("mappings", "proxy"), ("mappings", "codemod")])
def test_package_does_not_import(package, forbidden):
    offenders = sorted(path for path, names in imported_packages(package).items() if forbidden in names)
    assert offenders == [], f"{package} must not import {forbidden}"


@pytest.mark.parametrize("package", ["proxy", "codemod"])
def test_package_reads_mappings(package):
    assert any("mappings" in names for names in imported_packages(package).values())
