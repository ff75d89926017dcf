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

import functools
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


class _Folders:
    """What one run asks of folders, asked once per folder, not once per moved module: the project's folder and
    the packages above (a namespace package is known by reading its folder's modules)."""

    def __init__(self) -> None:
        self.project_root = functools.lru_cache(maxsize=None)(_project_root)
        self._packages = functools.lru_cache(maxsize=None)(self._packages_above)
        self.is_package = functools.lru_cache(maxsize=None)(_is_package)

    def module_name(self, path: Path) -> tuple[Path, str]:
        """(the folder the program runs from, the dotted name the module is imported by), up its packages (an
        __init__.py, or a namespace package its neighbours import as one)."""
        home, packages = self._packages(path.parent)
        return home, ".".join((*packages, path.stem))

    def _packages_above(self, folder: Path) -> tuple[Path, tuple[str, ...]]:
        if not self.is_package(folder):
            return folder, ()
        home, packages = self._packages(folder.parent)
        return home, (*packages, folder.name)


def _is_package(folder: Path) -> bool:
    from codemod.compat import is_package

    return is_package(folder)


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
    given = [Path(p).resolve() for p in given]
    targets: dict[Path, list[tuple[str, re.Pattern]]] = {}
    folders = [folder for folder in given if folder.is_dir()]

    def whole(root: Path) -> bool:  # the run was given the whole project: nothing of it is outside
        return any(root == folder or folder in root.parents for folder in folders)

    folders_of = _Folders()
    for path in moved:
        root = folders_of.project_root(path.parent)
        if root is not None and whole(root):
            continue  # known without the module's name (finding its packages reads their folders)
        if root is None and any(folder in path.parents and not folders_of.is_package(folder) for folder in folders):
            continue  # its packages end at or below a folder given that is not one: where it is imported from is in
            # the run (known from that folder alone, not from reading each folder up to it)
        home, name = folders_of.module_name(path)
        root = root or home
        if whole(root):
            continue
        targets.setdefault(root, []).append((name, _pattern(name)))
    if not targets:
        return []
    inside = {Path(p).resolve() for p in run}
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
