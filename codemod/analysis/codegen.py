"""libcst's code generation with less Python per node, and the rewritten module's code from what stayed the same.

libcst generates code by calling `node._codegen(state)` down the tree; each expression goes through
`_parenthesize`, a generator-based context manager (an object and a generator per node), and the plain
`CodegenState` opens another one per `record_syntactic_position`. Positions (`syntax.LazyPositions`) and the
rewritten module's code were a third of a rewrite's CPU, most of it that machinery. While `lean(...)` is in force
(one thread: the analysis runs in one), `CSTNode._codegen` and `_parenthesize` are replaced by plain functions
that emit the very same tokens; the states say what a parenthesized node does.

Spans: the positions pass records, for each node generated without keyword arguments, the tokens it produced
and the indentation it was generated at. The rewritten module shares every node no edit touched with the
original; `code(module, spans)` copies such a node's tokens instead of generating them again, when it meets it
at the same indentation, without keyword arguments (a comma or a semicolon the parent decides), in a module
with the same default indent and newline. The code of a node depends on nothing else, so the text is the same.
"""
from __future__ import annotations

from contextlib import contextmanager

import libcst as cst
from libcst._nodes.expression import _BaseParenthesizedNode
from libcst._nodes.internal import CodegenState

Span = tuple  # (the tokens list, first index, end index, the indentation tuple): one node's tokens in a codegen


class _Nothing:
    """A context manager that does nothing (one, shared)."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *_exc) -> bool:
        return False


NOTHING = _Nothing()


class _Parens:
    """`with node._parenthesize(state)` of a node that has parentheses, the lean way."""

    __slots__ = ("state", "node")

    def __init__(self, state: CodegenState, node) -> None:
        self.state, self.node = state, node

    def __enter__(self) -> None:
        for lpar in self.node.lpar:
            lpar._codegen(self.state)  # noqa: SLF001 - libcst's codegen, as its _parenthesize does

    def __exit__(self, exc_type, *_exc) -> bool:
        if exc_type is None:
            for rpar in self.node.rpar:
                rpar._codegen(self.state)  # noqa: SLF001
        return False


class LeanState(CodegenState):
    """`CodegenState` with the indentation kept as a tuple (compared with a span's), the spans to copy from, and
    no context manager where nothing is recorded."""

    __slots__ = ("indent", "spans")

    def __init__(self, default_indent: str, default_newline: str, spans: dict[int, Span] | None = None) -> None:
        super().__init__(default_indent=default_indent, default_newline=default_newline)
        self.indent: tuple[str, ...] = ()
        self.spans: dict[int, Span] = {} if spans is None else spans

    def increase_indent(self, value: str) -> None:
        self.indent_tokens.append(value)
        self.indent = tuple(self.indent_tokens)

    def decrease_indent(self) -> None:
        self.indent_tokens.pop()
        self.indent = tuple(self.indent_tokens)

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        return NOTHING

    def parenthesized(self, node):
        """What `node._parenthesize(self)` is while `lean` is in force."""
        return _Parens(self, node) if node.lpar or node.rpar else NOTHING


def _parenthesize(self, state):
    return state.parenthesized(self)


def _copying_codegen(self, state: LeanState, **kwargs) -> None:
    """`CSTNode._codegen` for the output: a node met as it was generated before copies its tokens."""
    if not kwargs:
        span = state.spans.get(id(self))
        if span is not None and span[3] == state.indent:
            state.tokens.extend(span[0][span[1]:span[2]])
            return
    self._codegen_impl(state, **kwargs)  # noqa: SLF001 - before/after_codegen do nothing in this state


@contextmanager
def lean(codegen=_copying_codegen):
    """libcst's `CSTNode._codegen` is CODEGEN and `_parenthesize` asks the state, until the block ends."""
    node, parens = cst.CSTNode, _BaseParenthesizedNode
    saved = node.__dict__["_codegen"], parens.__dict__["_parenthesize"]
    node._codegen = codegen  # type: ignore[method-assign]
    parens._parenthesize = _parenthesize  # type: ignore[method-assign]
    try:
        yield
    finally:
        node._codegen, parens._parenthesize = saved  # type: ignore[method-assign]


def code(node: cst.CSTNode, module: cst.Module, spans: dict[int, Span] | None = None) -> str:
    """`module.code_for_node(node)` (`module.code` for the module itself), copying the tokens of the nodes SPANS
    recorded (`syntax.LazyPositions.spans` of the module the node was rewritten from, with the same defaults)."""
    state = LeanState(module.default_indent, module.default_newline, spans)
    with lean():
        node._codegen_impl(state)  # noqa: SLF001 - as code_for_node (the node itself is never copied)
    return "".join(state.tokens)
