"""Typed readers: a v2 answer decoded straight into structs holding only what a response map reads, and the map
compiled against those structs.

orjson turns every byte of a v2 answer into Python objects (a 20-pod list: ~1,200, ssh blocks and runtime
metrics included) and the compiled map then reads two thirds of them. msgspec decodes into struct types made here,
at start-up, from the map's `from` paths and its converters' declared reads (converters.RESPONSE_READS): keys
nobody reads are skipped without building anything, and the structs are not tracked by the garbage collector.
The map is compiled into one function per map, its converters' typed forms inlined (TYPED_CONVERTERS): a list runs
it once per item, and a call per converter, each reading the same sub-objects again, cost more than the rest of
the translation.

The dict path (orjson + translate.py's compiled map) stays the definition of every answer. A typed reader only
answers what it can answer the same way, byte for byte, and gives up (None) on anything else, for the caller to
take the dict path: a body that is not the expected shape (msgspec refuses it: the dict path then gives its own
error), a value a converter fails on (the dict path fails the same way, with its own error), a value orjson cannot
write (an integer over 64 bits, which orjson reads as a float), or an object a converter reads that a struct cannot
tell apart from another the converter treats differently (`{}` and `{"other": 1}` both decode to a struct of
nulls; `Ambiguous`). A list page is answered page by page: its v1 items, and whether (and from which cursor) more
pages follow.
A map gets a typed reader only when every converter it runs has a typed form here, over the structs it reads.
"""
from __future__ import annotations

import copy
import keyword
import re
import textwrap
from typing import Any, Callable, NamedTuple, Optional

import msgspec
import orjson

from mappings.converters import RESPONSE_READS, _decode_args, _public_address
from mappings.loader import Mappings
from mappings.models import ResponseMap

__all__ = ["Ambiguous", "TypedPage", "TypedReader", "typed_reader"]


class Ambiguous(Exception):
    """The structs lost something the dict version of a converter depends on: read this answer as dicts."""


# ------------------------------------------------------------------ typed converters
# Each is the code, inlined into the compiled map, that leaves in `v` what its namesake in converters.py gives for
# the same v2 object (`v` holds the field's `from` value on entry, as `value` there). It reads the structs built
# from that converter's RESPONSE_READS: `at_<key>` is the object's struct-valued key `<key>` (read once per
# object), `null_<path>` the all-null instance of the struct at that dotted path (`_` for `.`: `{}` and an object
# of unread or null keys decode to it). Where the dict version would raise or tell apart what the structs cannot,
# it raises Ambiguous and the answer is read as dicts. A list the dict version copies is used as it is: the
# answer is serialised at once, and nothing else holds it.

TYPED_CONVERTERS: dict[str, str] = {
    "args_cmd": """
        if not isinstance(v, list):
            v = obj.args
            v = list(_decode_args(v)[1]) if v else []
    """,
    "args_entrypoint": """
        if not isinstance(v, list):
            v = obj.args
            v = list(_decode_args(v)[0]) if v else []
    """,
    "pod_mount_path": """
        if at_mounts is None:
            v = None
        elif at_mounts.persistent is not None:
            # {} is falsy to the dict version (-> the network volume), {"size": null} is not
            if at_mounts.persistent == null_mounts_persistent:
                raise Ambiguous
            v = at_mounts.persistent.path
        else:
            v = at_mounts.network
            v = v[0].path if v else None
    """,
    "pod_gpu": """
        if at_gpu is None:
            v = None
        elif at_gpu == null_gpu:  # {} -> null in the dict version, {"id": null} -> {id: null, count: null}
            raise Ambiguous
        else:
            v = {"id": at_gpu.id, "count": at_gpu.count}
    """,
    "runtime_port_mappings": """
        v = {}
        for port in (at_runtime.ports if at_runtime is not None else None) or ():
            if port.public is not None:
                if port.private is None:  # absent: the dict version raises; null: it writes "None"
                    raise Ambiguous
                v[str(port.private)] = port.public
        v = v or None
    """,
    "runtime_public_ip": """
        v = None
        for port in (at_runtime.ports if at_runtime is not None else None) or ():
            if port.ip and port.type == "tcp" and _public_address(port.ip):
                v = port.ip
                break
    """,
}
# what the converters' code reads besides the structs
_HELPERS: dict[str, Any] = {"Ambiguous": Ambiguous, "_decode_args": _decode_args, "_public_address": _public_address,
                            "_deepcopy": copy.deepcopy}
_STRUCT_NAMES = re.compile(r"\b(at|null)_(\w+)")


# ------------------------------------------------------------------ struct types


