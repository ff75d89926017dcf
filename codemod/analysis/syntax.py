"""Syntax index of one module: parents, scopes, calls, assignments, imports; literal pieces and their offsets.

`Indexer.walk` reads the libcst node dataclasses' fields directly (libcst's own
visit rebuilds every node on the way back up, which made this the costliest
step of a run); positions come from `PositionProvider` without
`MetadataWrapper` (which adds a full extra visit).
"""
from __future__ import annotations

import ast
import dataclasses
import functools
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import NEWLINE_RE

from codemod.analysis.codegen import LeanState, code, lean
from codemod.analysis.located import LOCATED, locate
from codemod.knowledge import HOLE


@dataclass(frozen=True)
class Piece:
    text: str | None  # None: a hole
    node: cst.CSTNode | None = None  # editable literal holding `text`
    offset: int = 0
    param: str | None = None  # the hole is this function parameter


_LITERALS: dict[str, tuple[str | None, bool]] = {}  # a literal's spelling -> literal_value (an ast parse each)


ENV_GETTERS = ("os.getenv", "os.environ.get")


def constant_literal(value: cst.CSTNode) -> cst.SimpleString | None:
    """The literal a module constant holds: `NAME = "..."`, or the default of `NAME = os.environ.get("VAR", "...")`
    (the value a run without the variable uses, and the text a migration edits)."""
    if isinstance(value, cst.SimpleString):
        return value
    if isinstance(value, cst.Call) and dotted(value.func) in ENV_GETTERS and len(value.args) == 2 \
            and value.args[1].keyword is None and isinstance(value.args[1].value, cst.SimpleString):
        return value.args[1].value
    return None


def literal_value(node: cst.SimpleString) -> tuple[str | None, bool]:
    """(value, editable): editable when source offsets equal value offsets. Worked out once per spelling: the
    same literals recur (a path, a header), and libcst evaluates one by parsing it."""
    found = _LITERALS.get(node.value)
    if found is None:
        if len(_LITERALS) >= 100_000:
            _LITERALS.clear()
        found = _LITERALS[node.value] = _literal_value(node)
    return found


def _literal_value(node: cst.SimpleString) -> tuple[str | None, bool]:
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


