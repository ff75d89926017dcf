"""Typed readers: a v2 answer decoded straight into structs holding only what a response map reads, and the map
compiled against those structs.

orjson turns every byte of a v2 answer into Python objects (a 20-pod list: ~1,200, ssh blocks and runtime
metrics included) and the compiled map then reads two thirds of them. msgspec decodes into struct types made here,
at start-up, from the map's `from` paths and its converters' declared reads (converters.RESPONSE_READS): keys
nobody reads are skipped without building anything, and the structs are not tracked by the garbage collector.

The dict path (orjson + translate.py's compiled map) stays the definition of every answer. A typed reader only
answers what it can answer the same way, byte for byte, and gives up (None) on anything else, for the caller to
take the dict path: a body that is not the expected shape (msgspec refuses it: the dict path then gives its own
error), a value a converter fails on (the dict path fails the same way, with its own error), a page that says more pages follow, a value orjson cannot write (an integer over 64 bits, which orjson
reads as a float), or an object a converter reads that a struct cannot tell apart from another the converter
treats differently (`{}` and `{"other": 1}` both decode to a struct of nulls; `Ambiguous`).
A map gets a typed reader only when every converter it runs has a typed form here (TYPED_CONVERTERS).
"""
from __future__ import annotations

import copy
import keyword
from typing import Any, Callable, Optional

import msgspec
import orjson

from mappings.converters import RESPONSE_READS, _decode_args, _public_address
from mappings.loader import Mappings
from mappings.models import ResponseMap

__all__ = ["Ambiguous", "TypedReader", "typed_reader"]


class Ambiguous(Exception):
    """The structs lost something the dict version of a converter depends on: read this answer as dicts."""


def _empty(struct: Any) -> bool:
    """Every declared field null: `{}` (falsy to a dict converter) or an object of unread or null keys (truthy).
    Compared with the type's all-null instance (a struct comparison runs in C)."""
    kind = type(struct)
    nulls = _NULLS.get(kind)
    if nulls is None:
        nulls = _NULLS[kind] = kind()
    return struct == nulls


_NULLS: dict[type, Any] = {}


# ------------------------------------------------------------------ typed converters
# Each gives what its namesake in converters.py gives for the same v2 object, reading the structs built from
# that converter's RESPONSE_READS (`value` is the field's `from` value, as there). Where the dict version would
# raise or tell apart what the structs cannot, they raise Ambiguous and the answer is read as dicts.


def _args_cmd(value: Any, obj: Any) -> list[str]:
    if isinstance(value, list):
        return list(value)
    args = obj.args
    return list(_decode_args(args)[1]) if args else []


def _args_entrypoint(value: Any, obj: Any) -> list[str]:
    if isinstance(value, list):
        return list(value)
    args = obj.args
    return list(_decode_args(args)[0]) if args else []


def _pod_mount_path(value: Any, obj: Any) -> Any:
    mounts = obj.mounts
    if mounts is None:
        return None
    persistent = mounts.persistent
    if persistent is not None:
        if _empty(persistent):  # {} is falsy to the dict version (-> the network volume), {"size": null} is not
            raise Ambiguous
        return persistent.path
    network = mounts.network
    return network[0].path if network else None


def _pod_gpu(value: Any, obj: Any) -> Any:
    gpu = obj.gpu
    if gpu is None:
        return None
    if _empty(gpu):  # {} -> null in the dict version, {"id": null} -> {id: null, count: null}
        raise Ambiguous
    return {"id": gpu.id, "count": gpu.count}


def _runtime_port_mappings(value: Any, obj: Any) -> Any:
    runtime = obj.runtime
    if runtime is None:
        return None
    mapping = {}
    for port in runtime.ports or ():
        public = port.public
        if public is not None:
            if port.private is None:  # absent: the dict version raises; null: it writes "None"
                raise Ambiguous
            mapping[str(port.private)] = public
    return mapping or None


def _runtime_public_ip(value: Any, obj: Any) -> Any:
    runtime = obj.runtime
    if runtime is None:
        return None
    for port in runtime.ports or ():
        ip = port.ip
        if ip and port.type == "tcp" and _public_address(ip):
            return ip
    return None


TYPED_CONVERTERS: dict[str, Callable[[Any, Any], Any]] = {
    "args_cmd": _args_cmd,
    "args_entrypoint": _args_entrypoint,
    "pod_mount_path": _pod_mount_path,
    "pod_gpu": _pod_gpu,
    "runtime_port_mappings": _runtime_port_mappings,
    "runtime_public_ip": _runtime_public_ip,
}


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


class _Types:
    def __init__(self, map_id: str) -> None:
        self.map_id = map_id
        self.count = 0

    def of(self, node: _Node, optional: bool = True) -> Any:
        """The msgspec type of a node: Any (a JSON value as orjson gives it), a struct or a list of structs (an
        item that is not an object, null included, is refused: the dict path decides what it means)."""
        if not node.typed():
            return Any
        if node.items is not None:
            kind: Any = list[self.of(node.items, optional=False)]  # type: ignore[misc]
        else:
            self.count += 1
            fields = [(name, self.of(child), None) for name, child in node.keys.items()]
            kind = msgspec.defstruct(f"{self.map_id}_{self.count}", fields, gc=False)
        return Optional[kind] if optional else kind