class _Node:
    """One key of the v2 object as the map reads it: whole (a value), by its keys (a struct), or by list item."""

    def __init__(self) -> None:
        self.whole = False
        self.keys: dict[str, _Node] = {}
        self.items: _Node | None = None

    def add(self, parts: list[str]) -> None:
        if not parts:
            self.whole = True
            return
        head, rest = parts[0], parts[1:]
        if head.isdigit():
            self.items = self.items or _Node()
            self.items.add(rest)
        else:
            self.keys.setdefault(head, _Node()).add(rest)

    def typed(self) -> bool:
        """Read by its keys only: a struct (a value read whole, or by list item and key alike, stays `Any`)."""
        return not self.whole and not (self.keys and self.items) and bool(self.keys or self.items)

    def struct(self) -> bool:
        return self.typed() and self.items is None


class _Types:
    """The msgspec types of a map's nodes, and its struct types by dotted path (list items: the list's path)."""

    def __init__(self, map_id: str) -> None:
        self.map_id = map_id
        self.structs: dict[str, type] = {}

    def of(self, node: _Node, path: str = "", optional: bool = True) -> Any:
        """The msgspec type of a node: Any (a JSON value as orjson gives it), a struct or a list of structs (an
        item that is not an object, null included, is refused: the dict path decides what it means)."""
        if not node.typed():
            return Any
        if node.items is not None:
            kind: Any = list[self.of(node.items, path, optional=False)]  # type: ignore[misc]
        else:
            fields = [(name, self.of(child, f"{path}.{name}".lstrip(".")), None) for name, child in node.keys.items()]
            kind = msgspec.defstruct(f"{self.map_id}_{len(self.structs) + 1}", fields, gc=False)
            self.structs[path] = kind
        return Optional[kind] if optional else kind


