"""The Python detector: finds v1 usage in one module and plans its v2 rewrite.

One engine for two readers. `v1bridge audit` reads `PythonAnalysis.findings`;
`v1bridge rewrite` applies `PythonAnalysis.edits` (codemod/engine.py). Both
come from the same pass, so the audit never reports what the rewrite would
not see, and the other way round.

How a call site is found, whatever builds its URL: every string expression is
evaluated into *pieces* (literal text tied to the source node it came from,
or a hole for what cannot be known statically) through literals, f-strings,
`+`, `%`, `.format`, `urljoin`, names (function locals, parameters with
defaults, module constants, class and instance attributes, `os.getenv` /
`os.environ.get` defaults). The flattened text is matched against the v1
route table of mappings/ by path shape. Because pieces remember their source
node, an edit to a path segment or a base address lands in the one literal
that spelled it, wherever that is.
"""
from __future__ import annotations

import dataclasses
import string
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from codemod.knowledge import HOLE, HTTP_METHODS, SCHEME, Host, Knowledge, Route, knowledge

FindingKind = Literal["call", "base-url", "body-field", "response-field", "error-read", "list-read", "param", "indirect"]

VERBS = {"get", "post", "put", "patch", "delete", "head", "options"}
REQUEST_FUNCS = {"request", "stream"}
CLIENT_FACTORIES = {
    ("httpx", "Client"), ("httpx", "AsyncClient"), ("aiohttp", "ClientSession"),
    ("requests", "Session"), ("requests", "session"),
}
MAX_DEPTH = 12


@dataclass(frozen=True)
class Finding:
    rule: str
    line: int
    column: int
    message: str
    fixable: bool
    route: str | None
    v2_target: str | None
    kind: str
    source_line: str
    # False: a v1 name read on an object of unknown origin (the audit reports it; the rewrite leaves it alone)
    attributed: bool = True


@dataclass
class PythonAnalysis:
    path: str
    findings: list[Finding] = field(default_factory=list)
    uses_v1: bool = False
    uses_v2: bool = False
    serverless_runtime: bool = False
    indirect_only: bool = False
    error: str | None = None
    # For the rewrite: the parsed module (with metadata) and the planned edits.
    module: cst.Module | None = None
    edits: list["Edit"] = field(default_factory=list)
    parents: dict[int, cst.CSTNode] = field(default_factory=dict)  # id(node) -> parent node


# ----------------------------------------------------------------------- edits


@dataclass(frozen=True)
class Edit:
    """One planned change, applied by the rule module named after `kind`."""

    kind: str  # "string" | "method" | "add-kwarg" | "subscript" | "key" | "dict" | "comment" | "callee"
    node: cst.CSTNode
    rule: str
    data: Any = None

    def key(self) -> tuple:
        return (self.kind, id(self.node), repr(self.data))


# ---------------------------------------------------------------------- pieces


@dataclass(frozen=True)
class Piece:
    text: str | None  # None: a hole
    node: cst.CSTNode | None = None  # editable literal holding `text`
    offset: int = 0
    param: str | None = None  # the hole is this function parameter


def _literal_value(node: cst.SimpleString) -> tuple[str | None, bool]:
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


def _slice(pieces: list[Piece], end: int) -> list[Piece]:
    out, pos = [], 0
    for piece in pieces:
        length = 1 if piece.text is None else len(piece.text)
        if pos + length <= end:
            out.append(piece)
        elif pos < end and piece.text is not None:
            out.append(Piece(piece.text[: end - pos], piece.node, piece.offset))
        pos += length
    return out


def _dotted(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def _str_of(node: cst.CSTNode | None) -> str | None:
    if isinstance(node, cst.SimpleString):
        value, _ = _literal_value(node)
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


def _positions(module: cst.Module):
    """Start/end of every node. The provider's own code generation only: going through
    MetadataWrapper adds a full visit of the module that the positions do not need."""
    try:
        provider = PositionProvider()
        provider._gen_impl(module)  # noqa: SLF001 - libcst's documented provider, minus the wrapper
        return provider._computed
    except Exception:  # a libcst without these internals: the public, slower way
        return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)


class _Indexer(cst.CSTVisitor):
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
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            self._record_target(node.asname.name, node.item, node, scope, key)
        elif isinstance(node, cst.Import):
            for alias in node.names:
                name = _dotted(alias.name)
                if name:
                    local = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else name.split(".")[0]
                    self.imports[local] = name if alias.asname else local
        elif isinstance(node, cst.ImportFrom) and node.module is not None and not isinstance(node.names, cst.ImportStar):
            module = _dotted(node.module)
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


# ------------------------------------------------------------------ call sites


@dataclass
class UrlInfo:
    kind: str  # v1 | v2 | runtime | unknown | relative
    pieces: list[Piece]
    path_start: int = 0  # where the v1 resource path starts in the flat text
    path_end: int = 0
    host_edit: tuple[int, int, str] | None = None  # flat span -> replacement (base address)
    base_known: bool = False


@dataclass
class CallSite:
    call: cst.Call
    method: str | None
    method_node: cst.CSTNode | None  # Attribute name / SimpleString spelling the method
    url_expr: cst.CSTNode | None
    url: UrlInfo | None
    library: str  # requests | httpx | aiohttp | urllib | helper | client
    body_expr: cst.CSTNode | None = None
    body_kw: str | None = None  # keyword used for a JSON body at this call
    params_expr: cst.CSTNode | None = None
    returns: str = "response"  # response | json
    is_async: bool = False
    helper: "HelperInfo | None" = None
    route: Route | None = None
    indirect: bool = False


@dataclass
class HelperInfo:
    """A function of this module that makes the HTTP call for its caller."""

    fn: cst.FunctionDef
    params: list[str]
    path_param: str
    method_param: str | None
    method: str | None
    body_param: str | None
    kwargs_param: str | None
    base: UrlInfo | None
    base_kind: str
    returns: str
    is_async: bool


@dataclass
class Typed:
    """An expression known to hold v1 JSON: one object of a resource, or a list of them."""

    route: Route
    shape: str  # object | list


