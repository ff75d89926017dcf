"""One exception root: every error class v1bridge defines derives from mappings.errors.V1bridgeError, so one place
per surface renders it (the servers' middlewares, v1bridge/cli.py for the commands)."""
from __future__ import annotations

import ast
import builtins
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("mappings", "proxy", "sandbox", "codemod", "v1bridge")
BUILTIN_EXCEPTIONS = frozenset(name for name, value in vars(builtins).items()
                               if isinstance(value, type) and issubclass(value, BaseException))
# control-flow signals, raised and caught inside one function or module, never shown to anyone:
# a typed read that falls back to dicts, a duplicate key met while streaming, a call the pagination rule leaves,
# a GraphQL null propagating to its nullable parent, a compiled GraphQL completer handing a value to the exact one,
# and the pass-through's abort, which must stay a ConnectionResetError for aiohttp
SIGNALS = frozenset({"mappings/typed.py:Ambiguous", "proxy/answer_worker.py:_Twice", "proxy/graphql/views.py:_Null",
                     "proxy/graphql/views.py:_Slow",
                     "codemod/rules/q30_list_pagination.py:CannotPage", "proxy/passthrough.py:UpstreamBodyBroken"})


def stray_roots() -> list[str]:
    """Classes whose bases are only builtin exceptions (a root of their own), outside mappings/errors.py."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = str(path.relative_to(ROOT))
            if relative == "mappings/errors.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ClassDef) or not node.bases:
                    continue
                names = [base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute)
                         else "" for base in node.bases]
                if all(name in BUILTIN_EXCEPTIONS for name in names):
                    found.append(f"{relative}:{node.name}")
    return sorted(set(found) - SIGNALS)


def test_every_error_class_derives_from_the_one_root():
    assert stray_roots() == []


def test_the_errors_named_in_issue_24_are_v1bridge_errors():
    from codemod.audit.baseline import BaselineError
    from codemod.plan import RuleRegistryError
    from codemod.selection import SelectionError
    from mappings.check import SchemaError
    from mappings.errors import StartupError, UsageError, V1bridgeError
    from sandbox.store import DatabaseLocked
    from v1bridge.settings import SettingsError

    assert [issubclass(cls, UsageError) for cls in (BaselineError, SelectionError, SchemaError, SettingsError)] == \
        [True] * 4
    assert issubclass(DatabaseLocked, StartupError) and issubclass(RuleRegistryError, V1bridgeError)


def test_a_commands_refusal_is_rendered_by_the_front_door(tmp_path, capsys):
    """A bad baseline, an unknown rule and an unreadable v2 document: one line each, `v1bridge COMMAND: ...`, exit 2."""
    from v1bridge.cli import main

    bad = tmp_path / "baseline.json"
    bad.write_text("not json", encoding="utf-8")
    assert main(["audit", str(tmp_path), "--baseline", str(bad)]) == 2
    assert capsys.readouterr().err.startswith(f"v1bridge audit: baseline {bad} is not JSON: ")
    assert main(["rewrite", str(tmp_path), "--select", "Z99"]) == 2
    assert capsys.readouterr().err == "v1bridge rewrite: unknown rule, class or prefix: 'Z99' (see `v1bridge rules`)\n"
    assert main(["mappings", "check", "--v2", str(tmp_path / "missing.json")]) == 2
    assert capsys.readouterr().err == f"v1bridge mappings check: {tmp_path / 'missing.json'}: No such file or directory\n"


ROOT_NAMES = frozenset({"V1bridgeError", "UsageError", "StartupError", "SelectionError", "BaselineError",
                        "SchemaError", "SettingsError", "DatabaseLocked", "MappingError"})


def rendering_handlers() -> list[str]:
    """Files with an `except` naming the root (or a family of it) whose body does more than re-raise."""
    found = set()
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ExceptHandler) or node.type is None:
                    continue
                names = {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node.type)
                         if isinstance(n, (ast.Name, ast.Attribute))}
                reraises = len(node.body) == 1 and isinstance(node.body[0], ast.Raise) and node.body[0].exc is None
                if names & ROOT_NAMES and not reraises:
                    found.add(str(path.relative_to(ROOT)))
    return sorted(found)


def test_no_command_renders_the_root_itself():
    """The per-command `except ...Error: print(...)` blocks are gone: of the command modules only v1bridge/cli.py
    turns the root into output (`translate` reports the answer the proxy would give: its output, not a refusal)."""
    commands = [p for p in rendering_handlers() if "/cli" in p or p.endswith("cli.py")]
    assert commands == ["proxy/cli_translate.py", "v1bridge/cli.py"]