def _plain(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_")


# ------------------------------------------------------------------ the reader


class TypedReader:
    """One response map over typed structs: `answer(body)` gives the v1 JSON bytes the dict path gives, or None."""

    def __init__(self, spec: ResponseMap, root: _Node, translate: Callable[[Any], dict[str, Any]], item: Any) -> None:
        self.spec = spec
        self.root = root
        self.translate = translate
        self.item = item
        self._object = msgspec.json.Decoder(item)
        self._pages: dict[tuple[str, str, str], msgspec.json.Decoder] = {}

    def page_decoder(self, list_key: str, block: str, more: str) -> msgspec.json.Decoder:
        """A list page: the list under `list_key` (required: without it the dict path answers its error) and the
        pagination block's `more` flag."""
        key = (list_key, block, more)
        decoder = self._pages.get(key)
        if decoder is None:
            if not (_plain(list_key) and _plain(block) and _plain(more)):
                raise ValueError(f"{self.spec.id}: page keys {key} are not plain names")
            pagination = msgspec.defstruct(f"{self.spec.id}_pagination", [(more, Any, None)], gc=False)
            page = msgspec.defstruct(f"{self.spec.id}_page", [(list_key, list[self.item]),  # type: ignore[name-defined]
                                                              (block, Optional[pagination], None)], gc=False)
            decoder = self._pages[key] = msgspec.json.Decoder(page)
        return decoder

    def answer_object(self, body: bytes) -> bytes | None:
        try:
            return orjson.dumps(self.translate(self._object.decode(body)))
        except Exception:  # noqa: BLE001 - refused, ambiguous, or a value the dict path fails on: it decides
            return None

    def answer_page(self, body: bytes, list_key: str, block: str, more: str) -> bytes | None:
        """The v1 list of a page that is the whole list (the dict path reads further pages)."""
        try:
            page = self.page_decoder(list_key, block, more).decode(body)
            pagination = getattr(page, block)
            if pagination is not None and getattr(pagination, more) is True:
                return None
            translate = self.translate
            return orjson.dumps([translate(item) for item in getattr(page, list_key)])
        except Exception:  # noqa: BLE001 - refused, ambiguous, or a value the dict path fails on: it decides
            return None


def typed_reader(spec: ResponseMap, mappings: Mappings) -> TypedReader | None:
    """The typed reader of a map, or None when it has none: a converter without a typed form (include-gated
    fields aside: a typed reader answers only requests without include flags), or a key that is not a plain name."""
    root = _Node()
    lines = ["def translate(obj):", "    out = {}"]
    namespace: dict[str, Any] = {"_deepcopy": copy.deepcopy}
    fields = [(name, rule) for name, rule in spec.fields.items() if not rule.omit and rule.include is None]
    for _, rule in fields:
        if rule.convert and rule.convert not in TYPED_CONVERTERS:
            return None
        for path in [*rule.sources, *(RESPONSE_READS.get(rule.convert, ()) if rule.convert else ())]:
            root.add(path.split("."))
    if not all(_plain(part) for part in _all_keys(root)):
        return None
    for index, (name, rule) in enumerate(fields):
        lines.extend("    " + line for line in _field_code(index, rule, root, namespace, mappings))
        lines.append("    if v is not None:")
        lines.append(f"        out[{name!r}] = v")
    for alias, target in spec.aliases.items():
        lines.append(f"    if {target!r} in out:")
        lines.append(f"        out[{alias!r}] = out[{target!r}]")
    lines.append("    return out")
    exec(compile("\n".join(lines), f"<typed response map {spec.id}>", "exec"), namespace)  # noqa: S102 - packaged data
    types = _Types(spec.id)
    if not root.typed() or root.items is not None:
        return None
    return TypedReader(spec, root, namespace["translate"], types.of(root, optional=False))


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
        source = "obj" if n == 0 else "v"
        if node is not None and node.typed() and node.items is None and not part.isdigit():
            code.append(f"{pad}v = {source}.{part}" if n == 0 else f"{pad}v = v.{part} if v is not None else None")
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
        namespace[f"c{index}"] = TYPED_CONVERTERS[rule.convert]
        code.append(f"v = c{index}(v, obj)")
    if rule.values:
        namespace[f"b{index}"] = mappings.values[rule.values].backward
        code.append(f"if v is not None: v = b{index}.get(v, v)")
    if rule.has_fallback and rule.fallback is not None:
        code.append(f"if v is None: v = {_fresh_code(index, rule.fallback, namespace, 'f')}")
    return code


def _fresh_code(index: int, value: Any, namespace: dict[str, Any], kind: str) -> str:
    if isinstance(value, (list, dict)):
        if not value:
            return "[]" if isinstance(value, list) else "{}"
        namespace[f"{kind}{index}"] = value
        return f"_deepcopy({kind}{index})"
    namespace[f"{kind}{index}"] = value
    return f"{kind}{index}"