def callee_name(node: cst.CSTNode) -> str:
    """A call's callee as written: `fetch_json`, `client.get_json`; the attribute chain after a call or a subscript
    (`self.session().get` -> `get`); "" for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = callee_name(node.value)
        return f"{inner}.{node.attr.value}" if inner else node.attr.value
    return ""


_PATH_SHAPE = re.compile(r"[A-Za-z0-9/_{}\x00-]+")  # a path and nothing else: no host, no spaces, no query


def path_segments(node: cst.CSTNode) -> tuple[str, ...] | None:
    """The segments of the path an expression spells when it starts with literal path text and is nothing else
    (`"/networkvolumes/" + vid`, `f"/pods/{pod_id}/stop"`): each segment holding an interpolated or unknown part is
    HOLE. None otherwise (a name first, a host, a query, bytes)."""
    text = _spelled(node)
    if not text or text[0] == HOLE or not _PATH_SHAPE.fullmatch(text):
        return None
    return tuple(HOLE if HOLE in seg else seg for seg in text.strip("/").split("/") if seg)


def _spelled(node: cst.CSTNode) -> str | None:
    """The string NODE builds as CPython evaluates it (implicit concatenation, f-strings, `+`), each interpolated or
    unknown part as HOLE; None when it holds no str literal."""
    kind = type(node)  # concrete classes: `is` (isinstance against libcst's ABCs runs Python code)
    if kind is cst.SimpleString:
        return literal_value(node)[0]
    if kind is cst.FormattedString:
        return _formatted(node)
    if kind is cst.ConcatenatedString:
        left, right = _spelled(node.left), _spelled(node.right)
        return None if left is None or right is None else left + right  # None: bytes (all of it, or a syntax error)
    if kind is cst.BinaryOperation and type(node.operator) is cst.Add:
        left, right = _spelled(node.left), _spelled(node.right)
        if left is None and right is None:
            return None
        return (HOLE if left is None else left) + (HOLE if right is None else right)
    return None


def _formatted(node: cst.FormattedString) -> str:
    raw = "r" in node.prefix.lower()
    out = []
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            text = part.value.replace("{{", "{").replace("}}", "}")
            if "\\" in text and not raw:
                try:
                    text = ast.literal_eval(node.quote + text + node.quote)
                except (SyntaxError, ValueError):
                    text = "\\"
            out.append(text)
        else:  # `{x=}` spells `x=` before the value: never a path
            out.append(("=" if part.equal is not None else "") + HOLE)
    return "".join(out)


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


def parse_module(source: str) -> cst.Module:
    """`cst.parse_module`, without validating each node as the parser makes it: a parse makes valid nodes by
    construction (libcst's own note on `CSTNode.__post_init__` says so), and the checks (a regex per whitespace
    node) were a fifth of the parse. Nodes made afterwards (the rewrite's edits) are validated as always; the
    analysis runs in one thread."""
    node = cst.CSTNode
    validate = node.__dict__["__post_init__"]
    node.__post_init__ = _made_by_the_parser  # type: ignore[method-assign]
    try:
        return cst.parse_module(source)
    finally:
        node.__post_init__ = validate  # type: ignore[method-assign]


def _made_by_the_parser(self) -> None:
    return None


@functools.lru_cache(maxsize=1024)
def snippet_expression(code: str) -> cst.BaseExpression:
    """`cst.parse_expression(CODE)`, parsed once per text: an edit puts the same snippet in many calls (an action
    body in each of a large module's stop calls). The node is shared by every edit that asks for it; libcst nodes
    are immutable, and the rewritten tree is only turned into code."""
    return cst.parse_expression(code)


def positions(module: cst.Module):
    """Start/end of every node, as libcst's PositionProvider gives them (the reference `_PlacingState` is tested
    against). The provider's own code generation only: going through MetadataWrapper adds a full visit of the
    module that the positions do not need."""
    try:
        provider = PositionProvider()
        provider._gen_impl(module)  # noqa: SLF001 - libcst's documented provider, minus the wrapper
        return provider._computed
    except Exception:  # a libcst without these internals: the public, slower way
        return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)


class _Recording:
    """`with state.record_syntactic_position(node, ...)` of `_PlacingState` (libcst's is a generator-based
    context manager: an object and a generator per node)."""

    __slots__ = ("state", "node", "start_node", "end_node", "line", "column")

    def __init__(self, state: "_PlacingState", node, start_node, end_node) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node
        self.line, self.column = state.line, state.column

    def __enter__(self) -> None:
        return None

    def __exit__(self, *_exc) -> bool:
        state = self.state
        placed = state.placed
        start = placed[id(self.start_node)] if self.start_node is not None else (self.line, self.column)
        end = placed[id(self.end_node)] if self.end_node is not None else (0, 0, state.line, state.column)
        placed[id(self.node)] = (start[0], start[1], end[2], end[3])
        return False


class _PlacedParens:
    """`with node._parenthesize(state)` of `_PlacingState` while `codegen.lean` is in force: the parentheses, and
    the node's syntactic position between them (as libcst's `record_syntactic_position` inside it records)."""

    __slots__ = ("state", "node", "line", "column")

    def __init__(self, state: "_PlacingState", node) -> None:
        self.state, self.node = state, node

    def __enter__(self) -> None:
        state = self.state
        for lpar in self.node.lpar:
            lpar._codegen(state)  # noqa: SLF001 - libcst's codegen, as its _parenthesize does
        self.line, self.column = state.line, state.column

    def __exit__(self, exc_type, *_exc) -> bool:
        state = self.state
        state.placed[id(self.node)] = (self.line, self.column, state.line, state.column)
        if exc_type is None:
            for rpar in self.node.rpar:
                rpar._codegen(state)  # noqa: SLF001
        return False


class _PlacingState(LeanState):
    """libcst's PositionProvidingCodegenState, doing the same arithmetic in less Python: a position is a tuple
    (start line, start column, end line, end column) keyed by id(node), made a CodeRange only when asked for
    (LazyPositions). libcst's state builds three frozen dataclasses and two generator context managers per node,
    most of the cost of an analysis' positions. Equal to `positions` on every node: tests/codemod/test_positions.py.
    Under `codegen.lean(_placing_codegen)` it also records each node's span (codemod.analysis.codegen)."""

    __slots__ = ("line", "column", "placed", "_stack")

    def __init__(self, default_indent: str, default_newline: str, line: int = 1,
                 spans: dict | None = None) -> None:
        super().__init__(default_indent, default_newline, spans)
        self.line, self.column = line, 0
        self.placed: dict[int, tuple[int, int, int, int]] = {}
        self._stack: list[tuple[int, int]] = []

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        if "\n" in value or "\r" in value:
            segments = NEWLINE_RE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)

    def pop_trailing_newline(self) -> None:
        """As libcst's (the last token goes, the position stays), on a copy: the spans keep the tokens they
        recorded."""
        if self.tokens:
            self.tokens = self.tokens[:-1]

    def before_codegen(self, node) -> None:
        self._stack.append((self.line, self.column))

    def after_codegen(self, node) -> None:
        line, column = self._stack.pop()
        if id(node) not in self.placed:  # a syntactic position recorded inside the node's code stays
            self.placed[id(node)] = (line, column, self.line, self.column)

    def record_syntactic_position(self, node, *, start_node=None, end_node=None) -> _Recording:
        return _Recording(self, node, start_node, end_node)

    def parenthesized(self, node) -> _PlacedParens:
        return _PlacedParens(self, node)


