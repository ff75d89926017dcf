"""Modules outside the paths given that import what a run moved (codemod/outside.py): found by reading only the
folders that can hold them."""
from __future__ import annotations

from pathlib import Path

from codemod import compat, outside

CLIENT = ('import requests\n\nBASE = "https://rest.runpod.io/v1"\n\n\n'
          'def get(path):\n    return requests.get(BASE + path, timeout=30).json()\n')


def _tree(root: Path, folders: int = 3, modules: int = 4) -> list[Path]:
    """ROOT/given/sub<i>/: namespace packages (no __init__.py, their modules import each other relatively) of
    MODULES modules, the first a client; the moved modules."""
    given = root / "given"
    moved = []
    for i in range(folders):
        sub = given / f"sub{i}"
        sub.mkdir(parents=True)
        (sub / "api.py").write_text(CLIENT)
        for j in range(1, modules):
            (sub / f"mod{j}.py").write_text("import json\n\nfrom .api import get\n")
        moved.append(sub / "api.py")
    return moved


def _reading(monkeypatch) -> list[Path]:
    read: list[Path] = []
    real = compat._imports_text
    monkeypatch.setattr(compat, "_imports_text", lambda module: read.append(module) or real(module))
    compat._is_namespace_package.cache_clear()
    return read


def test_a_folder_given_that_is_no_package_holds_its_modules_home_and_no_folder_below_it_is_read(tmp_path, monkeypatch):
    """The modules' packages end at or below the folder given when it is not a package itself: nothing of the
    project is outside, known from that folder alone (each folder below it was read to learn it: a tenth of a
    10,000-file run)."""
    moved = _tree(tmp_path)
    read = _reading(monkeypatch)
    found = outside.importers(moved, [tmp_path / "given"], [p for p in (tmp_path / "given").rglob("*.py")])
    assert found == []
    assert not [p for p in read if (tmp_path / "given") in p.parents and p.parent != tmp_path / "given"]


def test_a_folder_given_that_is_a_namespace_package_still_has_its_importers_beside_it_named(tmp_path, monkeypatch):
    moved = _tree(tmp_path)
    (tmp_path / "report.py").write_text("import sys\n\nfrom given.sub1.api import get\n")  # given: a namespace package
    _reading(monkeypatch)
    found = outside.importers(moved, [tmp_path / "given"], [p for p in (tmp_path / "given").rglob("*.py")])
    assert found == [outside.OutsideImporter("report.py", "given.sub1.api", 3)]
