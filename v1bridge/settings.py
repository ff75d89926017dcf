"""Settings kept in files, read the way ruff reads its own: the file sets defaults, flags override.

- `audit` and `rewrite` read `[tool.v1bridge]` from the nearest `pyproject.toml` at or above the
  current folder, then `[tool.v1bridge.audit]` / `[tool.v1bridge.rewrite]` over it. A key of the
  shared table applies to each of the two commands that has that option.
- `proxy` reads the TOML file named by `--config FILE` (top level, or a `[proxy]` table).

A key is an option's long name, with dashes or underscores (`fail-on-legacy`, `keys_file`). An
unknown key or a value of the wrong type is a usage error naming the file and the key, never
ignored. Relative paths in a file are relative to that file's folder.
"""
from __future__ import annotations

import argparse
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mappings.errors import UsageError

PROJECT_COMMANDS = ("audit", "rewrite")
# options whose value names a file or folder: made relative to the settings file's folder
PATH_METAVARS = frozenset({"FILE", "DIR", "PATH", "USAGE", "BYTES_FILE"})


class SettingsError(UsageError):
    """A settings file that cannot be read or holds a key or value the command does not accept."""


@dataclass(frozen=True)
class Settings:
    source: Path | None
    values: dict[str, Any]


def find_pyproject(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from None


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Long option name without dashes (also with underscores) -> its action."""
    out: dict[str, argparse.Action] = {}
    for action in parser._actions:  # argparse has no public listing of a parser's actions
        longs = [o for o in action.option_strings if o.startswith("--")]
        if not longs or action.dest in ("help", "version", "config"):
            continue
        name = longs[0][2:]
        out[name] = action
        out[name.replace("-", "_")] = action
    return out


def _convert(action: argparse.Action, key: str, value: Any, where: Path) -> Any:
    def bad(why: str) -> SettingsError:
        return SettingsError(f"{where}: {key}: {why}")

    def one(item: Any) -> Any:
        if isinstance(item, bool) or not isinstance(item, (str, int, float)):
            raise bad(f"expected a string or number, got {type(item).__name__}")
        text = str(item)
        if action.metavar in PATH_METAVARS and not Path(text).is_absolute():
            text = str(where.parent / text)
        try:
            converted = action.type(text) if callable(action.type) else (item if not isinstance(item, str) else text)
        except (TypeError, ValueError, argparse.ArgumentTypeError) as exc:
            raise bad(f"invalid value {item!r}: {exc}") from None
        if action.choices is not None and converted not in action.choices:
            raise bad(f"{item!r} is not one of {', '.join(map(str, action.choices))}")
        return converted

    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
        if not isinstance(value, bool):
            raise bad("expected true or false")
        return value if isinstance(action, argparse._StoreTrueAction) else not value
    if isinstance(action, argparse._AppendAction) or action.nargs in ("*", "+"):
        items = value if isinstance(value, list) else [value]
        return [one(item) for item in items]
    if isinstance(value, list):
        raise bad("expected one value, got a list")
    return one(value)


def apply(parser: argparse.ArgumentParser, table: dict[str, Any], where: Path, *, strict: bool = True) -> list[str]:
    """Set PARSER's defaults from TABLE; returns the keys this parser does not have (an error when strict)."""
    options = _options(parser)
    defaults: dict[str, Any] = {}
    unknown: list[str] = []
    for key, value in table.items():
        if isinstance(value, dict):
            continue  # a sub-table: read by its own command
        action = options.get(key)
        if action is None:
            unknown.append(key)
            continue
        defaults[action.dest] = _convert(action, key, value, where)
    if strict and unknown:
        raise SettingsError(f"{where}: unknown setting(s) {', '.join(sorted(unknown))} "
                            f"(see `v1bridge {parser.prog.split()[-1]} --help`)")
    parser.set_defaults(**defaults)
    return unknown


def apply_project(command: str, parser: argparse.ArgumentParser, start: Path | None = None) -> Path | None:
    """`[tool.v1bridge]` of the nearest pyproject.toml, for `audit` and `rewrite`."""
    pyproject = find_pyproject((start or Path.cwd()).resolve())
    if pyproject is None:
        return None
    tool = _read(pyproject).get("tool", {}).get("v1bridge")
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise SettingsError(f"{pyproject}: [tool.v1bridge] must be a table")
    extra = set(tool) - set(PROJECT_COMMANDS)
    sub_tables = {k for k, v in tool.items() if isinstance(v, dict)}
    if sub_tables - set(PROJECT_COMMANDS):
        raise SettingsError(f"{pyproject}: unknown table(s) [tool.v1bridge.{', '.join(sorted(sub_tables - set(PROJECT_COMMANDS)))}]"
                            f" (only {', '.join(PROJECT_COMMANDS)})")
    shared = {k: tool[k] for k in extra if k not in sub_tables}
    unknown_here = apply(parser, shared, pyproject, strict=False)
    # a shared key must mean something to at least one of the two commands
    if unknown_here:
        _check_shared(unknown_here, command, pyproject)
    own = tool.get(command)
    if own is not None:
        apply(parser, own, pyproject)
    return pyproject


def _check_shared(keys: list[str], command: str, where: Path) -> None:
    import importlib

    from v1bridge.cli import SUBCOMMANDS

    for other in PROJECT_COMMANDS:
        if other == command:
            continue
        probe = argparse.ArgumentParser(prog=f"v1bridge {other}")
        importlib.import_module(SUBCOMMANDS[other][0]).configure(probe)
        known = _options(probe)
        keys = [k for k in keys if k not in known]
    if keys:
        raise SettingsError(f"{where}: unknown setting(s) in [tool.v1bridge]: {', '.join(sorted(keys))} "
                            f"(neither `v1bridge audit` nor `v1bridge rewrite` has them)")


def apply_config_file(parser: argparse.ArgumentParser, path: Path) -> None:
    """`proxy --config FILE`: the file's keys (top level, or its `[proxy]` table) as the parser's defaults."""
    data = _read(path)
    table = data.get("proxy", data) if isinstance(data.get("proxy"), dict) else data
    apply(parser, table, path.resolve())