def _placing_codegen(self, state: _PlacingState, **kwargs) -> None:
    """`CSTNode._codegen` for `_PlacingState` (its before/after_codegen in one frame), recording the node's span."""
    tokens = state.tokens
    start, line, column, indent = len(tokens), state.line, state.column, state.indent
    self._codegen_impl(state, **kwargs)  # noqa: SLF001
    key = id(self)
    if key not in state.placed:  # a syntactic position recorded inside the node's code stays
        state.placed[key] = (line, column, state.line, state.column)
    if not kwargs:
        state.spans[key] = (tokens, start, len(tokens), indent)


def _code_range(placed: tuple[int, int, int, int]) -> CodeRange:
    return CodeRange(CodePosition(placed[0], placed[1]), CodePosition(placed[2], placed[3]))


class LazyPositions(Mapping):
    """`positions(module)`, computed one top-level statement at a time, when a node inside it is first asked for.

    libcst computes positions by generating the code of the whole module, the costliest step of an analysis;
    most statements of a module never need one. A top-level statement's code starts on a line of its own, so
    its positions are those of its code generated alone, moved to the line its first token is on (CPython's
    `ast` says which, for the price of a parse in C), and that code must be the source's text at that line.
    Any doubt (a node outside the module's statements, no `ast` tree or a different count of statements, text
    that differs) and the whole module's positions are computed, as before."""

    def __init__(self, module: cst.Module, source: str, parent: dict[int, cst.CSTNode],
                 index: "Indexer | None" = None) -> None:
        self.module, self.source, self.parent = module, source, parent
        self.index = index  # the module's Indexer: its calls, dicts and strings may be placed by `ast` (located)
        self.statements: dict[int, list[ast.stmt]] = {}  # id(top-level statement) -> its `ast` statements
        self.located: dict[int, dict[int, tuple[int, int, int, int]]] = {}  # id(top) -> what `ast` placed in it
        self.located_nodes: dict[int, list[cst.CSTNode]] | None = None  # id(top) -> its calls, dicts, strings
        self.blocks: dict[int, dict[int, list[ast.stmt]]] = {}  # id(IndentedBlock) -> its statements' `ast` ones
        self.one_lines: dict[int, int | None] = {}  # id(SimpleStatementLine) -> its line if it is one (_one_line)
        # a lone CR: CPython's lines are not libcst's (the code generation says where a node is, not `ast`)
        self.lone_cr = "\r" in source and source.count("\r") != source.count("\r\n")
        self.ascii = source.isascii()  # `ast`'s byte columns are libcst's character columns
        self.placed: dict[int, tuple[int, int, int, int]] = {}  # id(node) -> its position as _PlacingState has it
        self.computed: dict[int, CodeRange] = {}  # id(node) -> the CodeRange made of it, once asked for
        self.done: set[int] = set()  # id() of the top-level statements computed
        self.lines: dict[int, int] | None = None  # id(top-level statement) -> line of its first token
        self.offsets: list[int] = []  # offset in the source where each line starts
        self.whole = False
        self.spans: dict = {}  # id(node) -> its tokens in the code generated here (codemod.analysis.codegen)

    def _statement_lines(self) -> dict[int, int]:
        """The line each top-level statement's first token is on ({} when `ast` and libcst disagree on them)."""
        try:
            with warnings.catch_warnings():  # an invalid escape in a string is libcst's to accept, not ours to print
                warnings.simplefilter("ignore")
                tree = ast.parse(self.source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return {}
        starts: list[int] = []
        groups: list[list[ast.stmt]] = []
        end = 0
        for stmt in tree.body:
            if stmt.lineno != end:  # `a = 1; b = 2`: one libcst statement line, two ast statements
                starts.append(stmt.lineno)
                groups.append([])
            groups[-1].append(stmt)
            end = stmt.end_lineno or stmt.lineno
        if len(starts) != len(self.module.body):
            return {}
        self.offsets = [0] + [m.end() for m in NEWLINE_RE.finditer(self.source)]
        self.statements = {id(stmt): group for stmt, group in zip(self.module.body, groups)}
        return {id(stmt): line for stmt, line in zip(self.module.body, starts)}

    def _located(self, node: cst.CSTNode) -> tuple[int, int, int, int] | None:
        """NODE's position as CPython's `ast` gives it (codemod.analysis.located), None when it does not say."""
        top, up = node, self.parent.get(id(node))
        while up is not None and up is not self.module:
            top, up = up, self.parent.get(id(up))
        if up is None:
            return None
        table = self.located.get(id(top))
        if table is None:
            if self.lines is None:
                self.lines = self._statement_lines()
            statements = self.statements.get(id(top))
            if statements is None or self.lone_cr:
                return None
            if self.located_nodes is None:
                self.located_nodes = self._by_statement()
            table = self.located[id(top)] = locate(top, self.located_nodes.get(id(top), []), statements,
                                                   self.source, self.offsets, self.ascii)
        return table.get(id(node))

    def line_of(self, node: cst.CSTNode) -> int:
        """The line NODE starts on (`self[node].start.line`; KeyError for a node not in the module). Inside a
        statement line that CPython's `ast` says is one line of the source, that line: nothing is generated."""
        placed = self.placed.get(id(node))
        if placed is not None:
            return placed[0]
        if not self.whole:
            line = self._one_line(node)
            if line is not None:
                return line
        return self[node].start.line

    def _one_line(self, node: cst.CSTNode) -> int | None:
        """The line of the statement line NODE is in (or is), when `ast` places that statement line, through the
        bodies of the compound statements around it, on one line; None otherwise."""
        parent, line_stmt = self.parent, node
        while type(line_stmt) is not cst.SimpleStatementLine:
            line_stmt = parent.get(id(line_stmt))
            if line_stmt is None:
                return None
        key = id(line_stmt)
        if key in self.one_lines:
            return self.one_lines[key]
        line = self.one_lines[key] = self._statement_line(line_stmt)
        return line

    def _statement_line(self, line_stmt: cst.SimpleStatementLine) -> int | None:
        path, up = [line_stmt], self.parent.get(id(line_stmt))
        while up is not None and up is not self.module:
            path.append(up)
            up = self.parent.get(id(up))
        if up is None or self.lone_cr:
            return None
        if self.lines is None:
            self.lines = self._statement_lines()
        group = self.statements.get(id(path[-1]))
        i = len(path) - 1
        while group is not None and i > 0:  # path[i]: a compound statement, path[i - 1] its body
            block = path[i - 1]
            if len(group) != 1 or block is not getattr(path[i], "body", None) or type(block) is not cst.IndentedBlock:
                return None
            group = self._block(block, group[0]).get(id(path[i - 2]))
            i -= 2
        if group is None:
            return None
        first = group[0].lineno
        return first if all(stmt.end_lineno == first for stmt in group) else None

    def _block(self, block: cst.IndentedBlock, statement: ast.stmt) -> dict[int, list[ast.stmt]]:
        """id(statement of BLOCK) -> its `ast` statements in STATEMENT's body ({} when they do not pair up)."""
        found = self.blocks.get(id(block))
        if found is None:
            groups: list[list[ast.stmt]] = []
            end = 0
            for stmt in getattr(statement, "body", ()):
                if stmt.lineno != end:  # `a = 1; b = 2`: one libcst statement line, two ast statements
                    groups.append([])
                groups[-1].append(stmt)
                end = stmt.end_lineno or stmt.lineno
            found = self.blocks[id(block)] = {id(stmt): group for stmt, group in zip(block.body, groups)} \
                if len(groups) == len(block.body) else {}
        return found

    def _by_statement(self) -> dict[int, list[cst.CSTNode]]:
        """The index's calls, dicts and plain strings, by the top-level statement they are in."""
        ix, parent, module = self.index, self.parent, self.module
        out: dict[int, list[cst.CSTNode]] = {}
        for node in [*ix.calls, *ix.dicts, *(s for s in ix.strings if type(s) is cst.SimpleString)]:
            top, up = node, parent.get(id(node))
            while up is not None and up is not module:
                top, up = up, parent.get(id(up))
            if up is not None:
                out.setdefault(id(top), []).append(node)
        return out

    def _compute_all(self) -> None:
        self.whole = True
        try:
            self.spans = {}
            state = _PlacingState(self.module.default_indent, self.module.default_newline, spans=self.spans)
            with lean(_placing_codegen):
                self.module._codegen(state)  # noqa: SLF001 - as `positions`, with the leaner state
            self.spans.pop(id(self.module), None)  # its code lost the final newline its statements hold
            self.placed = state.placed
        except Exception:  # a libcst without these internals
            self.placed = {id(node): (r.start.line, r.start.column, r.end.line, r.end.column)
                           for node, r in positions(self.module).items()}
            self.spans = {}
        self.computed = {}

    def _compute(self, node: cst.CSTNode) -> None:
        top, up = node, self.parent.get(id(node))
        while up is not None and up is not self.module:
            top, up = up, self.parent.get(id(up))
        if up is None or id(top) in self.done:  # not inside a statement of the module
            self._compute_all()
            return
        if self.lines is None:
            self.lines = self._statement_lines()
        line = self.lines.get(id(top))
        if line is None:
            self._compute_all()
            return
        self.done.add(id(top))
        first = line - self._lines_before(top)  # the line its code starts on
        try:
            state = _PlacingState(self.module.default_indent, self.module.default_newline, line=first,
                                  spans=self.spans)
            with lean(_placing_codegen):
                top._codegen(state)  # noqa: SLF001 - as `positions`, one statement
        except Exception:  # a libcst without these internals
            self._compute_all()
            return
        placed = state.placed
        if placed[id(top)][0] != line or not 0 < first <= len(self.offsets) \
                or not self._is_source_at("".join(state.tokens), self.offsets[first - 1]):
            self._compute_all()
            return
        self.placed.update(placed)

    def _lines_before(self, top: cst.CSTNode) -> int:
        """Lines of a top-level statement's code above its first token: the comments and blank lines it carries,
        and a definition's decorators."""
        before = len(getattr(top, "leading_lines", ()))
        for decorator in getattr(top, "decorators", ()):
            before += len(NEWLINE_RE.findall(code(decorator, self.module)))
        return before + len(getattr(top, "lines_after_decorators", ()))

    def _is_source_at(self, code: str, offset: int) -> bool:
        """Is CODE the source's text at OFFSET (the last statement of a file with no final newline: but it)?"""
        if self.source.startswith(code, offset):
            return True
        rest = self.source[offset:]
        return code.startswith(rest) and code[len(rest):] in ("\n", "\r\n", "\r")

    def code_of_rewritten(self, rewritten: cst.Module) -> str:
        """`rewritten.code`, REWRITTEN being this module with edits applied: the nodes it shares with this module
        copy the tokens their positions were computed from (codemod.analysis.codegen)."""
        same = (rewritten.default_indent, rewritten.default_newline) == (self.module.default_indent,
                                                                          self.module.default_newline)
        return code(rewritten, rewritten, self.spans if same else None)

    def __getitem__(self, node):
        key = id(node)
        found = self.computed.get(key)
        if found is not None:
            return found
        placed = self.placed.get(key)
        if placed is None and self.index is not None and not self.whole and isinstance(node, LOCATED):
            placed = self._located(node)
        if placed is None and not self.whole:
            self._compute(node)
            placed = self.placed.get(key)
            if placed is None and not self.whole:  # a node the statement's code generation does not place
                self._compute_all()
                placed = self.placed.get(key)
        if placed is None:
            raise KeyError(node)
        found = self.computed[key] = _code_range(placed)
        return found

    def __contains__(self, node) -> bool:
        try:
            self[node]
        except KeyError:
            return False
        return True

    def __iter__(self):
        raise TypeError("LazyPositions answers for one node at a time")

    def __len__(self) -> int:
        raise TypeError("LazyPositions answers for one node at a time")


# The Indexer's dispatch by the node's class, worked out once per class: `isinstance` against libcst's classes
# (ABCs) runs Python code each time, millions of times a run.
_OTHER, _FUNCTION, _CLASS, _CALL, _SUBSCRIPT, _ATTRIBUTE, _DICT, _STRING, _NAME, _ASSIGN, _AUG_ASSIGN, _WITH_ITEM, \
    _IMPORT, _IMPORT_FROM, _RETURN = range(15)
_KINDS = ((cst.FunctionDef, _FUNCTION), (cst.ClassDef, _CLASS), (cst.Call, _CALL), (cst.Subscript, _SUBSCRIPT),
          (cst.Attribute, _ATTRIBUTE), (cst.Dict, _DICT),
          ((cst.SimpleString, cst.FormattedString, cst.ConcatenatedString), _STRING), (cst.Name, _NAME),
          ((cst.Assign, cst.AnnAssign), _ASSIGN), (cst.AugAssign, _AUG_ASSIGN), (cst.WithItem, _WITH_ITEM),
          (cst.Import, _IMPORT), (cst.ImportFrom, _IMPORT_FROM), (cst.Return, _RETURN))
_KIND: dict[type, int] = {}
_ITEMS = "items"  # a list or tuple field: its items are walked
_WALKED: dict[type, object] = {}


def _kind_of(cls: type) -> int:
    return next((kind for classes, kind in _KINDS if issubclass(cls, classes)), _OTHER)


def _walked(cls: type) -> object:
    """True: a node the Indexer walks; _ITEMS: a list or tuple of them; False: neither (whitespace, a str)."""
    if cls in (list, tuple):
        return _ITEMS
    return issubclass(cls, cst.CSTNode) and not issubclass(cls, _WHITESPACE)


def returned_name(ret: cst.Return) -> cst.Name | None:
    """The name a `return` gives back: `return NAME`, or the response bound to it as `return NAME.json()` (awaited
    or not); None for any other value."""
    value = ret.value.expression if isinstance(ret.value, cst.Await) else ret.value
    if isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Attribute) \
            and value.func.attr.value == "json":
        value = value.func.value
    return value if isinstance(value, cst.Name) else None


