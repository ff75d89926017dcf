"""Parser-backed scanning for JavaScript/TypeScript, Go, shell (bash/sh) and PowerShell.

Each file is parsed with tree-sitter (the `tree-sitter` package and the
per-language grammar wheels). One walk of the tree collects:

- comments (blanked out of the view the field scan reads: a comment is never a finding);
- the *string expressions* of the file: string literals, template literals,
  `+` concatenations, bash words and strings with expansions, PowerShell
  expandable strings, Go `fmt.Sprintf` formats;
- assignments (`const BASE = ...`, `BASE=...`, `$Base = ...`, `c.baseURL = ...`,
  `baseURL: DefaultBaseURL` in a Go composite literal), so a variable in a
  string expression is replaced by what it holds;
- functions and their parameters, so a *wrapper* is recognised: a function
  whose URL is a base followed by one of its own parameters
  (`rp::http() { curl "${RP_BASE}${2}" }`, `api(path) { fetch(`${BASE}${path}`) }`);
- calls and their arguments, so `rp::http GET "/pods/$id"` is a call of the
  v1 route through that wrapper, also when the wrapper lives in another file
  (the engine joins wrappers across files, see `engine.audit_paths`).

Every string expression is evaluated to a text in which the unknown parts are
holes (`{}`), with literal parts mapped back to their place in the source; the
route and host matching of `scan_text` then runs on that text. A value built
in a variable (`path="/pods/$1"`) is reported where it is built and where it
is sent (`rp::http DELETE "$path"`): both lines are part of the call.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Callable, Iterator

from codemod.audit import graphql
from codemod.audit.catalogue import Catalogue, RouteInfo, catalogue
from codemod.audit.model import RawFinding, Signals
from mappings.index import index

HOLE_TEXT = "{}"
METHOD_WORDS = ("GET", "POST", "PUT", "PATCH", "DELETE")
MAX_DEPTH = 12  # variable resolution depth (a = b + "/x"; b = c ...)


# ------------------------------------------------------------------ grammars


@dataclass(frozen=True)
class Grammar:
    name: str  # language label in the report
    loader: Callable[[], object]


def _load(module: str, attr: str = "language") -> Callable[[], object]:
    def load() -> object:
        mod = __import__(module)
        return getattr(mod, attr)()
    return load


GRAMMARS: dict[str, Grammar] = {
    ".js": Grammar("javascript", _load("tree_sitter_javascript")),
    ".jsx": Grammar("javascript", _load("tree_sitter_javascript")),
    ".mjs": Grammar("javascript", _load("tree_sitter_javascript")),
    ".cjs": Grammar("javascript", _load("tree_sitter_javascript")),
    ".ts": Grammar("typescript", _load("tree_sitter_typescript", "language_typescript")),
    ".mts": Grammar("typescript", _load("tree_sitter_typescript", "language_typescript")),
    ".cts": Grammar("typescript", _load("tree_sitter_typescript", "language_typescript")),
    ".tsx": Grammar("typescript", _load("tree_sitter_typescript", "language_tsx")),
    ".go": Grammar("go", _load("tree_sitter_go")),
    ".sh": Grammar("shell", _load("tree_sitter_bash")),
    ".bash": Grammar("shell", _load("tree_sitter_bash")),
    ".ksh": Grammar("shell", _load("tree_sitter_bash")),  # the bash grammar reads ksh and zsh scripts' strings,
    ".zsh": Grammar("shell", _load("tree_sitter_bash")),  # expansions and calls (error-tolerant elsewhere)
    ".ps1": Grammar("powershell", _load("tree_sitter_powershell")),
    ".psm1": Grammar("powershell", _load("tree_sitter_powershell")),
}
SUFFIXES: tuple[str, ...] = tuple(GRAMMARS)


def grammar_for(path: str) -> Grammar | None:
    return GRAMMARS.get(PurePosixPath(path.replace("\\", "/")).suffix.lower())


@lru_cache(maxsize=None)
def _parser(suffix: str):
    import tree_sitter

    return tree_sitter.Parser(tree_sitter.Language(GRAMMARS[suffix].loader()))


def available() -> bool:
    """True when tree-sitter and every grammar wheel import (they are dependencies; this guards a broken install)."""
    try:
        for suffix in SUFFIXES:
            _parser(suffix)
    except Exception:
        return False
    return True


# ------------------------------------------------------------------ values


@dataclass(frozen=True)
class Part:
    text: str
    offset: int | None  # byte offset in the source of text[0] when the text is literally there
    param: tuple[int, str] | None = None  # (function node id, parameter) for a hole that is a parameter
    var: str | None = None  # for a hole: the variable it stands for, when this file does not define it


Value = list[Part]


def _text(value: Value) -> str:
    return "".join(p.text for p in value)


def _hole(param: tuple[int, str] | None = None) -> Value:
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


# ------------------------------------------------------------------ language walkers


ERROR_READ_NODES = frozenset({"as_expression", "member_expression", "member_access", "field_declaration"})


def _error_reads(w: "_Walker", node) -> list[tuple[str, int]]:
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
        if prop is not None and obj is not None and w.t(prop) in error_keys and ".json(" in w.t(obj):
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


class _Walker:
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

    def evaluate(self, node, ev: "_Evaluator") -> Value:
        return _hole()

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
                self.p.error_reads.extend(_error_reads(self, node))
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


class _JS(_Walker):
    string_types = ("string", "template_string", "binary_expression")
    function_types = ("function_declaration", "function_expression", "arrow_function", "method_definition",
                      "generator_function_declaration")

    def is_string_expr(self, node) -> bool:
        if node.type == "binary_expression":
            op = node.child_by_field_name("operator")
            return op is not None and self.t(op) in ("+", "??", "||")
        return node.type in ("string", "template_string")

    def function_info(self, node):
        name_node = node.child_by_field_name("name")
        name = self.t(name_node) if name_node is not None else ""
        if not name and node.parent is not None and node.parent.type == "variable_declarator":
            nn = node.parent.child_by_field_name("name")
            name = self.t(nn) if nn is not None else ""
        params = []
        plist = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        if plist is not None:
            if plist.type == "identifier":
                params.append(self.t(plist))
            for c in plist.named_children:
                ident = c if c.type == "identifier" else (c.child_by_field_name("pattern") or c.child_by_field_name("left"))
                if ident is not None and ident.type == "identifier":
                    params.append(self.t(ident))
        return name, params

    def assignment(self, node):
        if node.type == "variable_declarator":
            n, v = node.child_by_field_name("name"), node.child_by_field_name("value")
            if n is not None and v is not None and n.type == "identifier":
                yield self.t(n), v
        elif node.type == "assignment_expression":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None:
                if left.type == "member_expression":
                    prop = left.child_by_field_name("property")
                    if prop is not None:
                        yield "." + self.t(prop), right
                elif left.type == "identifier":
                    yield self.t(left), right
        elif node.type in ("public_field_definition", "field_definition"):
            n, v = node.child_by_field_name("name") or node.child_by_field_name("property"), node.child_by_field_name("value")
            if n is not None and v is not None:
                yield "." + self.t(n), v

    def call_info(self, node):
        if node.type not in ("call_expression", "new_expression"):
            return None
        fn = node.child_by_field_name("function") or node.child_by_field_name("constructor")
        args = node.child_by_field_name("arguments")
        if fn is None:
            return None
        name = self.t(fn.child_by_field_name("property")) if fn.type == "member_expression" and \
            fn.child_by_field_name("property") is not None else self.t(fn)
        return name, list(args.named_children) if args is not None else [], {}

    def evaluate(self, node, ev):
        t = node.type
        if t == "string":
            out: Value = []
            for c in node.named_children:
                if c.type == "string_fragment":
                    out.append(Part(self.t(c), c.start_byte))
                elif c.type == "escape_sequence":
                    out.append(Part(bytes(self.t(c), "utf-8").decode("unicode_escape", "replace"), None))
            return out
        if t == "template_string":
            out = []
            for c in node.named_children:
                if c.type == "string_fragment":
                    out.append(Part(self.t(c), c.start_byte))
                elif c.type == "template_substitution":
                    inner = c.named_children[0] if c.named_children else None
                    out.extend(ev.value(inner, nested=True) if inner is not None else _hole())
                elif c.type == "escape_sequence":
                    out.append(Part(self.t(c)[1:], None))
            return out
        if t == "binary_expression":
            op = self.t(node.child_by_field_name("operator"))
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if op == "+":
                return ev.value(left, nested=True) + ev.value(right, nested=True)
            if op in ("??", "||"):
                lv = ev.value(left, nested=True)
                return lv if _text(lv) != HOLE_TEXT else ev.value(right, nested=True)
            return _hole()
        if t in ("identifier", "shorthand_property_identifier"):
            return ev.variable(self.t(node), node)
        if t == "member_expression":
            prop = node.child_by_field_name("property")
            obj = node.child_by_field_name("object")
            if prop is not None and obj is not None and self.t(obj) in ("this", "self", "options", "opts", "config"):
                return ev.variable(self.t(prop), node)
            if prop is not None and self.t(obj).endswith("env"):
                return ev.variable(self.t(prop), node)
            return _hole()
        if t in ("parenthesized_expression", "as_expression", "non_null_expression", "await_expression"):
            return ev.value(node.named_children[0], nested=True) if node.named_children else _hole()
        if t == "call_expression":
            # `withQuery(path, query)`, `encodeURI(path)`: a helper of the path keeps it a parameter
            args = node.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            if first is not None and first.type == "identifier":
                value = ev.value(first, nested=True)
                if len(value) == 1 and value[0].param is not None:
                    return value
        return _hole()


class _Go(_Walker):
    comment_types = ("comment", "import_declaration")  # import paths are not API strings
    string_types = ("interpreted_string_literal", "raw_string_literal", "binary_expression", "call_expression")
    function_types = ("function_declaration", "method_declaration", "func_literal")

    def is_string_expr(self, node) -> bool:
        if node.type == "binary_expression":
            op = node.child_by_field_name("operator")
            return op is not None and self.t(op) == "+"
        if node.type == "call_expression":
            fn = node.child_by_field_name("function")
            return fn is not None and self.t(fn) in ("fmt.Sprintf", "path.Join", "url.JoinPath")
        if node.type == "raw_string_literal" and node.parent is not None and node.parent.type == "field_declaration":
            return False  # a struct tag
        return node.type in ("interpreted_string_literal", "raw_string_literal")

    def function_info(self, node):
        name_node = node.child_by_field_name("name")
        params = []
        plist = node.child_by_field_name("parameters")
        if plist is not None:
            for decl in plist.named_children:
                for c in decl.named_children:
                    if c.type == "identifier":
                        params.append(self.t(c))
        return (self.t(name_node) if name_node is not None else ""), params

    def assignment(self, node):
        t = node.type
        if t in ("const_spec", "var_spec"):
            names = [c for c in node.children_by_field_name("name")]
            value = node.child_by_field_name("value")
            if value is not None:
                for n, v in zip(names, value.named_children):
                    yield self.t(n), v
        elif t in ("short_var_declaration", "assignment_statement"):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None:
                for n, v in zip(left.named_children, right.named_children):
                    if n.type == "selector_expression":
                        fld = n.child_by_field_name("field")
                        if fld is not None:
                            yield "." + self.t(fld), v
                    elif n.type == "identifier":
                        yield self.t(n), v
        elif t == "keyed_element":
            kids = node.named_children
            if len(kids) == 2:
                key = kids[0].named_children[0] if kids[0].named_children else kids[0]
                if key.type in ("field_identifier", "identifier"):
                    yield "." + self.t(key), (kids[1].named_children[0] if kids[1].named_children else kids[1])

    def call_info(self, node):
        if node.type != "call_expression":
            return None
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if fn is None:
            return None
        name = self.t(fn.child_by_field_name("field")) if fn.type == "selector_expression" else self.t(fn)
        return name, list(args.named_children) if args is not None else [], {}

    def evaluate(self, node, ev):
        t = node.type
        if t == "interpreted_string_literal":
            out: Value = []
            for c in node.named_children:
                if c.type == "interpreted_string_literal_content":
                    out.append(Part(self.t(c), c.start_byte))
            return out
        if t == "raw_string_literal":
            return [Part(self.t(c), c.start_byte) for c in node.named_children if c.type == "raw_string_literal_content"]
        if t == "binary_expression":
            if self.t(node.child_by_field_name("operator")) != "+":
                return _hole()
            return ev.value(node.child_by_field_name("left"), nested=True) + \
                ev.value(node.child_by_field_name("right"), nested=True)
        if t == "call_expression":
            fn = self.t(node.child_by_field_name("function"))
            args = node.child_by_field_name("arguments").named_children
            if fn == "fmt.Sprintf" and args:
                fmt_value = ev.value(args[0], nested=True)
                rest = [ev.value(a, nested=True) for a in args[1:]]
                return _format(fmt_value, rest)
            if fn in ("path.Join", "url.JoinPath") and args:
                out = []
                for i, a in enumerate(args):
                    if i:
                        out.append(Part("/", None))
                    out.extend(ev.value(a, nested=True))
                return out
            return _hole()
        if t == "identifier":
            return ev.variable(self.t(node), node)
        if t == "selector_expression":
            fld = node.child_by_field_name("field")
            return ev.variable(self.t(fld), node) if fld is not None else _hole()
        if t == "parenthesized_expression" and node.named_children:
            return ev.value(node.named_children[0], nested=True)
        return _hole()


FORMAT_VERB = re.compile(r"%[-+# 0]*\d*(?:\.\d+)?[svdqx]")


def _format(fmt_value: Value, args: list[Value]) -> Value:
    out: Value = []
    index = 0
    for part in fmt_value:
        if part.offset is None and part.param is None and part.text == HOLE_TEXT:
            out.append(part)
            continue
        pos = 0
        for m in FORMAT_VERB.finditer(part.text):
            if m.start() > pos:
                out.append(Part(part.text[pos:m.start()], None if part.offset is None else part.offset + pos))
            out.extend(args[index] if index < len(args) else _hole())
            index += 1
            pos = m.end()
        if pos < len(part.text):
            out.append(Part(part.text[pos:], None if part.offset is None else part.offset + pos))
    return out


class _Bash(_Walker):
    function_types = ("function_definition",)

    def is_string_expr(self, node) -> bool:
        t = node.type
        if t in ("string", "raw_string", "concatenation", "heredoc_body"):
            return True
        if t in ("expansion", "simple_expansion") and node.parent is not None \
                and node.parent.type in ("variable_assignment", "command"):
            return True  # RP=${RP:-https://...} unquoted
        if t == "word":
            parent = node.parent
            return parent is not None and parent.type in ("command", "variable_assignment", "concatenation") \
                and parent.type != "command_name"
        return False

    def function_info(self, node):
        name = node.child_by_field_name("name")
        return (self.t(name) if name is not None else ""), [str(i) for i in range(1, 10)]

    def assignment(self, node):
        if node.type == "variable_assignment":
            n, v = node.child_by_field_name("name"), node.child_by_field_name("value")
            if n is not None and v is not None:
                yield self.t(n), v
        elif node.type == "expansion" and ":=" in self.t(node)[:64]:
            # `: "${RUNPOD_API_BASE:=https://...}"` assigns the default when the variable is unset
            kids = node.named_children
            name = next((c for c in kids if c.type == "variable_name"), None)
            default = [c for c in kids if c is not name and c.type in ("word", "string", "raw_string", "concatenation")]
            if name is not None and default:
                yield self.t(name), default[0]

    def call_info(self, node):
        if node.type != "command":
            return None
        name = node.child_by_field_name("name")
        if name is None:
            return None
        args = [c for c in node.children_by_field_name("argument")]
        return self.t(name).strip(), args, {}

    def evaluate(self, node, ev):
        t = node.type
        if t == "word":
            return [Part(self.t(node), node.start_byte)]
        if t == "raw_string":
            return [Part(self.t(node)[1:-1], node.start_byte + 1)]
        if t == "heredoc_body" and not node.named_children:
            return [Part(self.t(node), node.start_byte)]
        if t in ("string", "concatenation", "heredoc_body"):
            out: Value = []
            for c in node.children:
                if c.type in ('"',):
                    continue
                if c.type in ("string_content", "word", "heredoc_content"):
                    out.append(Part(self.t(c), c.start_byte))
                elif c.type in ("simple_expansion", "expansion", "string", "raw_string", "command_substitution"):
                    out.extend(ev.value(c, nested=True))
                elif c.type == "number":
                    out.append(Part(self.t(c), c.start_byte))
                elif not c.is_named:
                    continue
                else:
                    out.extend(_hole())
            return out
        if t == "simple_expansion":
            name = node.named_children[0] if node.named_children else None
            return ev.variable(self.t(name), node) if name is not None else _hole()
        if t == "expansion":
            kids = node.named_children
            name = next((c for c in kids if c.type in ("variable_name", "special_variable_name")), None)
            if name is None:
                return _hole()
            default = [c for c in kids if c is not name and c.type in ("word", "string", "raw_string",
                                                                       "concatenation", "simple_expansion",
                                                                       "expansion")]
            ops = self.t(node)
            if default and re.match(r"\$\{[#!]?[\w@*]+:?[-=]", ops):
                # `${VAR:-https://...}` / `${VAR:=...}`: the default written here is the value in the code
                return ev.value(default[0], nested=True)
            return ev.variable(self.t(name), node)
        return _hole()


class _PowerShell(_Walker):
    function_types = ("function_statement",)

    def is_string_expr(self, node) -> bool:
        return node.type in ("expandable_string_literal", "verbatim_string_characters",
                             "expandable_here_string_literal", "verbatim_here_string_characters") or \
            (node.type == "additive_expression" and any(self.t(c) == "+" for c in node.children if not c.is_named))

    def function_info(self, node):
        name = next((c for c in node.named_children if c.type == "function_name"), None)
        params = []
        stack = list(node.named_children)
        while stack:
            c = stack.pop()
            if c.type == "script_parameter":
                v = next((x for x in c.named_children if x.type == "variable"), None)
                if v is not None:
                    params.append(self.t(v).lstrip("$"))
                continue
            if c.type in ("function_parameter_declaration", "parameter_list", "script_block", "param_block"):
                stack.extend(c.named_children)
        return (self.t(name) if name is not None else ""), params

    def assignment(self, node):
        if node.type == "assignment_expression":
            kids = node.named_children
            if len(kids) >= 3:
                left = self.t(kids[0]).strip()
                if left.startswith("$") and re.fullmatch(r"\$[\w:]+", left):
                    scoped = ":" in left and left[1:].split(":")[0].lower() in ("script", "global", "env")
                    yield ("." if scoped else "") + left[1:].split(":")[-1], kids[-1]
        elif node.type == "hash_entry":
            kids = node.named_children
            if len(kids) >= 2:
                yield self.t(kids[0]).strip().strip("'\""), kids[-1]

    def call_info(self, node):
        if node.type != "command":
            return None
        name = next((c for c in node.named_children if c.type == "command_name"), None)
        elements = next((c for c in node.named_children if c.type == "command_elements"), None)
        if name is None:
            return None
        positional, named = [], {}
        pending = None
        for c in elements.named_children if elements is not None else []:
            if c.type == "command_argument_sep":
                continue
            if c.type == "command_parameter":
                pending = self.t(c).lstrip("-").lower()
                continue
            while c.type in ("array_literal_expression", "unary_expression") and len(c.named_children) == 1:
                c = c.named_children[0]
            if pending is not None:
                named[pending] = c
                pending = None
            else:
                positional.append(c)
        return self.t(name), positional, named

    def evaluate(self, node, ev):
        t = node.type
        if t in ("string_literal", "unary_expression", "array_literal_expression", "range_expression",
                 "format_expression", "multiplicative_expression", "comparison_expression", "bitwise_expression",
                 "logical_expression", "pipeline_chain", "pipeline", "statement_list", "left_assignment_expression"):
            kids = node.named_children
            return ev.value(kids[0], nested=True) if len(kids) == 1 else _hole()
        if t == "additive_expression":
            out: Value = []
            for c in node.named_children:
                out.extend(ev.value(c, nested=True))
            return out
        if t in ("expandable_string_literal", "expandable_here_string_literal"):
            quote = 2 if t == "expandable_here_string_literal" else 1
            out = []
            pos = node.start_byte + quote
            end = node.end_byte - quote
            for c in node.named_children:
                if c.start_byte > pos:
                    out.append(Part(self.src[pos:c.start_byte].decode("utf-8", "replace"), pos))
                if c.type == "variable":
                    out.extend(ev.value(c, nested=True))
                else:
                    out.extend(_hole())
                pos = c.end_byte
            if end > pos:
                out.append(Part(self.src[pos:end].decode("utf-8", "replace"), pos))
            return out
        if t in ("verbatim_string_characters", "verbatim_here_string_characters"):
            q = 2 if t.startswith("verbatim_here") else 1
            return [Part(self.t(node)[q:-q], node.start_byte + q)]
        if t == "variable":
            name = self.t(node).lstrip("$").strip("{}").split(":")[-1]
            return ev.variable(name, node)
        if t == "if_statement":
            # `if ($env:X) { $env:X } else { "https://..." }`: the literal branch is the default
            for c in reversed(node.named_children):
                if c.type == "else_clause":
                    block = next((x for x in c.named_children if x.type == "statement_block"), None)
                    if block is not None and block.named_children:
                        return ev.value(block.named_children[0], nested=True)
            return _hole()
        if t == "generic_token":
            return [Part(self.t(node), node.start_byte)]
        return _hole()


WALKERS: dict[str, type[_Walker]] = {"javascript": _JS, "typescript": _JS, "go": _Go, "shell": _Bash,
                                     "powershell": _PowerShell}


class _Evaluator:
    def __init__(self, walker: _Walker, parsed: ParsedFile) -> None:
        self.w = walker
        self.p = parsed
        self.depth = 0
        self.function: object | None = None
        self.cache: dict[int, Value] = {}

    def value(self, node, nested: bool = False) -> Value:
        if node is None:
            return _hole()
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
                return _hole((fid, name))
        candidates = self.p.symbols.get(name)
        if not candidates:
            return [Part(HOLE_TEXT, None, None, name)]
        if self.depth > MAX_DEPTH:
            return _hole()
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
            value = [Part(p.text, None, p.param) for p in value]  # not literally at the reference
            text = _text(value)
            if best is None or (_text(best) == HOLE_TEXT and text != HOLE_TEXT) or \
                    ("://" in text and "://" not in _text(best)):
                best = value
        return best or _hole()


def parse(text: str, path: str) -> ParsedFile | None:
    grammar = grammar_for(path)
    if grammar is None:
        return None
    source = text.encode("utf-8")
    tree = _parser(PurePosixPath(path.replace("\\", "/")).suffix.lower()).parse(source)
    parsed = ParsedFile(text, source, grammar.name)
    walker = WALKERS[grammar.name](parsed)
    walker.walk(tree.root_node)
    _argument_exprs(parsed)
    ev = _Evaluator(walker, parsed)
    for expr in parsed.exprs:
        ev.function = expr.function
        expr.value = ev.value(expr.node)
    parsed.exprs.sort(key=lambda e: e.node.start_byte)
    parsed._walker = walker  # type: ignore[attr-defined]
    parsed._evaluator = ev  # type: ignore[attr-defined]
    return parsed


ARG_REF_TYPES = {"identifier", "selector_expression", "member_expression", "variable"}


def _argument_exprs(parsed: ParsedFile) -> None:
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


def _references(walker: _Walker, node) -> set[str]:
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


# ------------------------------------------------------------------ scanning


@dataclass
class Deferred:
    """A route spelled in an argument of a call to CALLEE that no rule of this file settles.

    It becomes a finding when CALLEE is a v1 wrapper defined anywhere in the audited tree."""

    callee: str
    finding: RawFinding


@dataclass
class PotentialWrapper:
    """A function whose URL is a variable this file does not define followed by a parameter
    (`"${RP_API}${path}"` with RP_API set in lib/config.sh): a wrapper when another file of the tree
    defines that variable as a base."""

    function: str
    var: str
    param: str
    line: int
    column: int
    finding: RawFinding | None = None


@dataclass
class ParsedAnalysis:
    findings: list[RawFinding]
    signals: Signals
    language: str
    wrappers: list[Wrapper] = field(default_factory=list)
    deferred: list[Deferred] = field(default_factory=list)
    bases: dict[str, str] = field(default_factory=dict)  # top-level variables holding a v1/v2 base
    potential: list[PotentialWrapper] = field(default_factory=list)


class _Positions:
    """Byte offsets of the source to (line, column) of the text, and source lines."""

    def __init__(self, text: str, source: bytes) -> None:
        from codemod.audit.scan_text import _Lines

        self.lines = _Lines(text)
        self.ascii = len(source) == len(text)
        self.source = source

    def char(self, byte_offset: int) -> int:
        if self.ascii:
            return byte_offset
        return len(self.source[:byte_offset].decode("utf-8", "replace"))

    def locate(self, byte_offset: int) -> tuple[int, int]:
        return self.lines.locate(self.char(byte_offset))


def _offset_at(value: Value, index: int) -> int | None:
    """The source byte offset of character INDEX of the value's text, when it is literally in the source."""
    pos = 0
    for part in value:
        if pos <= index < pos + len(part.text):
            if part.offset is None:
                return None
            return part.offset + len(part.text[:index - pos].encode("utf-8"))
        pos += len(part.text)
    return None


