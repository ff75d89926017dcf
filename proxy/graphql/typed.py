"""Typed reading of a v2 answer for one GraphQL selection: only the v2 keys the selected fields read are decoded.

orjson turns every byte of a v2 answer into Python objects (a 20-pod list: ssh blocks, runtime metrics, actions,
all of it), and a selection such as the runpod SDK's `myself { pods {...} }` reads a third of them. As the REST side
does (mappings/typed.py), a selection gets msgspec struct types made from the v2 paths its view fields read
(`SelectionReads`, filled by views.py as it walks the selection), and its completer is compiled over those structs
(views.py `_Emitter` over structs). Keys nobody reads are skipped without building anything.

The dict path (orjson + the compiled dict completer, or the exact completion) stays the definition of every
answer: a typed read answers only what it answers the same way, and gives up (None) on anything else for the
caller to take the dict path: a body msgspec refuses (not the expected shape: the dict path then says why), a
value the compiled completer does not pass as it is (views.py `_Slow`), a list with more pages (read page by page
as dicts), or a value orjson cannot write. What it answers is already serialised (`orjson.Fragment`).
"""
from __future__ import annotations

import keyword
from typing import Any, Callable, Optional

import msgspec
import orjson


class Reads:
    """One v2 value as a selection reads it: whole (a JSON value as orjson gives it), by its keys (a struct), or by
    list item (a list of structs, or of values)."""

    __slots__ = ("whole", "keys", "items", "leaves", "other")

    def __init__(self) -> None:
        self.whole = False
        self.keys: dict[str, Reads] = {}
        self.items: Reads | None = None
        self.leaves: set[str] = set()  # the GraphQL scalars of the fields that take this value as it is
        self.other = False  # read whole by something else too (a converter, a value map)

    def read_as(self, scalar: str | None) -> None:
        """Read whole: as the value of a field of scalar type `scalar`, or (None) by anything else."""
        self.whole = True
        if scalar in LEAF_TYPES:
            self.leaves.add(scalar)
        else:
            self.other = True

    def leaf(self) -> str | None:
        """The one scalar this value is read as, when that is all it is read as: msgspec then checks its type (a
        value of another type is refused, and the dict path answers it), and the completer need not."""
        if (self.whole and not self.other and len(self.leaves) == 1 and not self.keys and self.items is None):
            return next(iter(self.leaves))
        return None

    def leaf_at(self, path: str) -> str | None:
        """`leaf()` of the node at a dotted path read through structs only (None otherwise)."""
        node: Reads | None = self
        for part in path.split(".") if path else ():
            if node is None or not node.typed():
                return None
            node = node.items if part.isdigit() else node.keys.get(part)
        return node.leaf() if node is not None else None

    def at(self, path: str) -> "Reads":
        """The node of a dotted v2 path below this one ("" is this one; a digit is a list item), made as needed."""
        node = self
        for part in path.split(".") if path else ():
            if part.isdigit():
                node.items = node.items or Reads()
                node = node.items
            else:
                node = node.keys.setdefault(part, Reads())
        return node

    def find(self, path: str) -> "Reads | None":
        """The node of a dotted path when every step of it is read typed (None: below a value read whole)."""
        node: Reads | None = self
        for part in path.split(".") if path else ():
            if node is None or not node.typed():
                return None
            node = node.items if part.isdigit() else node.keys.get(part)
        return node if node is not None and node.typed() else None

    def item(self) -> "Reads":
        self.items = self.items or Reads()
        return self.items

    def typed(self) -> bool:
        """Read by keys only (a struct) or by item only (a list); anything else is a value read whole."""
        return not self.whole and not (self.keys and self.items) and bool(self.keys or self.items)

    def struct(self) -> bool:
        return self.typed() and self.items is None

    def plain(self) -> bool:
        """Every key below is a plain attribute name (a struct field msgspec and the generated code can name)."""
        return all(_plain(k) and child.plain() for k, child in self.keys.items()) and (
            self.items is None or self.items.plain())


def _plain(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_")


# the Python class msgspec decodes each plain scalar into (a JSON integer is accepted as a Float, as the dict path does)
LEAF_TYPES: dict[str, type] = {"String": str, "ID": str, "Int": int, "Boolean": bool, "Float": float}


def _type_of(node: Reads, name: str, counter: list[int], optional: bool = True) -> Any:
    if not node.typed():
        leaf = node.leaf()
        return Optional[LEAF_TYPES[leaf]] if leaf is not None else Any
    if node.items is not None:
        kind: Any = list[_type_of(node.items, name, counter, optional=False)]  # type: ignore[misc]
    else:
        counter[0] += 1
        kind = msgspec.defstruct(f"{name}_{counter[0]}", [(key, _type_of(child, name, counter), None)
                                                         for key, child in node.keys.items()], gc=False)
    return Optional[kind] if optional else kind


class TypedSelection:
    """One selection's typed reading: a v2 object or list page decoded into structs and completed at once."""

    def __init__(self, name: str, reads: Reads, complete: Callable[[Any], Any], slow: type[Exception]) -> None:
        self.name = name
        self.complete = complete
        self.slow = slow
        self.reads = reads
        self.value_type = _type_of(reads, name, [0], optional=False)
        self._decoders: dict[tuple[Any, ...], msgspec.json.Decoder] = {}

    def _page(self, list_key: str, block: str, more: str, cursor: str, paginated: bool) -> msgspec.json.Decoder:
        key = (list_key, block, more, cursor, paginated)
        decoder = self._decoders.get(key)
        if decoder is None:
            if paginated:  # v2.json: the block is required, a boolean flag and a string or null cursor
                pagination = msgspec.defstruct(f"{self.name}_pagination", [(more, bool), (cursor, Optional[str])],
                                               gc=False)
                block_field: tuple[Any, ...] = (block, pagination)
            else:
                block_field = (block, Any, None)
            page = msgspec.defstruct(f"{self.name}_page", [(list_key, self.value_type), block_field], gc=False)
            decoder = self._decoders[key] = msgspec.json.Decoder(page)
        return decoder

    def read_page(self, body: bytes, list_key: str, block: str, more: str, cursor: str,
                  paginated: bool) -> orjson.Fragment | None:
        """A v2 list answered by its only page, completed and serialised; None: read it as dicts (a body that is
        not such a page, more pages to follow, or a value only the dict path answers)."""
        if not (_plain(list_key) and _plain(block) and _plain(more) and _plain(cursor)) or more == cursor:
            return None
        try:
            page = self._page(list_key, block, more, cursor, paginated).decode(body)
            if paginated and getattr(getattr(page, block), more):
                return None
            return orjson.Fragment(orjson.dumps(self.complete(getattr(page, list_key))))
        except (msgspec.DecodeError, orjson.JSONEncodeError, self.slow):
            return None

    def read_object(self, body: bytes) -> orjson.Fragment | None:
        decoder = self._decoders.get(())
        if decoder is None:
            decoder = self._decoders[()] = msgspec.json.Decoder(self.value_type)
        try:
            return orjson.Fragment(orjson.dumps(self.complete(decoder.decode(body))))
        except (msgspec.DecodeError, orjson.JSONEncodeError, self.slow):
            return None