def descendants(node: cst.CSTNode, prune=None):
    """NODE and the nodes under it, in the order a libcst visitor meets them (whitespace left out), without
    descending below a node for which PRUNE(node) is true. A libcst visit rebuilds every node it leaves."""
    yield node
    if prune is not None and prune(node):
        return
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        walked = _WALKED.get(type(value))
        if walked is None:
            walked = _WALKED[type(value)] = _walked(type(value))
        if walked is True:
            yield from descendants(value, prune)
        elif walked is _ITEMS:
            for item in value:
                walked = _WALKED.get(type(item))
                if walked is None:
                    walked = _WALKED[type(item)] = _walked(type(item))
                if walked is True:
                    yield from descendants(item, prune)


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
            walked = _WALKED.get(type(value))
            if walked is None:
                walked = _WALKED[type(value)] = _walked(type(value))
            if walked is True:
                self.walk(value)
            elif walked is _ITEMS:
                for item in value:
                    walked = _WALKED.get(type(item))
                    if walked is None:
                        walked = _WALKED[type(item)] = _walked(type(item))
                    if walked is True:
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
        self.returns: dict[int, list[cst.Return]] = {}  # id(function) -> its own `return`s (not a nested function's)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.stack:
            self.parent[id(node)] = self.stack[-1]
        self.stack.append(node)
        scope = self.scope_stack[-1] if self.scope_stack else None
        self.scope_of[id(node)] = scope
        key = id(scope) if scope is not None else None
        kind = _KIND.get(type(node))
        if kind is None:
            kind = _KIND[type(node)] = _kind_of(type(node))
        if kind == _OTHER:
            return True
        if kind == _FUNCTION:
            self.functions.setdefault(node.name.value, []).append(node)
            if self.class_stack and self.parent_is_class_body(node):
                self.class_of_fn[id(node)] = self.class_stack[-1]
            self.scope_stack.append(node)
        elif kind == _CLASS:
            self.classes[node.name.value] = node
            self.class_stack.append(node)
            self.class_attrs[id(node)] = {}
            self.self_attrs[id(node)] = {}
        elif kind == _CALL:
            self.calls.append(node)
        elif kind == _SUBSCRIPT:
            self.subscripts.append(node)
        elif kind == _ATTRIBUTE:
            self.attributes.setdefault(node.attr.value, []).append(node)
        elif kind == _DICT:
            self.dicts.append(node)
        elif kind == _STRING:
            parent = self.stack[-2] if len(self.stack) > 1 else None
            if not isinstance(parent, (cst.ConcatenatedString, cst.FormattedString)):
                self.strings.append(node)
        elif kind == _NAME:
            self.names.setdefault(key, {}).setdefault(node.value, []).append(node)
        elif kind == _ASSIGN:
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            value = node.value
            if value is not None:
                for target in targets:
                    self._record_target(target, value, node, scope, key)
        elif kind == _AUG_ASSIGN and isinstance(node.target, cst.Name):
            # `url += "/start"`: recorded as a definition whose value is the statement itself (see Strings)
            self.assigns.setdefault(key, {}).setdefault(node.target.value, []).append((node, node))
        elif kind == _WITH_ITEM and node.asname is not None:
            self._record_target(node.asname.name, node.item, node, scope, key)
        elif kind == _RETURN:
            if key is not None:
                self.returns.setdefault(key, []).append(node)
        elif kind == _IMPORT:
            for alias in node.names:
                name = dotted(alias.name)
                if name:
                    local = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else name.split(".")[0]
                    self.imports[local] = name if alias.asname else local
        elif kind == _IMPORT_FROM and node.module is not None and not isinstance(node.names, cst.ImportStar):
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
        kind = _KIND[type(original_node)]  # on_visit classified it
        if kind == _FUNCTION:
            self.scope_stack.pop()
        elif kind == _CLASS:
            self.class_stack.pop()