def _param_after(value: Value, index: int) -> Part | None:
    """The parameter hole that starts at character INDEX, if any."""
    pos = 0
    for part in value:
        if pos == index and part.param is not None:
            return part
        pos += len(part.text)
    return None


def _text_lang(path: str):
    from codemod.audit.scan_text import language_for

    return language_for(path)


def _call_method(walker: _Walker, ev: _Evaluator, args: list, named: dict) -> str | None:
    for node in list(named.get("method", []) and [named["method"]]) + list(args):
        text = _text(ev.value(node)).strip().strip("'\"").upper()
        if text in METHOD_WORDS:
            return text
    return None


def scan_parsed(text: str, path: str) -> ParsedAnalysis:
    from codemod.audit.scan_text import (IMPORT_LIKE, _anchor, _field_hits, _Hit, _method_near, _normalise, _patterns,
                                         _split_version)

    parsed = parse(text, path)
    assert parsed is not None
    walker: _Walker = parsed._walker  # type: ignore[attr-defined]
    ev: _Evaluator = parsed._evaluator  # type: ignore[attr-defined]
    cat = catalogue()
    pats = _patterns()
    lang = _text_lang(path)
    pos = _Positions(text, parsed.source)
    lines = pos.lines

    # the view the field scan reads: comments blanked by the parser, strings kept
    view_chars = list(text) if parsed.comments else None
    if view_chars is not None:
        for start, end in parsed.comments:
            for i in range(pos.char(start), pos.char(end)):
                if view_chars[i] != "\n":
                    view_chars[i] = " "
    view = "".join(view_chars) if view_chars is not None else text
    # generic catalogue names (`workers`, `version`) count as keys of values, not as members of a type
    generic_view = view
    if parsed.types:
        chars = list(view)
        for start, end in parsed.types:
            for i in range(pos.char(start), pos.char(end)):
                if chars[i] != "\n":
                    chars[i] = " "
        generic_view = "".join(chars)

    uses_v1 = uses_v2 = runtime = False
    host_hits: list[tuple[int, str, str]] = []  # (byte offset, kind, host text)
    wrappers: list[Wrapper] = []
    wrapper_lines: list[tuple[int, str, str]] = []  # a wrapper's request line whose base is a variable
    potential: list[PotentialWrapper] = []
    # (byte offset, route, anchor, callee, expr)
    candidates: list[tuple[int, RouteInfo, str, str | None, StringExpr]] = []
    v2_rel = re.compile(r"(?<![A-Za-z0-9_.])" + re.escape(cat.v2_prefix) + r"/(?:" + "|".join(
        re.escape(s[0]) for s in cat.v2_relative if s) + r")\b")

    for expr in parsed.exprs:
        resolved = _text(expr.value)
        _potential_wrapper(expr, parsed, potential, pos, lines)
        if "/" not in resolved:
            continue
        for m in pats.host.finditer(resolved):
            kind = cat.host_kind(m.group(0))
            after = resolved[m.end():m.end() + 4]
            if kind == "v2" and after.lower().startswith("/v1"):
                kind = "v1"
            if kind == "v2" and after.lower().startswith("/graphql"):
                continue  # the GraphQL API (see codemod.audit.graphql), not REST v2
            offset = _offset_at(expr.value, m.start())
            if kind == "v1":
                uses_v1 = True
            elif kind == "v2":
                uses_v2 = True
            elif kind == "runtime":
                runtime = True
            if offset is not None:
                host_hits.append((offset, kind or "", m.group(0)))
            # a wrapper: a base followed directly by one of the function's parameters
            if kind in ("v1", "v2") and expr.function is not None:
                tail = re.match(r"(?:/v\d+)?/?", resolved[m.end():])
                hole = _param_after(expr.value, m.end() + (tail.end() if tail else 0))
                if hole is not None and hole.param is not None and hole.param[0] in parsed.functions:
                    fname, params = parsed.functions[hole.param[0]]
                    if fname:
                        index = params.index(hole.param[1]) if hole.param[1] in params else -1
                        wrappers.append(Wrapper(fname, kind, hole.param[1], index))
                        if kind == "v1" and offset is None:
                            wrapper_lines.append((expr.node.start_byte, fname, hole.param[1]))
        if v2_rel.search(resolved):
            uses_v2 = True
        for m in pats.path.finditer(resolved):
            raw = m.group(0)
            version, raw_path = _split_version(raw, cat)
            if version == "v2":
                uses_v2 = True
                continue
            if version == "other":
                continue
            anchor = _anchor(resolved, m.start(), cat, lang) if lang is not None else "base"
            if anchor in ("other-host", "runtime", "word"):
                continue
            route = _match(cat, _normalise(raw_path))
            if route is None:
                continue
            if anchor == "v2" and version != "v1":
                anchor = "base"
            if version == "v1":
                anchor = "v1" if anchor in ("v1", "base", "v2") else anchor
            offset = _offset_at(expr.value, m.start())
            if offset is None:
                offset = _offset_at(expr.value, m.start() + len(raw) - len(raw_path))
            lead = expr.value[0].var if (m.start() == len(HOLE_TEXT) and expr.value and expr.value[0].var) else None
            candidates.append((offset if offset is not None else expr.node.start_byte, route, anchor,
                               ("$" + lead) if lead else expr.callee, expr))

    # wrappers of this file and of the tree
    known: dict[str, Wrapper] = {}
    for w in wrappers:
        known.setdefault(w.name, w)
    wrapper_args: dict[int, tuple[Wrapper, str | None]] = {}
    for name, node, args, named in parsed.calls:
        w = known.get(name)
        if w is None:
            continue
        method = _call_method(walker, ev, args, named)
        arg = named.get(w.param.lower()) if named else None
        if arg is None and 0 <= w.index < len(args):
            arg = args[w.index]
        if arg is None:
            for a in args:  # the first argument that spells a path
                if _text(ev.value(a)).startswith(("/", HOLE_TEXT + "/")):
                    arg = a
                    break
        if arg is not None:
            wrapper_args[arg.start_byte] = (w, method)

    distinctive_hits = _field_hits(view, lines, cat, lang, generic=False) if lang is not None else []
    definite: list[tuple[int, RouteInfo, str | None, str | None]] = []  # offset, route, kind, method
    ambiguous: list[tuple[int, RouteInfo, str | None, StringExpr]] = []
    for offset, route, anchor, callee, expr in candidates:
        via = wrapper_args.get(expr.node.start_byte)
        if via is not None:
            if via[0].kind == "v1":
                definite.append((offset, route, None, via[1]))
            continue  # a v2 wrapper's path is a v2 path
        if anchor == "v1":
            definite.append((offset, route, None, None))
        else:
            ambiguous.append((offset, route, callee, expr))
    strong_v1 = uses_v1 or bool(definite) or bool(distinctive_hits)
    control_plane = strong_v1 or uses_v2
    deferred_raw: list[tuple[str, int, RouteInfo, str | None]] = []
    call_args = {node.id: (args, named) for _name, node, args, named in parsed.calls}
    for offset, route, callee, expr in ambiguous:
        # a method word among the call's arguments (`rp::http GET "/pods/$id"`, `-Method Post`)
        args, named = call_args.get(expr.call_node.id, ([], {})) if expr.call_node is not None else ([], {})
        method = _call_method(walker, ev, args, named) if callee else None
        if route.v1_only:
            definite.append((offset, route, None if control_plane else "indirect", method))
        elif strong_v1 and not uses_v2:
            definite.append((offset, route, None, method))
        elif not callee:
            continue
        if callee and not control_plane:
            # nothing in this file says which API: a v1 wrapper defined elsewhere in the tree decides
            # (the indirect finding above, if any, is replaced by the call then)
            deferred_raw.append((callee, offset, route, method))
    if definite:
        uses_v1 = True

    hits: list = []
    route_lines: set[int] = set()

    def route_hits(offset: int, route: RouteInfo, kind: str | None, method: str | None) -> list:
        line, col = pos.locate(offset)
        if method is None:
            method = _method_near(lines, line, route)
        if method is None and "GET" in route.methods() and re.search(r"\bfetch\(", lines.source(line)) \
                and "method" not in lines.source(line):
            method = "GET"  # fetch with no method option
        if method is None and "GET" in route.methods() and re.search(r"Invoke-(?:RestMethod|WebRequest)\b",
                                                                     lines.source(line), re.I) \
                and not re.search(r"-Method\b", lines.source(line), re.I):
            method = "GET"  # Invoke-RestMethod's default
        if method is None and len(route.methods()) == 1:
            method = route.methods()[0]
        label = f"{method or '|'.join(route.methods())} {route.path}"
        members = getattr(route, "members", None)
        if members:
            chosen = [r for r in members if method is None or method in r.methods()] or list(members)
            rule_ids = tuple(dict.fromkeys(rid for r in chosen for rid in cat.route_rules(r, method)))
            target = " | ".join(dict.fromkeys(cat.v2_target(r, method) for r in chosen))
        else:
            rule_ids = cat.route_rules(route, method)
            target = cat.v2_target(route, method)
        out = []
        for rule_id in rule_ids:
            rule = cat.rules[rule_id]
            out.append(_Hit(kind or "call", rule_id, line, col, f"v1 {label} -> {target}: {rule.summary}",
                            label, target))
        return out

    for offset, route, kind, method in definite:
        found = route_hits(offset, route, kind, method)
        hits.extend(found)
        route_lines.update(h.line for h in found)

    # helper-built paths: a call whose string arguments spell a v1-only route (`url("networkvolumes", id)`)
    for name, node, args, named in parsed.calls:
        if name in IMPORT_LIKE or name in known or len(args) > 6:
            continue
        segs: list[str] = []
        first_literal: tuple[str, int] | None = None
        for a in args:
            value = ev.value(a)
            text_value = _text(value)
            if value and all(p.offset is not None for p in value):
                if not re.fullmatch(r"[A-Za-z0-9/_{}-]+", text_value):
                    segs = []
                    break
                parts = [x for x in text_value.strip("/").split("/") if x]
                if first_literal is None and parts:
                    first_literal = (parts[0], value[0].offset)
                segs.extend(parts)
            else:
                segs.append(HOLE_TEXT)
        if not segs or first_literal is None or segs[0] not in cat.first_segments or segs[0] != first_literal[0]:
            continue
        route = cat.match_route(tuple(segs))
        if route is None or not route.v1_only:
            continue
        line, col = pos.locate(first_literal[1] - 1 if first_literal[1] else 0)
        if line in route_lines:
            continue
        method = _method_near(lines, line, route)
        label = f"{method or '|'.join(route.methods())} {route.path}"
        target = cat.v2_target(route, method)
        for rule_id in cat.route_rules(route, method)[:1]:
            hits.append(_Hit("indirect", rule_id, line, col, f"path built by a helper spells v1 {label} -> {target}",
                             label, target))

    # a bare resource segment kept in a variable (`REGISTRY_SEGMENT=containerregistryauth`) that a reported
    # path is built from: the constant is part of the call too
    segment_vars = {e.assigned_to: e for e in parsed.exprs
                    if e.assigned_to and _text(e.value) in cat.first_segments and e.value[0].offset is not None}
    if segment_vars:
        for offset, route, _kind, _method in definite:
            for expr in parsed.exprs:
                if not (expr.node.start_byte <= offset < expr.node.end_byte):
                    continue
                for name in _references(walker, expr.node) & set(segment_vars):
                    seg_expr = segment_vars.pop(name)
                    line, col = pos.locate(seg_expr.value[0].offset)
                    rule_id = (cat.route_rules(route, None) or (cat.base_url_rule,))[0]
                    hits.append(_Hit("call", rule_id, line, col,
                                     f"v1 path segment `{_text(seg_expr.value)}` in `{name}`, used for {route.path}: "
                                     f"{cat.rules[rule_id].remedy}", None, None))

    for offset, fname, param in wrapper_lines:
        line, col = pos.locate(offset)
        if line in route_lines or not cat.base_url_rule:
            continue
        hits.append(_Hit("base-url", cat.base_url_rule, line, col,
                         f"v1 wrapper `{fname}`: sends its `{param}` argument to the v1 base; "
                         f"{cat.rules[cat.base_url_rule].remedy}", None,
                         cat.mappings.conventions.hosts.v2[0] + cat.v2_prefix))

    for offset, kind, host_text in host_hits:
        if kind != "v1":
            continue
        line, col = pos.locate(offset)
        if line in route_lines or not cat.base_url_rule:
            continue
        rule = cat.rules[cat.base_url_rule]
        hits.append(_Hit("base-url", cat.base_url_rule, line, col, f"v1 base URL {host_text} in code: {rule.remedy}",
                         None, cat.mappings.conventions.hosts.v2[0] + cat.v2_prefix))

    field_hits = distinctive_hits
    if strong_v1 and lang is not None:
        field_hits = field_hits + _field_hits(generic_view, lines, cat, lang, generic=True)
    # PowerShell hashtable keys (`@{ imageName = $Image }`): body fields the `key:` pattern cannot see
    for name, offset in parsed.keys:
        rule_ids = cat.field_rules.get(name, ())
        if not rule_ids or (name not in cat.distinctive and not strong_v1):
            continue
        line, col = pos.locate(offset)
        for rule_id in rule_ids:
            field_hits.append(_Hit("body-field", rule_id, line, col,
                                   f"v1 field `{name}`: {cat.rules[rule_id].summary}"))
    if runtime and not (uses_v1 or uses_v2 or definite):
        field_hits = []
    hits.extend(field_hits)

    # jq filters reading the v1 error body (`jq -r '.message // .error'`) in a file that calls v1, or that
    # holds a wrapper whose base is set in another file (then decided with that file, like a deferred call)
    error_reads: list[_Hit] = []
    if parsed.language == "shell":
        keys = "|".join(re.escape(k) for k in cat.mappings.conventions.v1_error_keys_read)
        for name, node, args, named in parsed.calls:
            if name != "jq":
                continue
            for arg in args:
                if arg.type not in ("raw_string", "string"):
                    continue
                for m in re.finditer(r"(?<![\w\]])\.(" + keys + r")\b", walker.t(arg)):
                    line, col = pos.locate(arg.start_byte + len(walker.t(arg)[:m.start()].encode()))
                    for rule_id in cat.field_rules.get(m.group(1), ()):
                        error_reads.append(_Hit("error-read", rule_id, line, col,
                                                f"v1 error body read `{m.group(1)}`: {cat.rules[rule_id].summary}"))
    for key, offset in parsed.error_reads:
        line, col = pos.locate(offset)
        for rule_id in cat.field_rules.get(key, ()):
            error_reads.append(_Hit("error-read", rule_id, line, col,
                                    f"v1 error body read `{key}`: {cat.rules[rule_id].summary}"))
    if error_reads and (strong_v1 or any(w.kind == "v1" for w in wrappers)):
        hits.extend(error_reads)
        error_reads = []
    findings = _dedupe(hits, lines) + graphql.scan_strings(_graphql_strings(parsed, pos), lines.source)
    findings.sort(key=lambda f: (f.line, f.column, f.rule))
    deferred = []
    for callee, offset, route, method in deferred_raw:
        for h in route_hits(offset, route, None, method):
            deferred.append(Deferred(callee, RawFinding(h.rule, h.line, h.column, h.message, False, h.route,
                                                        h.v2_target, h.kind, lines.source(h.line))))
    bases: dict[str, str] = {}
    for name, entries in parsed.symbols.items():
        for value_node, where in entries:
            if where is not None:
                continue
            text_value = _text(ev.value(value_node))
            hm = pats.host.search(text_value)
            kind = cat.host_kind(hm.group(0)) if hm else None
            if kind in ("v1", "v2") and re.match(r"^(?:[a-z]+://)?[^/]+(?:/v\d+)?/?$", text_value.split("{}")[0]):
                bases[name] = kind
    # still undecided: decided with the file holding the wrapper's base, or (Go) with the package's other files
    keys = ["$" + pw.var for pw in potential[:1]] or (
        ["@" + path.replace("\\", "/").rsplit("/", 1)[0] if "/" in path else "@"] if parsed.language == "go" else [])
    for h in error_reads:
        for key in keys:
            deferred.append(Deferred(key, RawFinding(h.rule, h.line, h.column, h.message, False, None, None,
                                                     h.kind, lines.source(h.line))))
    for pw in potential:
        pw.finding = RawFinding(cat.base_url_rule or "L01", pw.line, pw.column,
                                f"v1 wrapper `{pw.function}`: sends its `{pw.param}` argument to the v1 base "
                                f"held in `{pw.var}`", False, None,
                                cat.mappings.conventions.hosts.v2[0] + cat.v2_prefix, "base-url",
                                lines.source(pw.line))
    indirect_only = bool(findings) and all(f.kind == "indirect" for f in findings)
    return ParsedAnalysis(findings, Signals(uses_v1 or bool(findings), uses_v2, runtime, indirect_only),
                          parsed.language, wrappers, deferred, bases, potential)


