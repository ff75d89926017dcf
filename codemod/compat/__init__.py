"""The compat module: generated from `mappings/` into the user's project, called by rewritten code.

Where v1 did something v2 no longer does (fallback lists, reset, v1 views of records, lists and bodies the
rewrite cannot read), the rewritten call goes to v2 through a small function of `v1bridge_compat.py`.
This package writes that module: the template (`v1bridge_compat.py.tmpl`, the behaviour), the tables cut
from the mapping data (`tables.py`), and the named conversions copied from `mappings/converters.py`
(`source.py`). The module imports the standard library only and never opens a connection; its API is
documented in its own docstrings and in docs (the names below are what the rewrite and the audit use).

    from codemod import compat
    text = compat.render()                       # the module, byte-identical for identical inputs
    compat.write(Path("pkg/v1bridge_compat.py"))  # written only when it differs
"""
from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Iterable

from mappings import converters
from mappings.loader import Mappings, default_mappings

from codemod.compat import tables
from codemod.compat.source import ConverterSource

MODULE_NAME = "v1bridge_compat"
TEMPLATE = Path(__file__).with_name(f"{MODULE_NAME}.py.tmpl")

# The module's public functions (its __all__): what rewritten code calls and the audit lists as compat calls.
FUNCTIONS = (
    "create_with_fallback", "acreate_with_fallback",
    "reset_pod", "areset_pod",
    "v1_view", "av1_view",
    "all_pages", "aall_pages",
    "call_v1", "acall_v1",
    "with_v1_body", "awith_v1_body",
    "v2_body", "v2_route", "by_method",
    "CompatError", "V1Response", "V1BRIDGE_VERSION",
)

# What the copied conversions need besides the converters the data names.
_CONVERTER_SUPPORT = {"Catalog", "ComposeContext", "ResponseContext", "get_path", "set_path"}
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


def _version() -> str:
    from v1bridge import __version__

    return __version__


def render(mappings: Mappings | None = None, version: str | None = None) -> str:
    """The text of v1bridge_compat.py for these mappings (default: the packaged ones) and v1bridge version."""
    m = mappings or default_mappings()
    version = version or _version()
    names = tables.converter_names(m)
    roots = {name for group in names.values() for name in group} | _CONVERTER_SUPPORT
    imports, code = ConverterSource(Path(converters.__file__)).render(roots)
    registries = "\n".join(
        f"{registry} = {{\n" + "".join(f"    {name!r}: {name},\n" for name in group) + "}"
        for registry, group in names.items()
    )
    values = {
        "version": version,
        "version_literal": repr(version),
        "imports": "\n".join(imports),
        "all_names": "[\n" + "".join(f"    {name!r},\n" for name in FUNCTIONS) + "]",
        "tables": tables.render(m),
        "converters": code + "\n\n# the conversions the mapping data names, by name\n" + registries + "\n",
    }
    text = _PLACEHOLDER.sub(lambda found: values[found.group(1)], TEMPLATE.read_text(encoding="utf-8"))
    return _sort_imports(text).rstrip("\n") + "\n"


def _sort_imports(text: str) -> str:
    """The template's imports and the copied conversions' as one sorted, duplicate-free block."""
    head, marker, rest = text.partition("from __future__ import annotations\n\n")
    block, blank, tail = rest.partition("\n\n")
    lines = sorted(set(block.splitlines()), key=lambda line: (line.startswith("from "), line.split()[1], line))
    return head + marker + "\n".join(lines) + blank + tail


def write(path: Path, mappings: Mappings | None = None, version: str | None = None) -> bool:
    """Write the module at `path` when its text differs (atomically); True when written."""
    path = Path(path)
    text = render(mappings, version).encode("utf-8")
    try:
        if path.read_bytes() == text:
            return False
    except FileNotFoundError:
        pass
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".v1bridge", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True


def _is_package(folder: Path) -> bool:
    return (folder / "__init__.py").is_file()


def default_location(files: Iterable[Path]) -> Path:
    """Where the module goes by default: next to the client code that calls it.

    The folder holding every calling file; when that folder is a package, its top-level package (so each
    subpackage imports the one module from its root package).
    """
    folders = [Path(f).resolve().parent for f in files]
    if not folders:
        raise ValueError("no calling files: the compat module has no place")
    folder = Path(os.path.commonpath(folders))
    while _is_package(folder) and _is_package(folder.parent):
        folder = folder.parent
    return folder / f"{MODULE_NAME}.py"


def import_statement(importer: Path, module: Path) -> str | None:
    """The import that makes `<module name>` usable in `importer`, or None when no import reaches it.

    Inside one package: relative (`from . import v1bridge_compat`, `from .. import ...` one level down). A module
    in a plain folder: imported by name (`import v1bridge_compat`), from that folder or a package below it (the
    folder is where the program runs from).
    """
    here = Path(importer).resolve().parent
    home = Path(module).resolve().parent
    name = Path(module).stem
    try:
        depth = len(here.relative_to(home).parts)
    except ValueError:
        return None
    if _is_package(home):
        chain = [here, *list(here.parents)[:depth]]
        if all(_is_package(folder) for folder in chain):
            return f"from {'.' * (depth + 1)} import {name}"
        return None
    return f"import {name}"