class Analyzer:
    def __init__(self, source: str, path: str, kb: Knowledge, v2_base: str | None = None) -> None:
        self.source = source
        self.path = path
        self.kb = kb
        self.v2_base = v2_base or kb.default_v2_base
        self.lines = source.splitlines()
        # str.splitlines also breaks on characters Python code does not (form feed, U+2028...)
        self.odd_breaks = any(c in source for c in "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
        self.result = PythonAnalysis(path=path)
        self.edits: dict[tuple, Edit] = {}
        self.conflicts: set[tuple[int, int]] = set()
        self.string_edits: dict[int, list[tuple[int, int, str, str]]] = {}
        self.helpers: dict[int, HelperInfo | None] = {}
        self.typed_exprs: dict[int, Typed] = {}
        self.fn_returns: dict[str, Typed] = {}
        self.commented: set[tuple[int, str]] = set()
        self.seen_findings: set[tuple] = set()
        self.read_keys: set[int] = set()  # key nodes of reads already judged (typed or error reads)

    # ------------------------------------------------------------------ run
    def run(self) -> PythonAnalysis:
        try:
            module = cst.parse_module(self.source)
        except Exception as exc:  # libcst raises ParserSyntaxError; be defensive
            self.result.error = f"does not parse: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
            return self.result
        self.pos = _positions(module)
        self.ix = _Indexer()
        self.ix.walk(module)
        self.module = module
        self.result.module = module
        self.v1_evidence = any(self._string_is_v1_base(s) for s in self.ix.strings)
        sites = [site for call in self.ix.calls if (site := self._call_site(call)) is not None]
        for site in sites:
            self._handle_site(site)
        for _ in range(3):
            if not self._propagate_returns():
                break
        for node in self.ix.strings:
            self._standalone_string(node)
        self._handed_in_reads()
        self._flush_string_edits()
        r = self.result
        r.edits = list(self.edits.values())
        r.parents = self.ix.parent
        direct = any(f.kind != "indirect" for f in r.findings)
        r.uses_v1 = direct or any(f.kind == "indirect" for f in r.findings)
        r.indirect_only = r.uses_v1 and not direct
        r.findings.sort(key=lambda f: (f.line, f.column, f.rule))
        return r

    # ------------------------------------------------------------- positions
    def _where(self, node: cst.CSTNode) -> tuple[int, int, str]:
        try:
            p = self.pos[node].start
        except KeyError:
            return 0, 0, ""
        line = self.lines[p.line - 1] if 0 < p.line <= len(self.lines) else ""
        return p.line, p.column + 1, line.strip()

    def _find(self, node: cst.CSTNode, rule: str, kind: str, message: str, fixable: bool, route: Route | None = None,
              attributed: bool = True) -> None:
        line, col, text = self._where(node)
        key = (line, col, rule, kind)
        if key in self.seen_findings:
            return
        self.seen_findings.add(key)
        self.result.findings.append(
            Finding(rule, line, col, message, fixable, route.label() if route else None, route.v2_label() if route else None, kind, text,
                    attributed)
        )

    def _edit(self, edit: Edit) -> None:
        self.edits.setdefault(edit.key(), edit)

    def _rule_text(self, rule: str) -> str:
        r = self.kb.mappings.rules.get(rule)
        return r.remedy if r else ""

    def _manual(self, node: cst.CSTNode, rule: str, kind: str, route: Route | None = None, message: str | None = None) -> None:
        """Cannot be rewritten safely: one `# v1bridge: RULE remedy` comment on the statement."""
        remedy = self._rule_text(rule)
        self._find(node, rule, kind, message or remedy, False, route)
        stmt = self._statement_of(node)
        if stmt is None:
            return
        if (id(stmt), rule) in self.commented:
            return
        self.commented.add((id(stmt), rule))
        self._edit(Edit("comment", stmt, rule, f"# v1bridge: {rule} {remedy}"))

    def _statement_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        cur: cst.CSTNode | None = node
        while cur is not None:
            if isinstance(cur, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                return cur
            cur = self.ix.parent.get(id(cur))
        return None

    def code_of(self, node: cst.CSTNode) -> str:
        """Source of a node without its surrounding whitespace: a slice of the line when it fits on one
        or lines (libcst's code_for_node regenerates the node, 1-5 ms each); regenerated if unsure."""
        try:
            r = self.pos[node]
        except KeyError:
            r = None
        if r is not None and 0 < r.start.line <= r.end.line <= len(self.lines) and not self.odd_breaks \
                and not getattr(node, "lpar", None):  # positions leave a node's parentheses out
            if r.start.line == r.end.line:
                return self.lines[r.start.line - 1][r.start.column: r.end.column]
            # libcst renders a nested node without the indentation of its enclosing blocks: the
            # leading whitespace of the line its statement starts on
            stmt = self._statement_of(node)
            start = self.pos.get(stmt) if stmt is not None else None
            if start is not None:
                first = self.lines[start.start.line - 1]
                indent = first[: len(first) - len(first.lstrip(" \t"))]
                chunk = self.lines[r.start.line - 1: r.end.line]
                chunk[-1] = chunk[-1][: r.end.column]
                chunk[0] = chunk[0][r.start.column:]
                if all(line.startswith(indent) for line in chunk[1:]):
                    chunk[1:] = [line[len(indent):] for line in chunk[1:]]
                    return self.module.default_newline.join(chunk)
        return self.module.code_for_node(node).strip()

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.ix.parent.get(id(node))

    # ------------------------------------------------------------ evaluation
    def scope_of(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        scope = self.ix.scope_of.get(id(node))
        return scope if isinstance(scope, cst.FunctionDef) else None

    def evaluate(self, node: cst.CSTNode, scope: cst.FunctionDef | None, depth: int = 0) -> list[Piece]:
        hole = [Piece(None)]
        if depth > MAX_DEPTH:
            return hole
        ev = lambda n, s=scope: self.evaluate(n, s, depth + 1)  # noqa: E731
        if isinstance(node, cst.SimpleString):
            value, editable = _literal_value(node)
            if value is None:
                return hole
            return [Piece(value, node if editable else None, 0)]
        if isinstance(node, cst.ConcatenatedString):
            return ev(node.left) + ev(node.right)
        if isinstance(node, cst.FormattedString):
            out: list[Piece] = []
            for part in node.parts:
                if isinstance(part, cst.FormattedStringText):
                    raw = part.value
                    text = raw.replace("{{", "{").replace("}}", "}")
                    editable = text == raw and "\\" not in raw
                    out.append(Piece(text, part if editable else None, 0))
                elif isinstance(part, cst.FormattedStringExpression):
                    if part.format_spec or part.conversion:
                        out.append(Piece(None))
                    else:
                        out.extend(ev(part.expression))
            return out
        if isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, cst.Add):
                return ev(node.left) + ev(node.right)
            if isinstance(node.operator, cst.Modulo) and isinstance(node.left, cst.SimpleString):
                return self._percent(node, scope, depth)
            return hole
        if isinstance(node, cst.Name):
            return self._resolve_name(node, scope, depth)
        if isinstance(node, cst.Attribute):
            return self._resolve_attr(node, scope, depth)
        if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.Or):
            left = ev(node.left)
            if all(p.text is None for p in left):
                right = ev(node.right)
                if any(p.text is not None for p in right):
                    return right
            return left
        if isinstance(node, cst.Call):
            return self._eval_call(node, scope, depth)
        return hole

    def _percent(self, node: cst.BinaryOperation, scope, depth: int) -> list[Piece]:
        fmt = node.left
        value, editable = _literal_value(fmt)
        if value is None or "%%" in value or "%(" in value:
            return [Piece(None)]
        args = list(node.right.elements) if isinstance(node.right, cst.Tuple) else [node.right]
        out: list[Piece] = []
        i = last = 0
        arg_i = 0
        while i < len(value):
            if value[i] == "%" and i + 1 < len(value):
                out.append(Piece(value[last:i], fmt if editable else None, last))
                j = i + 1
                while j < len(value) and value[j] not in "sdifrx":
                    j += 1
                arg = args[arg_i] if arg_i < len(args) else None
                arg_i += 1
                if arg is not None and value[j: j + 1] == "s":
                    expr = arg.value if isinstance(arg, cst.Element) else arg
                    out.extend(self.evaluate(expr, scope, depth + 1))
                else:
                    out.append(Piece(None))
                i = last = j + 1
                continue
            i += 1
        out.append(Piece(value[last:], fmt if editable else None, last))
        return [p for p in out if p.text != ""]

    def _format(self, node: cst.Call, fmt: cst.SimpleString, scope, depth: int) -> list[Piece]:
        value, editable = _literal_value(fmt)
        if value is None or "{{" in value or "}}" in value:
            return [Piece(None)]
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        named = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        out: list[Piece] = []
        pos = 0
        auto = 0
        try:
            parsed = list(string.Formatter().parse(value))
        except ValueError:
            return [Piece(None)]
        for literal, field_name, spec, conv in parsed:
            if literal:
                out.append(Piece(literal, fmt if editable else None, pos))
            pos += len(literal)
            if field_name is None:
                continue
            pos += len(field_name) + 2 + (len(spec) + 1 if spec else 0) + (2 if conv else 0)
            expr = None
            if field_name == "":
                expr = positional[auto] if auto < len(positional) else None
                auto += 1
            elif field_name.isdigit():
                idx = int(field_name)
                expr = positional[idx] if idx < len(positional) else None
            else:
                expr = named.get(field_name)
            if expr is None or spec or conv:
                out.append(Piece(None))
            else:
                out.extend(self.evaluate(expr, scope, depth + 1))
        return out

    def _eval_call(self, node: cst.Call, scope, depth: int) -> list[Piece]:
        func = node.func
        name = _dotted(func) or ""
        origin = self._origin(name)
        args = [a.value for a in node.args if a.keyword is None and not a.star]
        if isinstance(func, cst.Attribute) and func.attr.value == "format" and isinstance(func.value, cst.SimpleString):
            return self._format(node, func.value, scope, depth)
        if isinstance(func, cst.Attribute) and func.attr.value in ("rstrip", "strip") and not args or (
            isinstance(func, cst.Attribute) and func.attr.value in ("rstrip", "strip") and len(args) == 1 and _str_of(args[0]) == "/"
        ):
            pieces = self.evaluate(func.value, scope, depth + 1)
            if pieces and pieces[-1].text and pieces[-1].text.endswith("/"):
                last = pieces[-1]
                pieces = pieces[:-1] + [Piece(last.text.rstrip("/"), last.node, last.offset)]
            return pieces
        if origin in ("os.getenv", "os.environ.get", "os.environ.setdefault") or name.endswith("environ.get"):
            default = args[1] if len(args) > 1 else next((a.value for a in node.args if a.keyword and a.keyword.value == "default"), None)
            return self.evaluate(default, scope, depth + 1) if default is not None else [Piece(None)]
        if origin == "str" and len(args) == 1:
            return self.evaluate(args[0], scope, depth + 1)
        if origin.endswith("urljoin") and len(args) == 2:
            base = self.evaluate(args[0], scope, depth + 1)
            rel = self.evaluate(args[1], scope, depth + 1)
            flat_rel = flatten(rel)
            if SCHEME.match(flat_rel):
                return rel
            flat_base = flatten(base)
            m = SCHEME.match(flat_base)
            if flat_rel.startswith("/"):
                if m and HOLE not in flat_base[: flat_base.find("/", m.end()) if "/" in flat_base[m.end():] else len(flat_base)]:
                    cut = flat_base.find("/", m.end())
                    return _slice(base, cut if cut >= 0 else len(flat_base)) + rel
                return [Piece(None)] + rel
            cut = flat_base.rfind("/")
            if cut < 0:
                return [Piece(None)] + rel
            return _slice(base, cut + 1) + rel
        return [Piece(None)]

    def _origin(self, dotted: str) -> str:
        if not dotted:
            return ""
        head, _, rest = dotted.partition(".")
        origin = self.ix.imports.get(head, head)
        return f"{origin}.{rest}" if rest else origin

    def _single(self, entries: list) -> Any:
        return entries[0] if len(entries) == 1 else None

    def _resolve_name(self, node: cst.Name, scope, depth: int) -> list[Piece]:
        name = node.value
        fn = scope
        while fn is not None:
            assigned = self.ix.assigns.get(id(fn), {}).get(name)
            if assigned:
                one = self._single(assigned)
                if one is None:
                    return [Piece(None)]
                return self.evaluate(one[0], fn, depth + 1)
            param = self._param(fn, name)
            if param is not None:
                if param.default is not None:
                    default = self.evaluate(param.default, self.scope_of(fn), depth + 1)
                    if all(p.text is None for p in default):
                        return [Piece(None, param=name)]
                    return default
                return [Piece(None, param=name)]
            fn = self.scope_of(fn)
        assigned = self.ix.assigns.get(None, {}).get(name)
        if assigned:
            one = self._single(assigned)
            if one is None:
                return [Piece(None)]
            return self.evaluate(one[0], None, depth + 1)
        return [Piece(None)]

    @staticmethod
    def _param(fn: cst.FunctionDef, name: str) -> cst.Param | None:
        for param in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params):
            if param.name.value == name:
                return param
        return None

    def _class_of(self, scope) -> cst.ClassDef | None:
        fn = scope
        while fn is not None:
            cls = self.ix.class_of_fn.get(id(fn))
            if cls is not None:
                return cls
            fn = self.scope_of(fn)
        return None

    def _resolve_attr(self, node: cst.Attribute, scope, depth: int) -> list[Piece]:
        owner = node.value
        attr = node.attr.value
        cls = None
        if isinstance(owner, cst.Name):
            if owner.value in ("self", "cls"):
                cls = self._class_of(scope)
            else:
                cls = self.ix.classes.get(owner.value)
        if cls is None:
            return [Piece(None)]
        class_level = self.ix.class_attrs.get(id(cls), {}).get(attr)
        if class_level and len(class_level) == 1:
            return self.evaluate(class_level[0], self.scope_of(cls), depth + 1)
        inst = self.ix.self_attrs.get(id(cls), {}).get(attr)
        if inst:
            chosen = inst[0] if len(inst) == 1 else next((i for i in inst if i[1].name.value == "__init__"), None)
            if chosen is not None:
                return self.evaluate(chosen[0], chosen[1], depth + 1)
        return [Piece(None)]

    # --------------------------------------------------------- URL classes
    def _string_is_v1_base(self, node: cst.CSTNode) -> bool:
        flat = flatten(self.evaluate(node, None, MAX_DEPTH - 2))
        info = self.classify(flat)
        return info[0] == "v1"

    def classify(self, flat: str, base_kind: str | None = None) -> tuple[str, int, tuple[int, int, str] | None]:
        """(kind, index where the v1 path starts, base edit) for the flattened URL text."""
        kb = self.kb
        m = SCHEME.match(flat)
        if m:
            slash = flat.find("/", m.end())
            netloc = flat[m.end(): slash if slash >= 0 else len(flat)]
            path_at = slash if slash >= 0 else len(flat)
            path = flat[path_at:]
            if HOLE in netloc:
                return "unknown", path_at, None
            if netloc in kb.runtime_netlocs:
                return "runtime", path_at, None
            for host in kb.v1_hosts:
                if netloc == host.netloc:
                    if host.prefix and (path == host.prefix or path.startswith(host.prefix + "/")):
                        end = path_at + len(host.prefix)
                        return "v1", end, (0, end, self.v2_base)
                    if path.startswith(kb.v2_prefix + "/") or path == kb.v2_prefix:
                        return ("runtime" if kb.is_runtime_path(path) else "v2"), path_at, None
                    return "v1", path_at, None
            if kb.is_runtime_path(path):
                return "runtime", path_at, None
            if path == kb.v1_prefix or path.startswith(kb.v1_prefix + "/"):
                end = path_at + len(kb.v1_prefix)
                if any(h.netloc == netloc for h in kb.v2_hosts):
                    return "v1", end, (0, end, self.v2_base)
                return "v1", end, (path_at, end, kb.v2_prefix)
            if path == kb.v2_prefix or path.startswith(kb.v2_prefix + "/"):
                return "v2", path_at, None
            return "none", path_at, None
        # no scheme: relative path, or a hole standing for an unknown base
        rest = flat.lstrip(HOLE)
        lead = len(flat) - len(rest)
        if kb.is_runtime_path(rest):
            return "runtime", lead, None
        if rest == kb.v1_prefix or rest.startswith(kb.v1_prefix + "/"):
            return "v1", lead + len(kb.v1_prefix), (lead, lead + len(kb.v1_prefix), kb.v2_prefix)
        if rest.startswith(kb.v2_prefix + "/"):
            return "v2", lead, None
        if rest.startswith("/") and rest[1:].split("/")[0].split("?")[0] in kb.resources:
            if lead == 0 and base_kind:
                return base_kind, 0, None
            return "relative", lead, None
        return "none", lead, None

    # ------------------------------------------------------------ call sites
    def _call_site(self, call: cst.Call) -> CallSite | None:
        func = call.func
        dotted = _dotted(func) or ""
        origin = self._origin(dotted)
        scope = self.scope_of(call)
        args = [a for a in call.args if a.keyword is None and not a.star]
        kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        method = None
        method_node = None
        url_expr = None
        library = "client"
        base: UrlInfo | None = None
        base_kind = None
        attr = func.attr.value if isinstance(func, cst.Attribute) else (func.value if isinstance(func, cst.Name) else "")
        lib_root = origin.split(".")[0]
        is_async = isinstance(self.parent(call), cst.Await)
        if origin in ("urllib.request.Request", "urllib.request.urlopen"):
            library = "urllib"
            url_expr = args[0].value if args else kw.get("url")
            if origin.endswith("urlopen") and isinstance(url_expr, cst.Call):
                return None  # the inner Request(...) is the call site
            mnode = kw.get("method")
            method = _str_of(mnode) if mnode is not None else ("POST" if "data" in kw or len(args) > 1 else "GET")
            method_node = mnode if isinstance(mnode, cst.SimpleString) else None
        elif attr in VERBS | REQUEST_FUNCS:
            if lib_root in ("requests", "httpx") and origin.count(".") == 1:
                library = lib_root
            elif lib_root in ("requests", "httpx", "aiohttp", "urllib"):
                return None
            else:
                # receiver: client object, maybe with base_url
                if isinstance(func, cst.Attribute):
                    factory, base = self._client_of(func.value, scope)
                    if factory:
                        library = factory
                    elif self._is_helper_call(call):
                        return self._helper_site(call)
                elif self._is_helper_call(call):
                    return self._helper_site(call)
            if attr in REQUEST_FUNCS:
                if not args:
                    mexpr = kw.get("method")
                    url_expr = kw.get("url")
                else:
                    mexpr = args[0].value
                    url_expr = args[1].value if len(args) > 1 else kw.get("url")
                method = (_str_of(mexpr) or "").upper() or None if mexpr is not None else None
                method_node = mexpr if isinstance(mexpr, cst.SimpleString) else None
            else:
                method = attr.upper()
                method_node = func.attr if isinstance(func, cst.Attribute) else None
                url_expr = args[0].value if args else kw.get("url")
        elif self._is_helper_call(call):
            return self._helper_site(call)
        else:
            return None
        if url_expr is None:
            return None
        pieces = self.evaluate(url_expr, scope)
        if base is not None:
            base_kind = base.kind if base.kind in ("v1", "v2", "runtime") else None
        info = self._url_info(pieces, base_kind)
        if info is None:
            return None
        body_kw = "json"
        body = kw.get("json")
        if body is None and library == "urllib":
            body = kw.get("data")
            body_kw = "data"
        return CallSite(call, method, method_node, url_expr, info, library, body, body_kw, kw.get("params"), "response", is_async)

    def _url_info(self, pieces: list[Piece], base_kind: str | None) -> UrlInfo | None:
        flat = flatten(pieces)
        kind, start, host_edit = self.classify(flat, base_kind)
        if kind == "none":
            if any(p.param for p in pieces):
                return UrlInfo("param", pieces, 0, len(flat))
            return None
        end = len(flat)
        q = flat.find("?", start)
        if q >= 0:
            end = q
        return UrlInfo(kind, pieces, start, end, host_edit, base_known=base_kind is not None)

    def _client_of(self, receiver: cst.CSTNode, scope) -> tuple[str | None, UrlInfo | None]:
        """(library, base) of a client object: httpx.Client(base_url=...), requests.Session(), ..."""
        value = None
        if isinstance(receiver, cst.Name):
            fn = scope
            while fn is not None and value is None:
                got = self.ix.assigns.get(id(fn), {}).get(receiver.value)
                if got:
                    value = got[0][0]
                fn = self.scope_of(fn)
            if value is None:
                got = self.ix.assigns.get(None, {}).get(receiver.value)
                if got:
                    value = got[0][0]
        elif isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name) and receiver.value.value == "self":
            cls = self._class_of(scope)
            if cls is not None:
                inst = self.ix.self_attrs.get(id(cls), {}).get(receiver.attr.value)
                if inst:
                    value, scope = inst[0][0], inst[0][1]
        elif isinstance(receiver, cst.Call):
            value = receiver
        if isinstance(value, cst.Await):
            value = value.expression
        if not isinstance(value, cst.Call):
            return None, None
        origin = self._origin(_dotted(value.func) or "")
        parts = tuple(origin.rsplit(".", 1)) if "." in origin else ("", origin)
        if parts not in CLIENT_FACTORIES:
            return None, None
        base_expr = next((a.value for a in value.args if a.keyword and a.keyword.value == "base_url"), None)
        if base_expr is None and parts[0] == "aiohttp":
            pos = [a.value for a in value.args if a.keyword is None]
            base_expr = pos[0] if pos else None
        if base_expr is None:
            return parts[0], None
        pieces = self.evaluate(base_expr, scope)
        kind, start, host_edit = self.classify(flatten(pieces))
        return parts[0], UrlInfo(kind, pieces, start, len(flatten(pieces)), host_edit)

    # --------------------------------------------------------------- helpers
    def _is_helper_call(self, call: cst.Call) -> bool:
        name = call.func.attr.value if isinstance(call.func, cst.Attribute) else (call.func.value if isinstance(call.func, cst.Name) else None)
        return bool(name) and name in self.ix.functions

    def _helper(self, fn: cst.FunctionDef) -> HelperInfo | None:
        if id(fn) in self.helpers:
            return self.helpers[id(fn)]
        self.helpers[id(fn)] = None  # recursion guard
        params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)]
        kwargs_param = fn.params.star_kwarg.name.value if isinstance(fn.params.star_kwarg, cst.Param) else None
        info = None
        for call in self.ix.calls:
            if self._enclosing_fn(call) is not fn or call is None:
                continue
            inner = self._call_site_no_helper(call) if not self._is_helper_call(call) else self._helper_site(call, inner=True)
            if inner is None or inner.url is None:
                continue
            path_param = next((p.param for p in inner.url.pieces if p.param), None)
            if path_param is None:
                continue
            flat = flatten(inner.url.pieces)
            hole_at = next(i for i, p in enumerate(inner.url.pieces) if p.param == path_param)
            prefix_pieces = inner.url.pieces[:hole_at]
            prefix_flat = flatten(prefix_pieces)
            if inner.helper is not None:
                base_kind = inner.helper.base_kind
                base = inner.helper.base
            else:
                kind, start, host_edit = self.classify(prefix_flat + "/pods")  # shape of a base followed by a path
                if inner.url.base_known:
                    kind = inner.url.kind
                if kind == "relative":
                    kind = "v1" if self.v1_evidence else "unknown"
                base_kind = kind
                base = UrlInfo(kind, prefix_pieces, 0, len(prefix_flat), host_edit)
            method_param = None
            method = inner.method
            if inner.helper is not None and inner.helper.method_param:
                method_param = self._arg_param(inner, inner.helper.method_param)
            elif inner.method_node is None and inner.method is None:
                mexpr = inner.call.args[0].value if inner.call.args else None
                if isinstance(mexpr, cst.Name) and mexpr.value in params:
                    method_param = mexpr.value
            if isinstance(inner.method_node, cst.SimpleString) is False and inner.method is None and method_param is None:
                pass
            body_param = None
            if isinstance(inner.body_expr, cst.Name) and inner.body_expr.value in params:
                body_param = inner.body_expr.value
            elif inner.helper is not None and inner.helper.body_param:
                body_param = self._arg_param(inner, inner.helper.body_param)
            returns = "json" if self._returns_json(fn, inner) else "response"
            info = HelperInfo(fn, params, path_param, method_param, method if method_param is None else None, body_param,
                              kwargs_param, base, base_kind, returns, isinstance(fn.asynchronous, cst.Asynchronous))
            break
        self.helpers[id(fn)] = info
        return info

    def _arg_param(self, site: CallSite, param: str) -> str | None:
        """Which parameter of the enclosing function feeds `param` of the inner helper call."""
        expr = self._bind(site.helper, site.call).get(param) if site.helper else None
        return expr.value if isinstance(expr, cst.Name) else None

    def _enclosing_fn(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        return self.scope_of(node)

    def _returns_json(self, fn: cst.FunctionDef, inner: CallSite) -> bool:
        if inner.helper is not None and inner.helper.returns == "json":
            return self._returned(inner.call, fn)
        for node in self.ix.calls:
            if self._enclosing_fn(node) is fn and isinstance(node.func, cst.Attribute) and node.func.attr.value == "json":
                p = self.parent(node)
                while isinstance(p, (cst.Await, cst.IfExp, cst.BooleanOperation)):
                    p = self.parent(p)
                if isinstance(p, cst.Return):
                    return True
        return False

    def _returned(self, node: cst.CSTNode, fn) -> bool:
        p = self.parent(node)
        if isinstance(p, cst.Await):
            p = self.parent(p)
        return isinstance(p, cst.Return)

    def _call_site_no_helper(self, call: cst.Call) -> CallSite | None:
        site = self._call_site(call)
        return site if site is not None and site.helper is None else site

    def _bind(self, helper: HelperInfo | None, call: cst.Call) -> dict[str, cst.CSTNode]:
        if helper is None:
            return {}
        params = list(helper.params)
        if params and params[0] in ("self", "cls") and isinstance(call.func, cst.Attribute):
            params = params[1:]
        bound: dict[str, cst.CSTNode] = {}
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        for name, value in zip(params, positional):
            bound[name] = value
        for a in call.args:
            if a.keyword is not None:
                bound[a.keyword.value] = a.value
        return bound

    def _helper_site(self, call: cst.Call, inner: bool = False) -> CallSite | None:
        name = call.func.attr.value if isinstance(call.func, cst.Attribute) else call.func.value  # type: ignore[union-attr]
        fns = self.ix.functions.get(name, [])
        if len(fns) != 1:
            return None
        fn = fns[0]
        if self._enclosing_fn(call) is fn:
            return None
        helper = self._helper(fn)
        if helper is None:
            return None
        bound = self._bind(helper, call)
        path_expr = bound.get(helper.path_param)
        if path_expr is None:
            return None
        scope = self.scope_of(call)
        pieces = self.evaluate(path_expr, scope)
        base_kind = helper.base_kind if helper.base_kind in ("v1", "v2", "runtime") else None
        info = self._url_info(pieces, base_kind)
        if info is None:
            return None
        if info.kind == "relative" and not inner:
            info.kind = "unknown"
        method = helper.method
        method_node = None
        if helper.method_param:
            mexpr = bound.get(helper.method_param)
            method = (_str_of(mexpr) or "").upper() or None if mexpr is not None else None
            method_node = mexpr if isinstance(mexpr, cst.SimpleString) else None
        if method is None and not helper.method_param:
            low = name.lower().strip("_")
            method = next((v.upper() for v in VERBS if low == v or low.endswith("_" + v) or low.startswith(v + "_")), None)
        body = bound.get(helper.body_param) if helper.body_param else None
        body_kw = helper.body_param
        if body is None and helper.kwargs_param:
            body = bound.get("json")
            body_kw = "json"
        is_async = helper.is_async
        site = CallSite(call, method, method_node, path_expr, info, "helper", body, body_kw, bound.get("params"),
                        helper.returns, is_async, helper)
        return site

    # -------------------------------------------------------- handle a site
    def _handle_site(self, site: CallSite) -> None:
        info = site.url
        kb = self.kb
        if info is None:
            return
        if info.kind == "runtime":
            self.result.serverless_runtime = True
            return
        if info.kind == "v2":
            self.result.uses_v2 = True
            return
        if info.kind in ("unknown", "relative"):
            flat = flatten(info.pieces)
            path = flat[info.path_start: info.path_end].lstrip(HOLE)
            routes = kb.match(path, site.method)
            if routes:
                self._find(site.call, routes[0].op.rules[0] if routes[0].op.rules else "L01", "indirect",
                           f"{routes[0].label()} through a base address defined elsewhere; check it by hand", False, routes[0])
            return
        if info.kind != "v1":
            return
        flat = flatten(info.pieces)
        path = flat[info.path_start: info.path_end]
        if path.endswith("/") and len(path) > 1:
            path = path[:-1]
        routes = kb.match(path, site.method)
        if not routes:
            any_method = kb.match(path, None)
            if any_method and site.method is None:
                routes = any_method if len({r.v2_segments for r in any_method}) == 1 else []
            if not routes:
                return
        route = routes[0]
        site.route = route
        if info.host_edit is not None and site.helper is None:
            self._host_edit(info, route)
        if site.helper is not None and site.helper.base is not None and site.helper.base.kind == "v1":
            self._base_edit(site.helper.base)
        self._route_edits(site, route, path)
        self._body(site, route)
        self._params(site, route)
        self._responses(site, route)
        self._except_error_reads(site, route)

    def _host_edit(self, info: UrlInfo, route: Route | None) -> None:
        a, b, repl = info.host_edit  # type: ignore[misc]
        origin = span_origin(info.pieces, a, b)
        if origin is None:
            return
        node, s, e = origin
        self._string_edit(node, s, e, repl, "L01")

    def _base_edit(self, base: UrlInfo) -> None:
        if base.host_edit is not None:
            self._host_edit(base, None)

    def _string_edit(self, node: cst.CSTNode, start: int, end: int, text: str, rule: str) -> None:
        edits = self.string_edits.setdefault(id(node), [])
        for (s, e, t, r) in edits:
            if (s, e) == (start, end):
                if t != text:
                    self.conflicts.add((id(node), start))
                return
            if s < end and start < e:
                self.conflicts.add((id(node), start))
                return
        edits.append((start, end, text, rule))
        self._nodes = getattr(self, "_nodes", {})
        self._nodes[id(node)] = node

    def _flush_string_edits(self) -> None:
        for node_id, edits in self.string_edits.items():
            node = self._nodes[node_id]
            good = [e for e in edits if (node_id, e[0]) not in self.conflicts]
            if not good:
                continue
            self._edit(Edit("string", node, ",".join(sorted({e[3] for e in good})), tuple(sorted(good))))
            for e in good:
                pass

    def _route_edits(self, site: CallSite, route: Route, path: str) -> None:
        info = site.url
        assert info is not None
        base = info.path_start
        segments = path.strip("/").split("/")
        # flat offsets of each segment
        offsets = []
        pos = base + (1 if path.startswith("/") else 0)
        for seg in segments:
            offsets.append((pos, pos + len(seg)))
            pos += len(seg) + 1
        v2 = route.v2_segments
        label = route.label()
        if route.op.v2 is None or v2 is None:
            rule = next((r for r in route.op.rules if self.kb.mappings.rules[r].rule_class == "removed"), route.op.rules[0] if route.op.rules else "L01")
            self._manual(site.call, rule, "call", route)
            return
        rules_here = route.op.rules
        verb_rule = "L04" if "L04" in rules_here else None
        path_rule = "Q01" if "Q01" in rules_here else ("L01" if "L01" in rules_here else "L01")
        changed_path = False
        v1s = route.v1_segments
        if len(v2) == len(v1s):
            for i, (a, b) in enumerate(zip(v1s, v2)):
                if a.startswith("{") or a == b:
                    continue
                origin = span_origin(info.pieces, *offsets[i])
                if origin is None:
                    self._manual(site.call, verb_rule or path_rule, "call", route)
                    return
                self._string_edit(origin[0], origin[1], origin[2], b, verb_rule if (route.action_body and i == len(v1s) - 1) else path_rule)
                changed_path = True
        elif len(v2) == len(v1s) - 1 and v1s[:-1] == v2[: len(v1s) - 1] or (len(v2) == len(v1s) - 1 and route.v2_method != route.method):
            # POST .../update -> PATCH on the resource: drop the last segment (and its slash)
            s, e = offsets[-1]
            origin = span_origin(info.pieces, s - 1, e)
            if origin is None or not self._method_edit(site, route):
                self._manual(site.call, "L04", "call", route)
                return
            for i, (a, b) in enumerate(zip(v1s[:-1], v2)):
                if a.startswith("{") or a == b:
                    continue
                o = span_origin(info.pieces, *offsets[i])
                if o is None:
                    self._manual(site.call, "L04", "call", route)
                    return
                self._string_edit(o[0], o[1], o[2], b, path_rule)
            self._string_edit(origin[0], origin[1], origin[2], "", "L04")
            self._find(site.call, "L04", "call", f"{label} -> {route.v2_label()}", True, route)
            return
        else:
            self._manual(site.call, verb_rule or path_rule, "call", route)
            return
        if route.action_body:
            if not self._add_action_body(site, route):
                self._manual(site.call, "L04", "call", route)
                return
            self._find(site.call, "L04", "call", f"{label} -> {route.v2_label()} {route.action_body}", True, route)
            return
        rule = path_rule if changed_path else (rules_here[0] if rules_here else "L01")
        if changed_path or info.host_edit is not None or (site.helper and site.helper.base and site.helper.base.host_edit):
            self._find(site.call, path_rule if changed_path else "L01", "call", f"{label} -> {route.v2_label()}", True, route)
        else:
            self._find(site.call, rule, "call", f"{label} -> {route.v2_label()}", True, route)

    def _method_edit(self, site: CallSite, route: Route) -> bool:
        new = route.v2_method
        if new is None:
            return False
        node = site.method_node
        if isinstance(node, cst.Name) and node.value.upper() == site.method:
            self._edit(Edit("name", node, "L04", new.lower()))
            return True
        if isinstance(node, cst.SimpleString):
            value, editable = _literal_value(node)
            if value is None or not editable:
                return False
            if value.isupper():
                self._string_edit(node, 0, len(value), new.upper(), "L04")
            else:
                self._string_edit(node, 0, len(value), new.lower(), "L04")
            return True
        if site.library == "helper" and isinstance(site.call.func, (cst.Attribute, cst.Name)):
            name_node = site.call.func.attr if isinstance(site.call.func, cst.Attribute) else site.call.func
            old = name_node.value
            low = old.lower()
            for verb in VERBS:
                if verb in low:
                    candidate = old.replace(verb, new.lower())
                    if candidate in self.ix.functions and self._helper(self.ix.functions[candidate][0]) is not None:
                        self._edit(Edit("name", name_node, "L04", candidate))
                        return True
        return False

    def _add_action_body(self, site: CallSite, route: Route) -> bool:
        body = route.action_body
        if site.body_expr is not None:
            return False
        if site.library == "urllib":
            return False
        kw = site.body_kw or "json"
        if site.library == "helper" and site.helper is not None:
            if site.helper.body_param:
                kw = site.helper.body_param
            elif site.helper.kwargs_param:
                kw = "json"
            else:
                return False
        self._edit(Edit("add-kwarg", site.call, "L04", (kw, body)))
        return True

    # -------------------------------------------------------------- bodies
    def _body(self, site: CallSite, route: Route) -> None:
        map_id = route.op.request
        if map_id is None or site.body_expr is None:
            return
        from codemod.bodies import plan_body

        dict_node = site.body_expr
        scope = self.scope_of(site.call)
        if isinstance(dict_node, cst.Name):
            assigned = self.ix.assigns.get(id(scope) if scope else None, {}).get(dict_node.value)
            if not assigned or len(assigned) != 1 or self._mutated(dict_node.value, scope):
                self._body_manual(site, route)
                return
            dict_node = assigned[0][0]
        self.read_keys.add(id(dict_node))  # judged as a request body: its keys are not reported again
        if not isinstance(dict_node, cst.Dict):
            self._body_manual(site, route)
            return
        plan_body(self, site, route, map_id, dict_node)

    def _mutated(self, name: str, scope) -> bool:
        for n in self.ix.names.get(id(scope) if scope else None, {}).get(name, []):
            p = self.parent(n)
            if isinstance(p, cst.Subscript) and isinstance(self.parent(p), cst.AssignTarget):
                return True
            if isinstance(p, cst.Attribute) and p.attr.value in ("update", "setdefault", "pop"):
                return True
        return False

    def _body_manual(self, site: CallSite, route: Route) -> None:
        self._manual(site.call, "L02", "body-field", route,
                     "request body built elsewhere; convert it to the v2 shape (" + self._rule_text("L02") + ")")

    # -------------------------------------------------------------- params
    def _params(self, site: CallSite, route: Route) -> None:
        qid = route.op.query
        node = site.params_expr
        flat = flatten(site.url.pieces) if site.url else ""
        if qid is None:
            return
        qmap = self.kb.mappings.queries[qid]
        if "?" in flat[site.url.path_start:]:
            query = flat[flat.find("?", site.url.path_start) + 1:]
            for pair in query.split("&"):
                name = pair.split("=")[0]
                spec = qmap.params.get(name)
                if spec is not None and spec.to != name:
                    self._manual(site.call, spec.rule or "Q03", "param", route)
        if not isinstance(node, cst.Dict):
            return
        for el in node.elements:
            if not isinstance(el, cst.DictElement):
                continue
            name = _str_of(el.key)
            spec = qmap.params.get(name) if name else None
            if spec is None:
                continue
            if spec.to == name:
                continue
            if spec.to:
                self._edit(Edit("key", el.key, spec.rule or "L02", spec.to))
                self._find(el.key, spec.rule or "L02", "param", f"query parameter {name} -> {spec.to}", True, route)
            else:
                self._manual(el.key, spec.rule or "Q03", "param", route)

    # ----------------------------------------------------------- responses
    def _responses(self, site: CallSite, route: Route) -> None:
        shape = "list" if self.kb.list_key(route) else ("object" if route.op.response else None)
        typed = Typed(route, shape) if shape else None
        call_expr: cst.CSTNode = site.call
        if isinstance(self.parent(call_expr), cst.Await):
            call_expr = self.parent(call_expr)
        if site.returns == "json":
            self._json_site(call_expr, typed, site)
            return
        for json_expr in self._json_uses(call_expr):
            self._json_site(json_expr, typed, site)

    def _json_uses(self, response_expr: cst.CSTNode) -> list[cst.CSTNode]:
        """`.json()` reads of a response: chained, or through the variable it is stored in."""
        out = []
        p = self.parent(response_expr)
        if isinstance(p, cst.Attribute) and p.attr.value == "json" and isinstance(self.parent(p), cst.Call):
            call = self.parent(p)
            out.append(self.parent(call) if isinstance(self.parent(call), cst.Await) else call)
            return out
        var = self._bound_name(response_expr)
        if var is None:
            return out
        name, stmt = var
        for use in self._uses_after(name, stmt):
            up = self.parent(use)
            if isinstance(up, cst.Attribute) and up.attr.value == "json" and isinstance(self.parent(up), cst.Call):
                call = self.parent(up)
                out.append(self.parent(call) if isinstance(self.parent(call), cst.Await) else call)
        return out

    def _bound_name(self, expr: cst.CSTNode) -> tuple[str, cst.CSTNode] | None:
        p = self.parent(expr)
        if isinstance(p, cst.Assign) and len(p.targets) == 1 and isinstance(p.targets[0].target, cst.Name):
            return p.targets[0].target.value, p
        if isinstance(p, cst.AnnAssign) and isinstance(p.target, cst.Name):
            return p.target.value, p
        if isinstance(p, cst.WithItem) and p.asname is not None and isinstance(p.asname.name, cst.Name):
            return p.asname.name.value, p
        return None

    def _uses_after(self, name: str, stmt: cst.CSTNode) -> list[cst.Name]:
        scope = self.scope_of(stmt)
        start = self._where(stmt)[0]
        assigns = self.ix.assigns.get(id(scope) if scope else None, {}).get(name, [])
        later = sorted(self._where(s)[0] for _, s in assigns if self._where(s)[0] > start)
        stop = later[0] if later else 10 ** 9
        out = []
        for n in self.ix.names.get(id(scope) if scope else None, {}).get(name, []):
            line = self._where(n)[0]
            if start <= line < stop or (line >= stop and False):
                p = self.parent(n)
                if isinstance(p, (cst.AssignTarget,)) or (isinstance(p, cst.AsName)):
                    continue
                out.append(n)
        return out

    def _json_site(self, json_expr: cst.CSTNode, typed: Typed | None, site: CallSite) -> None:
        """A parsed v1 JSON body: error reads, list wrapping, field reads, where it flows."""
        route = site.route
        kb = self.kb
        p = self.parent(json_expr)
        key = self._read_key(json_expr)
        if key is not None and key[0] in kb.error_keys:
            self._error_read(key, route)
            return
        if typed is None:
            return
        if typed.shape == "list":
            list_key = kb.list_key(typed.route)
            if key is not None and key[0] == list_key:
                return
            target = json_expr
            self._edit(Edit("subscript", target, "Q02" if typed.route.op.shape == "list" else "Q25", list_key))
            self._find(json_expr, "Q02" if typed.route.op.shape == "list" else "Q25", "list-read",
                       f"v2 wraps the list: read [{list_key!r}]", True, route)
        self._flow(json_expr, typed, depth=0)

    def _read_key(self, expr: cst.CSTNode) -> tuple[str, cst.CSTNode, str] | None:
        """(key, key node, how) when `expr` is read as expr["key"] or expr.get("key")."""
        p = self.parent(expr)
        if isinstance(p, cst.Subscript) and p.value is expr and len(p.slice) == 1:
            el = p.slice[0].slice
            if isinstance(el, cst.Index):
                k = _str_of(el.value)
                if k is not None:
                    return k, el.value, "subscript"
        if isinstance(p, cst.Attribute) and p.value is expr and p.attr.value == "get":
            call = self.parent(p)
            if isinstance(call, cst.Call) and call.args:
                k = _str_of(call.args[0].value)
                if k is not None:
                    return k, call.args[0].value, "get"
        return None

    def _error_read(self, key: tuple[str, cst.CSTNode, str], route: Route | None) -> None:
        self.read_keys.add(id(key[1]))
        new = self.kb.v2_error_key
        self._edit(Edit("key", key[1], "Q29", new))
        self._find(key[1], "Q29", "error-read", f"error body read [{key[0]!r}] -> [{new!r}]", True, route)

    def _flow(self, expr: cst.CSTNode, typed: Typed, depth: int) -> None:
        """Follow a typed expression: variables, loops, indexing, returns, field reads."""
        if depth > 6:
            return
        key = self._read_key(expr)
        if key is not None:
            if key[0] in self.kb.error_keys:
                self._error_read(key, typed.route)
                return
            if typed.shape == "object":
                self._field_read(key, typed)
            elif typed.shape == "list" and key[2] == "subscript" and False:
                pass
            return
        p = self.parent(expr)
        if typed.shape == "list":
            if isinstance(p, cst.Subscript) and p.value is expr:
                self._flow(p, Typed(typed.route, "object"), depth + 1)
                return
            if isinstance(p, (cst.For, cst.CompFor)) and p.iter is expr:
                target = p.target
                if isinstance(target, cst.Name):
                    if isinstance(p, cst.For):
                        for use in self._names_in(p.body, target.value):
                            self._flow(use, Typed(typed.route, "object"), depth + 1)
                    else:
                        comp = self.parent(p)
                        for use in self._names_in(comp, target.value):
                            if use is not target:
                                self._flow(use, Typed(typed.route, "object"), depth + 1)
                return
        if isinstance(p, cst.Return):
            fn = self.scope_of(p)
            if fn is not None:
                self.fn_returns.setdefault(fn.name.value, typed)
            return
        var = self._bound_name(expr)
        if var is not None:
            name, stmt = var
            for use in self._uses_after(name, stmt):
                if self._where(use)[0] == self._where(stmt)[0] and isinstance(self.parent(use), cst.AssignTarget):
                    continue
                self._flow(use, typed, depth + 1)

    def _names_in(self, root: cst.CSTNode, name: str) -> list[cst.Name]:
        found: list[cst.Name] = []

        class V(cst.CSTVisitor):
            def visit_Name(self, node: cst.Name) -> None:
                if node.value == name:
                    found.append(node)

        root.visit(V())
        return found

    def _field_read(self, key: tuple[str, cst.CSTNode, str], typed: Typed) -> None:
        route = typed.route
        map_id = route.op.response
        if map_id is None:
            return
        rmap = self.kb.mappings.responses[map_id]
        name, node, how = key
        spec = rmap.fields.get(name)
        if spec is None:
            return
        self.read_keys.add(id(node))
        rule = spec.rule or "L02"
        if spec.values and spec.rule is not None:
            self._polling_loop(node, spec.rule, route)
        if spec.omit or spec.has_const or spec.convert or spec.values and False:
            if spec.rule is not None:
                self._manual(node, spec.rule, "response-field", route,
                             f"v1 field {name!r}: {self._rule_text(spec.rule)}")
            return
        source = spec.source
        if source is None or source == name:
            return
        if "." in source:
            parts = source.split(".")
            if any(part.isdigit() for part in parts):
                self._manual(node, rule, "response-field", route, f"v1 field {name!r} -> {source}")
                return
            outer = self.parent(node)
            while outer is not None and not isinstance(outer, (cst.Subscript, cst.Call)):
                outer = self.parent(outer)
            if outer is None:
                return
            self._edit(Edit("path-read", outer, rule, (how, parts, node)))
        else:
            self._edit(Edit("key", node, rule, source))
        self._find(node, rule, "response-field", f"v1 field {name!r} -> {source!r}", True, route)

    def _propagate_returns(self) -> bool:
        """Calls to module functions that return v1 JSON are v1 JSON too."""
        changed = False
        for call in self.ix.calls:
            name = call.func.attr.value if isinstance(call.func, cst.Attribute) else (call.func.value if isinstance(call.func, cst.Name) else None)
            if not name or name not in self.fn_returns or id(call) in self.typed_exprs:
                continue
            if len(self.ix.functions.get(name, [])) != 1:
                continue
            typed = self.fn_returns[name]
            self.typed_exprs[id(call)] = typed
            expr: cst.CSTNode = call
            if isinstance(self.parent(call), cst.Await):
                expr = self.parent(call)
            self._flow(expr, typed, 0)
            changed = True
        return changed

    def _polling_loop(self, key_node: cst.CSTNode, rule: str, route: Route) -> None:
        """A field whose values changed meaning, tested to end a loop: the loop gets the rule's remedy.

        `while pod["desiredStatus"] != "RUNNING"` (or an `if ...: break` inside a loop) waits for
        a value; in v2 the field may also take values v1 never had (ERROR), so a loop written
        for v1 can spin forever. The field rename is still made; the loop needs a human.
        """
        child: cst.CSTNode = key_node
        cur = self.parent(key_node)
        while cur is not None:
            if isinstance(cur, cst.While) and cur.test is child:
                self._manual(cur, rule, "response-field", route)
                return
            if isinstance(cur, cst.If) and cur.test is child:
                if not self._exits(cur.body):
                    return
                loop = self.parent(cur)
                while loop is not None and not isinstance(loop, (cst.While, cst.For, cst.FunctionDef)):
                    loop = self.parent(loop)
                if isinstance(loop, (cst.While, cst.For)):
                    self._manual(loop, rule, "response-field", route)
                return
            if isinstance(cur, (cst.BaseStatement, cst.BaseSuite, cst.Lambda)):
                return
            child, cur = cur, self.parent(cur)

    @staticmethod
    def _exits(body: cst.CSTNode) -> bool:
        found = []

        class V(cst.CSTVisitor):
            def visit_Break(self, node: cst.Break) -> None:
                found.append(node)

            def visit_Return(self, node: cst.Return) -> None:
                found.append(node)

            def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
                return False

        body.visit(V())
        return bool(found)

    def _except_error_reads(self, site: CallSite, route: Route) -> None:
        """`except HTTPError as e: e.response.json()["message"]` around a v1 call reads a v1 error body."""
        child: cst.CSTNode = site.call
        cur = self.parent(child)
        while cur is not None and not isinstance(cur, (cst.FunctionDef, cst.ClassDef)):
            if isinstance(cur, (cst.Try, cst.TryStar)) and cur.body is child:
                for handler in cur.handlers:
                    if handler.name is None or not isinstance(handler.name.name, cst.Name):
                        continue
                    for use in self._names_in(handler.body, handler.name.name.value):
                        response = self.parent(use)
                        if not (isinstance(response, cst.Attribute) and response.value is use and response.attr.value == "response"):
                            continue
                        json_attr = self.parent(response)
                        if not (isinstance(json_attr, cst.Attribute) and json_attr.attr.value == "json"):
                            continue
                        call = self.parent(json_attr)
                        if isinstance(call, cst.Call) and not call.args:
                            key = self._read_key(call)
                            if key is not None and key[0] in self.kb.error_keys:
                                self._error_read(key, route)
            child, cur = cur, self.parent(cur)

    def _handed_in_reads(self) -> None:
        """v1-only field names read on objects the detector cannot type (a parameter, a loop variable
        over data from elsewhere): findings for the audit (`attributed=False`), no edit for the rewrite,
        which only changes what it can tie to a v1 call."""
        from codemod.knowledge import handed_in_fields

        names = handed_in_fields()
        reads: list[tuple[str, cst.CSTNode, bool]] = []
        for sub in self.ix.subscripts:
            if len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index):
                key_node = sub.slice[0].slice.value
                name = _str_of(key_node)
                if name in names:
                    reads.append((name, key_node, isinstance(self.parent(sub), cst.AssignTarget)))
        for call in self.ix.calls:
            if isinstance(call.func, cst.Attribute) and call.func.attr.value == "get" and call.args:
                name = _str_of(call.args[0].value)
                if name in names:
                    reads.append((name, call.args[0].value, False))
        for d in self.ix.dicts:
            if id(d) in self.read_keys:
                continue
            for el in d.elements:
                if isinstance(el, cst.DictElement):
                    name = _str_of(el.key)
                    if name in names:
                        reads.append((name, el.key, True))
        for name, key_node, written in reads:
            if id(key_node) in self.read_keys:
                continue
            kind = "body-field" if written else "response-field"
            rules = names[name]
            for rule in rules:
                self._find(key_node, rule, kind, f"v1 field {name!r} on an object from elsewhere: "
                           + self._rule_text(rule), False, attributed=False)

    # ------------------------------------------------------- loose strings
    def _standalone_string(self, node: cst.CSTNode) -> None:
        """A v1 address in any string (a base constant, a URL in a dict): host, and method-free renames."""
        pieces = self.evaluate(node, self.scope_of(node), MAX_DEPTH - 1)
        if not any(p.node is not None for p in pieces):
            return
        flat = flatten(pieces)
        kind, start, host_edit = self.classify(flat)
        if kind == "runtime":
            self.result.serverless_runtime = True
            return
        if kind == "v2":
            self.result.uses_v2 = True
            return
        if kind != "v1" or host_edit is None:
            return
        if not SCHEME.match(flat):
            return
        info = UrlInfo("v1", pieces, start, len(flat), host_edit)
        before = len(self.string_edits)
        self._host_edit(info, None)
        path = flat[start:].split("?")[0]
        if path.strip("/"):
            routes = self.kb.match(path.rstrip("/"), None)
            targets = {(r.v2_segments, bool(r.action_body), r.v2_method == r.method) for r in routes}
            if len(targets) == 1 and routes[0].v2_segments is not None and not routes[0].action_body and len(routes[0].v2_segments) == len(routes[0].v1_segments):
                route = routes[0]
                segs = path.strip("/").split("/")
                pos = start + 1
                for i, (a, b) in enumerate(zip(route.v1_segments, route.v2_segments)):
                    if not a.startswith("{") and a != b:
                        o = span_origin(pieces, pos, pos + len(segs[i]))
                        if o is not None:
                            self._string_edit(o[0], o[1], o[2], b, "Q01" if "Q01" in route.op.rules else "L01")
                    pos += len(segs[i]) + 1
        line_node = node
        self._find(line_node, "L01", "base-url", f"v1 base address -> {self.v2_base}", True)
        del before


def analyze_python(source: str, path: str, *, v2_base: str | None = None) -> PythonAnalysis:
    """Find v1 usage in one Python module (and plan its rewrite). Never raises on bad input."""
    try:
        return Analyzer(source, path, knowledge(), v2_base).run()
    except RecursionError:
        return PythonAnalysis(path=path, error="too deeply nested to analyse")