@dataclass(frozen=True)
class LooseRoute(RouteInfo):
    """A path whose variable part stands where v1 routes have a fixed word (`/pods/$id/$action`):
    every v1 route it can be, reported together."""

    members: tuple[RouteInfo, ...] = ()


def _match(cat: Catalogue, segs: tuple[str, ...]) -> RouteInfo | None:
    route = cat.match_route(segs)
    if route is not None or not segs or segs[0] == HOLE_TEXT or HOLE_TEXT not in segs[1:]:
        return route
    members = tuple(r for r in cat.routes if len(r.segments) == len(segs)
                    and all(t == HOLE_TEXT or s == HOLE_TEXT or s == t for t, s in zip(r.segments, segs))
                    and any(s == HOLE_TEXT and t != HOLE_TEXT for t, s in zip(r.segments, segs)))
    if not members:
        return None
    if len(members) == 1:
        return members[0]
    parts = []
    for i, s in enumerate(segs):
        words = sorted({r.segments[i] for r in members})
        if s != HOLE_TEXT or all(w == HOLE_TEXT for w in words):
            parts.append(members[0].path.strip("/").split("/")[i])
        else:
            parts.append("{" + "|".join(w for w in words if w != HOLE_TEXT) + "}")
    path = "/" + "/".join(parts)
    ops = tuple(op for r in members for op in r.operations)
    return LooseRoute(path, segs, ops, all(r.v1_only for r in members), members)