def _plain(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_")


# ------------------------------------------------------------------ the reader


class TypedPage(NamedTuple):
    """One page of a v2 list read typed: its v1 items as a JSON array, and the pagination block's `more` flag and
    cursor (the cursor as sent; read only when more pages follow)."""

    items: bytes
    more: bool
    cursor: Any


class TypedReader:
    """One response map over typed structs: `answer_object(body)` and `read_page(body, ...)` give the v1 JSON the
    dict path gives, or None."""

    def __init__(self, spec: ResponseMap, translate: Callable[[Any], dict[str, Any]], item: Any) -> None:
        self.spec = spec
        self.translate = translate
        self.item = item
        self.object_decoder = msgspec.json.Decoder(item)
        self._pages: dict[tuple[str, str, str, str, bool], msgspec.json.Decoder] = {}

    def page_decoder(self, list_key: str, block: str, more: str, cursor: str,
                     paginated: bool = False) -> msgspec.json.Decoder:
        """A list page: the list under `list_key` (required: without it the dict path answers its error) and the
        pagination block's `more` flag and `cursor`. `paginated`: the block is required as v2.json has it (a
        boolean flag, a string or null cursor); a page without it is left to the dict path, which refuses it."""
        key = (list_key, block, more, cursor, paginated)
        decoder = self._pages.get(key)
        if decoder is None:
            if not all(_plain(name) for name in key[:4]) or more == cursor:
                raise ValueError(f"{self.spec.id}: page keys {key} are not plain names")
            if paginated:
                pagination = msgspec.defstruct(f"{self.spec.id}_pagination", [(more, bool), (cursor, Optional[str])],
                                               gc=False)
                block_field: tuple[Any, ...] = (block, pagination)
            else:
                pagination = msgspec.defstruct(f"{self.spec.id}_pagination", [(more, Any, None), (cursor, Any, None)],
                                               gc=False)
                block_field = (block, Optional[pagination], None)
            page = msgspec.defstruct(f"{self.spec.id}_page", [(list_key, list[self.item]),  # type: ignore[name-defined]
                                                              block_field], gc=False)
            decoder = self._pages[key] = msgspec.json.Decoder(page)
        return decoder

    def answer_object(self, body: bytes) -> bytes | None:
        try:
            return orjson.dumps(self.translate(self.object_decoder.decode(body)))
        except Exception:  # noqa: BLE001 - refused, ambiguous, or a value the dict path fails on: it decides
            return None

    def read_page(self, body: bytes, list_key: str, block: str, more: str, cursor: str,
                  paginated: bool = False) -> TypedPage | None:
        """One page of a v2 list: its v1 items, and whether more follow (the `more` flag exactly true)."""
        try:
            page = self.page_decoder(list_key, block, more, cursor, paginated).decode(body)
            translate = self.translate
            items = orjson.dumps([translate(item) for item in getattr(page, list_key)])
        except Exception:  # noqa: BLE001 - refused, ambiguous, or a value the dict path fails on: it decides
            return None
        pagination = getattr(page, block)
        if pagination is None or getattr(pagination, more) is not True:
            return TypedPage(items, False, None)
        return TypedPage(items, True, getattr(pagination, cursor))


def typed_reader(spec: ResponseMap, mappings: Mappings) -> TypedReader | None:
    """The typed reader of a map, or None when it has none: a converter without a typed form or reading a key the
    structs do not hold as a struct (include-gated fields aside: a typed reader answers only requests without
    include flags), or a key that is not a plain name."""
    root = _Node()
    fields = [(name, rule) for name, rule in spec.fields.items() if not rule.omit and rule.include is None]
    for _, rule in fields:
        if rule.convert and rule.convert not in TYPED_CONVERTERS:
            return None
        for path in [*rule.sources, *(RESPONSE_READS.get(rule.convert, ()) if rule.convert else ())]:
            root.add(path.split("."))
    if not root.struct() or not all(_plain(part) for part in _all_keys(root)):
        return None
    types = _Types(spec.id)
    item = types.of(root, optional=False)
    namespace: dict[str, Any] = dict(_HELPERS)
    for path, kind in types.structs.items():
        if path:
            namespace["null_" + path.replace(".", "_")] = kind()
    hoisted = [key for key, node in root.keys.items() if node.struct()]
    lines = ["def translate(obj):", "    out = {}", *(f"    at_{key} = obj.{key}" for key in hoisted)]
    for index, (name, rule) in enumerate(fields):
        code = _field_code(index, rule, root, namespace, mappings)
        if not all(f"{kind}_{key}" in namespace or kind == "at" and key in hoisted
                   for kind, key in _STRUCT_NAMES.findall("\n".join(code))):
            return None  # a converter reading as structs what this map reads otherwise
        lines.extend("    " + line for line in code)
        if _never_null(rule) or rule.nullable:
            lines.append(f"    out[{name!r}] = v")
        else:
            lines.append("    if v is not None:")
            lines.append(f"        out[{name!r}] = v")
    for alias, target in spec.aliases.items():
        lines.append(f"    if {target!r} in out:")
        lines.append(f"        out[{alias!r}] = out[{target!r}]")
    lines.append("    return out")
    exec(compile("\n".join(lines), f"<typed response map {spec.id}>", "exec"), namespace)  # noqa: S102 - packaged data
    return TypedReader(spec, namespace["translate"], item)


def _all_keys(node: _Node) -> list[str]:
    keys = list(node.keys)
    for child in node.keys.values():
        keys.extend(_all_keys(child))
    if node.items is not None:
        keys.extend(_all_keys(node.items))
    return keys


def _read_code(path: str, root: _Node, pad: str) -> list[str]:
    """Statements leaving the value at a dotted path in `v`, as translate.py's get chain reads it from dicts."""
    code: list[str] = []
    node: _Node | None = root
    for n, part in enumerate(path.split(".")):
        if n == 0:
            code.append(f"{pad}v = at_{part}" if root.keys[part].struct() else f"{pad}v = obj.{part}")
            node = root.keys[part]
        elif node is not None and node.struct() and not part.isdigit():
            code.append(f"{pad}v = v.{part} if v is not None else None")
            node = node.keys[part]
        elif node is not None and node.typed() and node.items is not None and part.isdigit():
            code.append(f"{pad}v = (v[{part}] if len(v) > {part} else None) if v is not None else None")
            node = node.items
        else:  # below a value read whole: the dicts and lists orjson would give, read as translate.py reads them
            node = None
            if part.isdigit():
                code.append(f"{pad}v = v.get({part!r}) if isinstance(v, dict) else "
                            f"((v[{part}] if len(v) > {part} else None) if isinstance(v, list) else None)")
            else:
                code.append(f"{pad}v = v.get({part!r}) if isinstance(v, dict) else None")
    return code


def _field_code(index: int, rule: Any, root: _Node, namespace: dict[str, Any], mappings: Mappings) -> list[str]:
    """translate.py's _field_code over structs (same order of steps: sources, converter, value map, fallback)."""
    if rule.has_const:
        return [f"v = {_fresh_code(index, rule.const, namespace, 'k')}"]
    code: list[str] = []
    if rule.source is None:
        code.append("v = None")
    for n, source in enumerate(rule.sources):
        if n:
            code.append("if v is None:")
        code.extend(_read_code(source, root, "" if n == 0 else "    "))
    if rule.convert:
        code.extend(textwrap.dedent(TYPED_CONVERTERS[rule.convert]).strip("\n").splitlines())
    if rule.values:
        namespace[f"b{index}"] = mappings.values[rule.values].backward
        code.append(f"if v is not None: v = b{index}.get(v, v)")
    if rule.has_fallback and rule.fallback is not None:
        code.append(f"if v is None: v = {_fresh_code(index, rule.fallback, namespace, 'f')}")
    return code


def _never_null(rule: Any) -> bool:
    """The field's value is a constant or falls back to one: its key is always written."""
    if rule.has_const:
        return rule.const is not None
    return rule.has_fallback and rule.fallback is not None


def _fresh_code(index: int, value: Any, namespace: dict[str, Any], kind: str) -> str:
    if isinstance(value, (list, dict)):
        if not value:
            return "[]" if isinstance(value, list) else "{}"
        namespace[f"{kind}{index}"] = value
        return f"_deepcopy({kind}{index})"
    namespace[f"{kind}{index}"] = value
    return f"{kind}{index}"
