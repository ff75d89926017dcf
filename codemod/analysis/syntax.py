"""Syntax index of one module: parents, scopes, calls, assignments, imports; literal pieces and their offsets.

`Indexer.walk` reads the libcst node dataclasses' fields directly (libcst's own
visit rebuilds every node on the way back up, which made this the costliest
step of a run); positions come from `PositionProvider` without
`MetadataWrapper` (which adds a full extra visit).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from codemod.knowledge import HOLE


@dataclass(frozen=True)
class Piece:
    text: str | None  # None: a hole
    node: cst.CSTNode | None = None  # editable literal holding `text`
    offset: int = 0
    param: str | None = None  # the hole is this function parameter


def literal_value(node: cst.SimpleString) -> tuple[str | None, bool]:
    """(value, editable): editable when source offsets equal value offsets."""
    try:
        value = node.evaluated_value
    except Exception:
        return None, False
    if not isinstance(value, str):
        return None, False
    raw = node.value
    prefix = node.prefix
    quote = node.quote
    inner = raw[len(prefix) + len(quote): len(raw) - len(quote)]
    return value, inner == value


def flatten(pieces: list[Piece]) -> str:
    return "".join(HOLE if p.text is None else p.text for p in pieces)


def span_origin(pieces: list[Piece], start: int, end: int) -> tuple[cst.CSTNode, int, int] | None:
    """The literal node and offsets holding flat[start:end], if one literal holds all of it."""
    pos = 0
    for piece in pieces:
        length = 1 if piece.text is None else len(piece.text)
        if pos <= start and end <= pos + length:
            if piece.text is None or piece.node is None:
                return None
            return piece.node, piece.offset + start - pos, piece.offset + end - pos
        pos += length
    return None


def slice_pieces(pieces: list[Piece], end: int) -> list[Piece]:
    out, pos = [], 0
    for piece in pieces:
        length = 1 if piece.text is None else len(piece.text)
        if pos + length <= end:
            out.append(piece)
        elif pos < end and piece.text is not None:
            out.append(Piece(piece.text[: end - pos], piece.node, piece.offset))
        pos += length
    return out


def pieces_from(pieces: list[Piece], start: int) -> list[Piece]:
    """The pieces of flat[start:], a cut literal keeping its node and offset (still editable)."""
    out, pos = [], 0
    for piece in pieces:
        length = 1 if piece.text is None else len(piece.text)
        if pos >= start:
            out.append(piece)
        elif pos + length > start and piece.text is not None:
            cut = start - pos
            out.append(Piece(piece.text[cut:], piece.node, piece.offset + cut))
        pos += length
    return out


def dotted(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def str_of(node: cst.CSTNode | None) -> str | None:
    if isinstance(node, cst.SimpleString):
        value, _ = literal_value(node)
        return value
    return None


# ---------------------------------------------------------------------- index


_NO_DESCENT = {
    "leading_lines", "lines_after_decorators", "lpar", "rpar", "header", "footer", "comma", "semicolon",
    "trailing_whitespace", "equal", "colon", "dot", "operator", "newline", "asynchronous",
}
_WHITESPACE = (cst.BaseParenthesizableWhitespace, cst.EmptyLine, cst.TrailingWhitespace, cst.Newline, cst.Comment)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls: type) -> tuple[str, ...]:
    """Fields of a node class that can hold code (whitespace and punctuation left out), cached."""
    names = _CHILD_FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls)
                      if f.name not in _NO_DESCENT and not f.name.startswith("whitespace"))
        _CHILD_FIELDS[cls] = names
    return names


def positions(module: cst.Module):
    """Start/end of every node. The provider's own code generation only: going through
    MetadataWrapper adds a full visit of the module that the positions do not need."""
    try:
        provider = PositionProvider()
        provider._gen_impl(module)  # noqa: SLF001 - libcst's documented provider, minus the wrapper
        return provider._computed
    except Exception:  # a libcst without these internals: the public, slower way
        return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)


class Indexer(cst.CSTVisitor):
    """One walk: parents, calls, functions, classes, assignments per scope.

    `walk` reads the node dataclasses' fields directly: libcst's own visit
    rebuilds every node on the way back up, which made this walk the
    costliest step of a run.
    """

    def walk(self, node: cst.CSTNode) -> None:
        self.on_visit(node)
        for name in _child_fields(type(node)):
            value = getattr(node, name)
            if isinstance(value, cst.CSTNode):
                if not isinstance(value, _WHITESPACE):
                    self.walk(value)
            elif type(value) in (list, tuple):
                for item in value:
                    if isinstance(item, cst.CSTNode) and not isinstance(item, _WHITESPACE):
                        self.walk(item)
        self.on_leave(node)

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self) -> None:
        self.parent: dict[int, cst.CSTNode] = {}
        self.stack: list[cst.CSTNode] = []
        self.calls: list[cst.Call] = []
        self.subscripts: list[cst.Subscript] = []
        self.attributes: dict[str, list[cst.Attribute]] = {}
        self.dicts: list[cst.Dict] = []
        self.strings: list[cst.CSTNode] = []
        self.functions: dict[str, list[cst.FunctionDef]] = {}
        self.scope_of: dict[int, cst.CSTNode | None] = {}  # function node or None (module)
        self.scope_stack: list[cst.CSTNode] = []
        self.class_stack: list[cst.ClassDef] = []
        self.class_of_fn: dict[int, cst.ClassDef] = {}
        self.classes: dict[str, cst.ClassDef] = {}
        self.assigns: dict[int | None, dict[str, list[tuple[cst.CSTNode, cst.CSTNode]]]] = {}
        self.class_attrs: dict[int, dict[str, list[cst.CSTNode]]] = {}
        self.self_attrs: dict[int, dict[str, list[tuple[cst.CSTNode, cst.FunctionDef]]]] = {}
        self.names: dict[int | None, dict[str, list[cst.Name]]] = {}
        self.imports: dict[str, str] = {}  # local name -> dotted origin

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.stack:
            self.parent[id(node)] = self.stack[-1]
        self.stack.append(node)
        scope = self.scope_stack[-1] if self.scope_stack else None
        self.scope_of[id(node)] = scope
        key = id(scope) if scope is not None else None
        if isinstance(node, cst.FunctionDef):
            self.functions.setdefault(node.name.value, []).append(node)
            if self.class_stack and self.parent_is_class_body(node):
                self.class_of_fn[id(node)] = self.class_stack[-1]
            self.scope_stack.append(node)
        elif isinstance(node, cst.ClassDef):
            self.classes[node.name.value] = node
            self.class_stack.append(node)
            self.class_attrs[id(node)] = {}
            self.self_attrs[id(node)] = {}
        elif isinstance(node, cst.Call):
            self.calls.append(node)
        elif isinstance(node, cst.Subscript):
            self.subscripts.append(node)
        elif isinstance(node, cst.Attribute):
            self.attributes.setdefault(node.attr.value, []).append(node)
        elif isinstance(node, cst.Dict):
            self.dicts.append(node)
        elif isinstance(node, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
            parent = self.stack[-2] if len(self.stack) > 1 else None
            if not isinstance(parent, (cst.ConcatenatedString, cst.FormattedString)):
                self.strings.append(node)
        elif isinstance(node, cst.Name):
            self.names.setdefault(key, {}).setdefault(node.value, []).append(node)
        elif isinstance(node, (cst.Assign, cst.AnnAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            value = node.value
            if value is not None:
                for target in targets:
                    self._record_target(target, value, node, scope, key)
        elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
            # `url += "/start"`: recorded as a definition whose value is the statement itself (see Strings)
            self.assigns.setdefault(key, {}).setdefault(node.target.value, []).append((node, node))
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            self._record_target(node.asname.name, node.item, node, scope, key)
        elif isinstance(node, cst.Import):
            for alias in node.names:
                name = dotted(alias.name)
                if name:
                    local = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else name.split(".")[0]
                    self.imports[local] = name if alias.asname else local
        elif isinstance(node, cst.ImportFrom) and node.module is not None and not isinstance(node.names, cst.ImportStar):
            module = dotted(node.module)
            for alias in node.names:
                if isinstance(alias.name, cst.Name):
                    local = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else alias.name.value
                    self.imports[local] = f"{module}.{alias.name.value}"
        return True

    def parent_is_class_body(self, node: cst.CSTNode) -> bool:
        # FunctionDef directly in a class body: stack[-2] is IndentedBlock, stack[-3] is ClassDef
        return len(self.stack) >= 3 and isinstance(self.stack[-3], cst.ClassDef)

    def _record_target(self, target: cst.CSTNode, value: cst.CSTNode, stmt: cst.CSTNode, scope, key) -> None:
        if isinstance(target, cst.Name):
            if isinstance(scope, cst.FunctionDef) or scope is None:
                in_class_body = (
                    self.class_stack
                    and len(self.stack) >= 4
                    and isinstance(self.stack[-4], cst.ClassDef)
                    and self.scope_of.get(id(self.stack[-4])) is scope
                )
                if in_class_body and (scope is None or self.class_of_fn.get(id(scope)) is not self.class_stack[-1]):
                    self.class_attrs[id(self.class_stack[-1])].setdefault(target.value, []).append(value)
                    return
            self.assigns.setdefault(key, {}).setdefault(target.value, []).append((value, stmt))
        elif (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
            and isinstance(scope, cst.FunctionDef)
        ):
            cls = self.class_of_fn.get(id(scope))
            if cls is not None:
                self.self_attrs[id(cls)].setdefault(target.attr.value, []).append((value, scope))

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()
        if isinstance(original_node, cst.FunctionDef):
            self.scope_stack.pop()
        elif isinstance(original_node, cst.ClassDef):
            self.class_stack.pop()

