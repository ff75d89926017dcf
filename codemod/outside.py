"""Modules outside the paths given that import what a rewrite moved (issue 21: named in the summary).

A run moves a shared base constant or a helper to v2 when every call through it *in the run* is migrated. A module
of the same project the user did not name (`v1bridge rewrite rp/` while `main.py` beside `rp/` does
`from rp.api import BASE`) may still use it the v1 way: the run cannot see it, so it says so. The project is the
nearest folder above the paths given holding pyproject.toml, setup.py, setup.cfg or .git, else the folder holding
the top-level package of the moved module; its Python files (the walk's own skips apply) that are not in the run
are read as text, and each one importing a moved module (`import rp.api`, `from rp.api import x`,
`from rp import api`) is named with what it imports.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

_PROJECT_MARKS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


@dataclass(frozen=True)
class OutsideImporter:
    path: str  # the importing module, relative to the project's folder
    imports: str  # the moved module it imports ("rp.api")
    line: int


def _project_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if any((folder / mark).exists() for mark in _PROJECT_MARKS):
            return folder
    return None


def _module_name(path: Path) -> tuple[Path, str]:
    """(the folder the program runs from, the dotted name the module is imported by), up its packages (an
    __init__.py, or a namespace package its neighbours import as one)."""
    from codemod.compat import is_package

    parts = [path.stem]
    folder = path.parent
    while is_package(folder):
        parts.insert(0, folder.name)
        folder = folder.parent
    return folder, ".".join(parts)


def _pattern(module: str) -> re.Pattern:
    head, _, last = module.rpartition(".")
    alternatives = [rf"from\s+{re.escape(module)}\s+import\b", rf"import\s+{re.escape(module)}\b"]
    if head:
        alternatives.append(rf"from\s+{re.escape(head)}\s+import\s+[^#\n]*\b{re.escape(last)}\b")
    return re.compile(rf"^[ \t]*(?:{'|'.join(alternatives)})", re.M)


def importers(moved: Iterable[Path], given: Iterable[Path], run: Iterable[Path]) -> list[OutsideImporter]:
    """The modules outside the run that import one of the MOVED modules (files whose base or helper the run moved
    to v2); GIVEN: the paths the run was given, RUN: every file it read."""
    from codemod.walk import iter_files

    moved = [Path(p).resolve() for p in moved]
    if not moved:
        return []
    inside = {Path(p).resolve() for p in run}
    given = [Path(p).resolve() for p in given]
    targets: dict[Path, list[tuple[str, re.Pattern]]] = {}
    for path in moved:
        home, name = _module_name(path)
        root = _project_root(path.parent) or home
        if any(folder.is_dir() and (root == folder or folder in root.parents) for folder in given):
            continue  # the run was given the whole project: nothing of it is outside
        targets.setdefault(root, []).append((name, _pattern(name)))
    found: list[OutsideImporter] = []
    for root, patterns in sorted(targets.items()):
        for source in iter_files([root], include_suffixes=(".py",), check_generated=False):
            path = Path(source.path).resolve()
            if path in inside:
                continue
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            for name, pattern in patterns:
                if name.split(".")[-1] not in text:
                    continue
                hit = pattern.search(text)
                if hit is not None:
                    found.append(OutsideImporter(path.relative_to(root).as_posix(), name,
                                                 text.count("\n", 0, hit.start()) + 1))
                    break
    return sorted(set(found), key=lambda o: (o.path, o.imports))