def _graphql_strings(parsed: ParsedFile, pos: "_Positions") -> list:
    out = []
    for expr in parsed.exprs:
        parts = expr.value
        text = "".join(graphql.HOLE if (p.offset is None and p.text == HOLE_TEXT) else p.text for p in parts)
        if not text.strip():
            continue

        def locate(index: int, parts=parts):
            at = 0
            for p in parts:
                size = 1 if (p.offset is None and p.text == HOLE_TEXT) else len(p.text)
                if at <= index < at + size:
                    if p.offset is None:
                        return None
                    return pos.locate(p.offset + len(p.text[:index - at].encode("utf-8")))
                at += size
            return None

        out.append(graphql.StringValue(text, locate, pos.locate(expr.node.start_byte)))
    return out


def _potential_wrapper(expr: StringExpr, parsed: ParsedFile, out: list, pos, lines) -> None:
    value = expr.value
    if expr.function is None or len(value) < 2:
        return
    first, second = value[0], value[1]
    if first.var is None or second.param is None or second.param[0] not in parsed.functions:
        return
    fname, _params = parsed.functions[second.param[0]]
    if not fname:
        return
    line, col = pos.locate(expr.node.start_byte)
    out.append(PotentialWrapper(fname, first.var, second.param[1], line, col))


def _dedupe(hits: list, lines) -> list[RawFinding]:
    seen: set[tuple[str, int, int]] = set()
    out: list[RawFinding] = []
    for h in sorted(hits, key=lambda h: (h.line, h.column, h.rule)):
        key = (h.rule, h.line, h.column)
        if key in seen:
            continue
        seen.add(key)
        out.append(RawFinding(h.rule, h.line, h.column, h.message, False, h.route, h.v2_target, h.kind,
                              lines.source(h.line)))
    return out
