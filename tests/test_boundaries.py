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


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(packages: tuple[str, ...], own_packages: bool = False) -> dict[str, set[str]]:
    """module -> the modules of `packages` it imports anywhere (a function-level import counts: it is still a
    dependency, and a cycle through one is what made app.py and cli_proxy.py import each other).

    OWN_PACKAGES: a module naming its own package (`from codemod.rules import Rule` in codemod/rules/l01.py) counts
    too: it uses what that package's __init__ defines, so the __init__ importing the module back is a cycle."""
    modules = {_module_name(path): path for package in packages for path in sorted((ROOT / package).rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                candidates = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                candidates = [base] + [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            # a module's own packages are not counted: their __init__ runs first whatever is imported
            targets.update(c for c in candidates if c in modules and c != name
                           and (own_packages or not name.startswith(c + ".")))
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles_in_the_servers():
    graph = import_graph(("proxy", "sandbox"))
    assert graph["proxy.app"] and graph["proxy.cli_proxy"]  # the walk sees imports at all
    assert cycles(graph) == []


def test_no_import_cycles_in_the_codemod():
    """The planner, the per-call decision and the rule modules each import only what lies below them."""
    graph = import_graph(("codemod",), own_packages=True)
    assert "codemod.rules.l01_path_renames" in graph["codemod.rules.l04_verb_paths"]  # the walk sees imports at all
    assert cycles(graph) == []


def test_rule_modules_import_nothing_above_them():
    """A rule module plans from facts into a Plan: it never imports the planner, the engine or a command."""
    above = ("codemod.plan", "codemod.engine", "codemod.workers", "codemod.cli_")
    offenders = sorted(f"{module}: {target}" for module, targets in import_graph(("codemod",)).items()
                       if module.startswith("codemod.rules") for target in targets if target.startswith(above))
    assert offenders == []


# what a rule module may import of the analysis: the typed facts (with `Source`, the parsed file as a rule reads it)
# and the syntax helpers over libcst nodes; never the Analyzer or its call, flow and string passes
RULES_READ_OF_THE_ANALYSIS = {"codemod.analysis.facts", "codemod.analysis.syntax"}


def test_rule_modules_read_facts_never_the_analyzer():
    """A rule module imports of the analysis only its facts and syntax helpers, and never the per-call decision."""
    reaching = sorted(f"{module}: {target}" for module, targets in import_graph(("codemod",)).items()
                      if module.startswith("codemod.rules") for target in targets
                      if (target.startswith("codemod.analysis") and target not in RULES_READ_OF_THE_ANALYSIS)
                      or target == "codemod.decide")
    assert reaching == []


def test_rule_modules_call_nothing_private_and_never_hold_the_analyzer():
    """No `x._name` in a rule module (another object's private method), and no `plan.an`: the analyzer's answers
    reach a rule through `plan.facts` (its `source` for the parsed file)."""
    found = []
    for path in sorted((ROOT / "codemod" / "rules").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and (node.attr == "an" or node.attr.startswith("_")
                                                    and not node.attr.startswith("__")):
                found.append(f"{path.name}:{node.lineno} .{node.attr}")
    assert found == []


def test_the_cycle_check_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_test_modules_import_helpers_only_from_conftest_or_tools():
    """A helper several test modules use lives in a conftest.py or a tools.py, never in another test_*.py."""
    offenders = sorted(f"{path}: {name}" for path, names in imported_modules("tests").items()
                       for name in names if name.startswith("tests.") and name.rpartition(".")[2].startswith("test_"))
    assert offenders == []


def test_every_rule_module_has_its_test_module():
    """codemod/rules/<rule module>.py is tested in tests/codemod/rules/test_<rule module>.py, and only there."""
    def rule_modules(folder: Path, prefix: str = "") -> set[str]:
        names = {path.stem.removeprefix(prefix) for path in folder.glob(f"{prefix}*.py")}
        return {name for name in names if name[:1].isalpha() and name[1:3].isdigit()}

    tested = rule_modules(ROOT / "tests" / "codemod" / "rules", "test_")
    assert tested == rule_modules(ROOT / "codemod" / "rules")
    assert {path.name for path in (ROOT / "tests" / "codemod" / "rules").glob("*.py")} == \
        {"__init__.py"} | {f"test_{name}.py" for name in tested}


def test_sandbox_and_proxy_tests_mirror_their_packages():
    """tests/sandbox/ and tests/proxy/ exist for sandbox/ and proxy/, and no test of the sandbox sits elsewhere."""
    assert (ROOT / "tests" / "sandbox").is_dir() and (ROOT / "tests" / "proxy").is_dir()
    assert not (ROOT / "tests" / "proxy" / "sandbox").exists()
