"""The named conversions of `mappings/converters.py`, copied into the compat module as source.

The proxy and the compat module must convert the same way, so the compat module does not get a second,
hand-written copy: it gets the very functions the mapping data names (and the helpers they use), cut out of
`mappings/converters.py` by name. A converter added there and named in a YAML file reaches the module
with no other edit. The copied code may import the standard library only; anything else stops the generator.
"""
from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

from mappings.errors import MappingError

# Names the converters import from the mapping package: the compat module defines its own (template).
PROVIDED_BY_TEMPLATE = frozenset({"InvalidValue", "NeedsLookup"})


@dataclass(frozen=True)
class _TopLevel:
    names: frozenset[str]
    uses: frozenset[str]
    start: int  # first line (decorators and the comment block right above included), 1-based
    end: int


def _defined_names(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, ast.Assign):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    return set()


def _used_names(node: ast.stmt) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _first_line(node: ast.stmt, lines: list[str]) -> int:
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    while start > 1 and lines[start - 2].lstrip().startswith("#"):
        start -= 1
    return start


class ConverterSource:
    """One parse of converters.py: which top-level definitions exist and what each one uses."""

    def __init__(self, path: Path) -> None:
        self.path = path
        text = path.read_text(encoding="utf-8")
        self.lines = text.splitlines()
        tree = ast.parse(text, filename=str(path))
        self.imports: list[ast.stmt] = []
        self.definitions: list[_TopLevel] = []
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.imports.append(node)
                continue
            names = _defined_names(node)
            if names:
                self.definitions.append(_TopLevel(frozenset(names), frozenset(_used_names(node) - names),
                                                  _first_line(node, self.lines), node.end_lineno or node.lineno))
        self.by_name = {name: d for d in self.definitions for name in d.names}

    def closure(self, roots: set[str]) -> list[_TopLevel]:
        """The definitions `roots` need, in source order."""
        missing = sorted(roots - set(self.by_name))
        if missing:
            raise MappingError(f"{self.path.name} defines no {', '.join(missing)} (named by the mapping)")
        wanted: set[_TopLevel] = set()
        todo = [self.by_name[name] for name in roots]
        while todo:
            item = todo.pop()
            if item in wanted:
                continue
            wanted.add(item)
            todo.extend(self.by_name[name] for name in item.uses if name in self.by_name)
        return sorted(wanted, key=lambda d: d.start)

    def render(self, roots: set[str]) -> tuple[list[str], str]:
        """(the import lines the chosen code needs, the chosen code) for the compat module."""
        chosen = self.closure(roots)
        used = set().union(*(d.uses for d in chosen)) if chosen else set()
        imports: list[str] = []
        for node in self.imports:
            if isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if module == "__future__":
                    continue
                names = [a for a in node.names if (a.asname or a.name) in used]
                names = [a for a in names if (a.asname or a.name) not in PROVIDED_BY_TEMPLATE]
                if not names:
                    continue
                _require_stdlib(module, self.path)
                imports.append(f"from {module} import " + ", ".join(_alias(a) for a in names))
            else:
                for alias in node.names:
                    if (alias.asname or alias.name.split(".")[0]) in used:
                        _require_stdlib(alias.name, self.path)
                        imports.append(f"import {_alias(alias)}")
        blocks = ["\n".join(self.lines[d.start - 1:d.end]) for d in chosen]
        return imports, "\n\n\n".join(blocks) + "\n"


def _alias(alias: ast.alias) -> str:
    return f"{alias.name} as {alias.asname}" if alias.asname else alias.name


def _require_stdlib(module: str, path: Path) -> None:
    if module.split(".")[0] not in sys.stdlib_module_names:
        raise MappingError(f"{path.name}: a converter the compat module needs imports {module!r}, "
                                    "which is not in the standard library")
