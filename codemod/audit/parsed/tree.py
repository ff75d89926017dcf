"""The values of string expressions (text with holes mapped back to the source), the walk every language
shares, and the evaluator that substitutes variables; each language's node types are in its `lang_*` module."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator

from mappings.index import index

HOLE_TEXT = "{}"
MAX_DEPTH = 12  # variable resolution depth (a = b + "/x"; b = c ...)


@dataclass(frozen=True)
class Part:
    text: str
    offset: int | None  # byte offset in the source of text[0] when the text is literally there
    param: tuple[int, str] | None = None  # (function node id, parameter) for a hole that is a parameter
    var: str | None = None  # for a hole: the variable it stands for, when this file does not define it


Value = list[Part]


def text_of(value: Value) -> str:
    return "".join(p.text for p in value)


def hole(param: tuple[int, str] | None = None) -> Value:
    return [Part(HOLE_TEXT, None, param)]


@dataclass
class StringExpr:
    node: object
    value: Value
    callee: str | None  # the call this expression is an argument of (last name: `rp::http`, `api`, `Invoke-Rp`)
    call_node: object | None
    function: object | None  # enclosing function node
    assigned_to: str | None  # the variable this expression is assigned to


@dataclass
class Wrapper:
    """A function that sends one of its parameters, after a base, as the request path."""

    name: str
    kind: str  # "v1" | "v2"
    param: str  # the parameter holding the path ("2" for bash `$2`, "path" elsewhere)
    index: int  # its position among the positional arguments (0-based), -1 when unknown
    line: int = 0  # the line that joins the base and the path
    base: str | None = None  # the variable holding the base, when the base is one
    method: str | None = None  # the method its request line always sends (curl without -X: GET), if fixed


@dataclass
class ParsedFile:
    text: str
    source: bytes
    language: str
    comments: list[tuple[int, int]] = field(default_factory=list)  # byte spans
    exprs: list[StringExpr] = field(default_factory=list)
    symbols: dict[str, list[tuple[object, object | None]]] = field(default_factory=dict)  # name -> (value node, function)
    functions: dict[int, tuple[str, list[str]]] = field(default_factory=dict)  # node id -> (name, params)
    calls: list[tuple[str, object, list[object], dict[str, object]]] = field(default_factory=list)
    property_refs: list[tuple[str, int]] = field(default_factory=list)
    parents: dict[int, int | None] = field(default_factory=dict)  # function node id -> enclosing function node id
    keys: list[tuple[str, int]] = field(default_factory=list)  # PowerShell hashtable keys (`@{ imageName = ... }`)
    types: list[tuple[int, int]] = field(default_factory=list)  # TypeScript type annotations and declarations
    error_reads: list[tuple[str, int]] = field(default_factory=list)  # v1 error-body keys read (name, byte offset)


ERROR_READ_NODES = frozenset({"as_expression", "member_expression", "member_access", "field_declaration"})


def error_reads(w: "Walker", node) -> list[tuple[str, int]]:
    """Reads of the v1 error body's `message`/`error` in forms that can only be an answer body:
    `(await res.json()) as { message?: string }`, `(await res.json()).message`,
    `(... | ConvertFrom-Json).message`, a Go struct field tagged json:"message". The keys are
    `v1_error_keys_read` in mappings (the rewrite's Q29 reads the same list)."""
    error_keys = index().error_keys
    t = node.type
    out = []
    if t == "as_expression" and ".json(" in w.t(node):
        stack = [c for c in node.named_children if c.type in ("object_type", "type_annotation")]
        while stack:
            n = stack.pop()
            if n.type == "property_signature":
                name = n.child_by_field_name("name")
                if name is not None and w.t(name) in error_keys:
                    out.append((w.t(name), name.start_byte))
            stack.extend(n.named_children)
    elif t == "member_expression":
        prop, obj = node.child_by_field_name("property"), node.child_by_field_name("object")
        if prop is not None and obj is not None and w.t(prop) in error_keys \
                and (".json(" in w.t(obj) or "JSON.parse(" in w.t(obj)):
            out.append((w.t(prop), prop.start_byte))
    elif t == "member_access":
        kids = node.named_children
        if kids and kids[-1].type == "member_name" and w.t(kids[-1]).lower() in error_keys \
                and "convertfrom-json" in w.t(node).lower():
            out.append((w.t(kids[-1]).lower(), kids[-1].start_byte))
    elif t == "field_declaration":
        for c in node.named_children:
            if c.type == "raw_string_literal":
                m = re.search(r'json:"(' + "|".join(map(re.escape, error_keys)) + r')[",]', w.t(c))
                if m:
                    out.append((m.group(1), c.start_byte + m.start(1)))
    return out


TYPE_NODES = frozenset({"type_annotation", "object_type", "interface_declaration", "type_alias_declaration",
                        "type_arguments"})


class Walker:
    """Per-language knowledge of node types; one walk fills a ParsedFile."""

    comment_types = ("comment",)
    string_types: tuple[str, ...] = ()
    function_types: tuple[str, ...] = ()

    def __init__(self, parsed: ParsedFile) -> None:
        self.p = parsed
        self.src = parsed.source

    def t(self, node) -> str:
        return self.src[node.start_byte:node.end_byte].decode("utf-8", "replace")

    # hooks ------------------------------------------------------------
    def is_string_expr(self, node) -> bool:
        return node.type in self.string_types

    def function_info(self, node) -> tuple[str, list[str]] | None:
        return None

    def assignment(self, node) -> Iterator[tuple[str, object]]:
        return iter(())

    def call_info(self, node) -> tuple[str, list[object], dict[str, object]] | None:
        return None

    def evaluate(self, node, ev: "Evaluator") -> Value:
        return hole()

    # the walk -----------------------------------------------------------
    def walk(self, root) -> None:
        stack = [(root, None, None, None, False)]
        while stack:
            node, func, call, assigned, inside = stack.pop()
            ntype = node.type
            if ntype in self.comment_types:
                self.p.comments.append((node.start_byte, node.end_byte))
                continue
            if ntype in TYPE_NODES:
                self.p.types.append((node.start_byte, node.end_byte))
            if ntype in ERROR_READ_NODES:
                self.p.error_reads.extend(error_reads(self, node))
            info = self.function_info(node) if ntype in self.function_types else None
            if info is not None:
                self.p.functions[node.id] = info
                self.p.parents[node.id] = func.id if func is not None else None
                func = node
            for name, value in self.assignment(node):
                # a field (`c.baseURL = ...`, `baseURL: DefaultBaseURL`, `this.base = ...`) belongs to no function
                if name.startswith("."):
                    self.p.symbols.setdefault(name[1:], []).append((value, None))
                else:
                    self.p.symbols.setdefault(name, []).append((value, func))
            if ntype == "hash_entry":
                key = node.named_children[0] if node.named_children else None
                if key is not None:
                    self.p.keys.append((self.t(key).strip().strip("'\""), key.start_byte))
            ci = self.call_info(node)
            if ci is not None:
                self.p.calls.append((ci[0], node, ci[1], ci[2]))
                if not self.is_string_expr(node):  # `c.Patch(fmt.Sprintf(...))`: the call is Patch's
                    call = (ci[0], node)
            own_assigned = assigned
            for name, value in self.assignment(node):
                own_assigned = (name.lstrip("."), value)
            if not inside and self.is_string_expr(node):
                target = own_assigned[0] if own_assigned and own_assigned[1].id == node.id else None
                self.p.exprs.append(StringExpr(node, [], call[0] if call else None, call[1] if call else None,
                                               func, target))
                inside = True
            for child in reversed(node.children):
                stack.append((child, func, call, own_assigned, inside))


class Evaluator:
    def __init__(self, walker: Walker, parsed: ParsedFile) -> None:
        self.w = walker
        self.p = parsed
        self.depth = 0
        self.function: object | None = None
        self.cache: dict[int, Value] = {}

    def value(self, node, nested: bool = False) -> Value:
        if node is None:
            return hole()
        return self.w.evaluate(node, self)

    def _chain(self) -> list[int]:
        chain = []
        fid = self.function.id if self.function is not None else None
        while fid is not None:
            chain.append(fid)
            fid = self.p.parents.get(fid)
        return chain

    def variable(self, name: str, ref_node) -> Value:
        chain = self._chain()
        # a parameter of the enclosing function (or of a function it is nested in): a hole that
        # remembers which parameter it is
        for fid in chain:
            if name in self.p.functions[fid][1]:
                return hole((fid, name))
        candidates = self.p.symbols.get(name)
        if not candidates:
            return [Part(HOLE_TEXT, None, None, name)]
        if self.depth > MAX_DEPTH:
            return hole()
        self.depth += 1
        try:
            return self._resolve(name, ref_node, candidates, chain)
        finally:
            self.depth -= 1

    def _resolve(self, name, ref_node, candidates, chain) -> Value:
        best: Value | None = None
        for value_node, _where in candidates:
            if value_node.start_byte <= ref_node.start_byte < value_node.end_byte:
                continue  # x = x + "..." refers to the earlier x
            if _where is not None and _where.id not in chain:
                continue  # a local of another function
            saved = self.function
            self.function = _where  # an assignment in a function reads that function's parameters
            try:
                value = self.value(value_node, nested=True)
            finally:
                self.function = saved
            value = [Part(p.text, None, p.param, p.var) for p in value]  # not literally at the reference
            text = text_of(value)
            if best is None or (text_of(best) == HOLE_TEXT and text != HOLE_TEXT) or \
                    ("://" in text and "://" not in text_of(best)):
                best = value
        return best or hole()


ARG_REF_TYPES = {"identifier", "selector_expression", "member_expression", "variable"}


def argument_exprs(parsed: ParsedFile) -> None:
    """A variable passed to a call (`fetch(GRAPHQL_ENDPOINT)`, `c.do(ctx, "POST", path)`, `-Uri $uri`) is a
    string expression of the call too: the call line is where the request is made."""
    known = {e.node.start_byte for e in parsed.exprs}
    for name, node, args, named in parsed.calls:
        for arg in list(args) + list(named.values()):
            if arg.type not in ARG_REF_TYPES or arg.start_byte in known:
                continue
            func = node.parent
            while func is not None and func.id not in parsed.functions:
                func = func.parent
            parsed.exprs.append(StringExpr(arg, [], name, node, func, None))
            known.add(arg.start_byte)


REF_TYPES = {"identifier", "variable_name", "variable", "field_identifier", "property_identifier"}


def references(walker: Walker, node) -> set[str]:
    """Variable names a string expression reads (`"$path"` too)."""
    names: set[str] = set()
    stack = [node]
    refs = []
    while stack:
        n = stack.pop()
        if n.type in REF_TYPES:
            refs.append(walker.t(n).lstrip("$").split(":")[-1])
        stack.extend(n.children)
    names.update(refs)
    return names
