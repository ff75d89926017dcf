"""The architecture's hard boundaries: proxy and codemod never import each other; the sandbox (a v2 emulator, a peer
of the proxy) imports neither; the proxy reaches the sandbox through one narrow entry point only; all read mappings."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the proxy's one door to the sandbox: start it as the default upstream, through the package's public names
EMBEDDED_ENTRY = "proxy/embedded.py"


def imported_modules(package: str) -> dict[str, set[str]]:
    """Every absolute module name each file of `package` imports (`from a.b import c` counts as `a.b`)."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module)
        found[str(path.relative_to(ROOT))] = names
    return found


def imported_packages(package: str) -> dict[str, set[str]]:
    return {path: {name.split(".")[0] for name in names} for path, names in imported_modules(package).items()}


@pytest.mark.parametrize("package,forbidden", [
    ("proxy", "codemod"), ("codemod", "proxy"), ("mappings", "proxy"), ("mappings", "codemod"),
    ("sandbox", "proxy"), ("sandbox", "codemod"), ("codemod", "sandbox"), ("mappings", "sandbox"),
])
def test_package_does_not_import(package, forbidden):
    offenders = sorted(path for path, names in imported_packages(package).items() if forbidden in names)
    assert offenders == [], f"{package} must not import {forbidden}"


def test_proxy_reaches_the_sandbox_only_through_its_entry_point():
    reaching = {path: sorted(n for n in names if n == "sandbox" or n.startswith("sandbox."))
                for path, names in imported_modules("proxy").items()}
    reaching = {path: names for path, names in reaching.items() if names}
    assert reaching == {EMBEDDED_ENTRY: ["sandbox"]}, "the proxy may import only `sandbox` itself, only in " + EMBEDDED_ENTRY


@pytest.mark.parametrize("package", ["proxy", "codemod", "sandbox"])
def test_package_reads_mappings(package):
    assert any("mappings" in names for names in imported_packages(package).values())
