"""Positions of a statement's calls, dicts and string literals read from CPython's `ast`, without generating code.

libcst places a node by generating the code of its whole top-level statement (`syntax.LazyPositions`), a Python
call or more per node of it; the audit asks for the positions of a few calls, dicts and strings of it. CPython's
parser, in C, already gives every call, dict and string its start and end (`lineno`, `col_offset` in UTF-8
bytes, ...). A libcst node and an `ast` node are taken for the same one only when nothing else of the statement
could be: the same kind, a description (a call's callee and arguments, a string's spelling) that no other node of
that kind in the statement shares, on either side, and the source text at the `ast` position that the libcst
node spells (a string's text, a call's callee and closing parenthesis, a dict's braces). Anything else, and
anything inside an f-string (whose inner positions CPython 3.11 does not always get right), is left to the
code generation."""
from __future__ import annotations

import ast

import libcst as cst

Placed = tuple[int, int, int, int]  # (start line, start column, end line, end column) as libcst counts them

LOCATED = (cst.Call, cst.Dict, cst.SimpleString)  # the kinds placed here


def _dotted(node: cst.BaseExpression) -> str | None:
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def _ast_dotted(node: ast.expr) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _cst_key(node: cst.CSTNode) -> tuple | None:
    if isinstance(node, cst.SimpleString):
        return ("s", node.value)
    if isinstance(node, cst.Call):
        func = node.func
        callee = _dotted(func)
        if callee is None:
            callee = "." + func.attr.value if isinstance(func, cst.Attribute) else type(func).__name__
        return ("c", callee, tuple("**" if a.star == "**" else "*" if a.star == "*" else
                                   (a.keyword.value if a.keyword is not None else "") for a in node.args))
    if isinstance(node, cst.Dict):
        return ("d", len(node.elements))
    return None


def _ast_key(node: ast.AST, text: str) -> tuple | None:
    if isinstance(node, ast.Constant):
        return ("s", text) if isinstance(node.value, (str, bytes)) else None
    if isinstance(node, ast.Call):
        func = node.func
        callee = _ast_dotted(func)
        if callee is None:
            callee = "." + func.attr if isinstance(func, ast.Attribute) else _AST_CALLEE.get(type(func), "?")
        args = []
        # source order of positional and keyword arguments: libcst keeps it; ast splits them, so they are merged
        # by position (a keyword after a `*args` is legal)
        spelled = [(a.lineno, a.col_offset, "*" if isinstance(a, ast.Starred) else "") for a in node.args]
        spelled += [(k.lineno, k.col_offset, "**" if k.arg is None else k.arg) for k in node.keywords]
        spelled.sort()
        args = tuple(s[2] for s in spelled)
        return ("c", callee, args)
    if isinstance(node, ast.Dict):
        return ("d", len(node.keys))
    return None


_KINDS = {ast.Constant: "s", ast.Call: "c", ast.Dict: "d"}

# fields of ast nodes that hold no call, dict or string: names, flags, contexts and operators (Load(), Add()...)
_NO_CHILD = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "name", "names", "module", "level", "kind",
                       "conversion", "is_async", "simple", "tag", "type_comment", "kwd_attrs"})
_CHILDREN: dict[type, tuple[str, ...]] = {}  # an ast class (or a value met in a list: None, a str) -> fields to walk

# ast's class of a callee that is not a name or attribute -> the libcst class name _cst_key gives it
_AST_CALLEE = {ast.Call: "Call", ast.Subscript: "Subscript", ast.Lambda: "Lambda", ast.Constant: "?"}


def _column(source: str, offsets: list[int], line: int, byte_column: int) -> int | None:
    """ast's byte column on LINE as libcst counts it (characters)."""
    if not 0 < line <= len(offsets):
        return None
    start = offsets[line - 1]
    end = offsets[line] if line < len(offsets) else len(source)
    text = source[start:end]
    if text.isascii():
        return byte_column
    return len(text.encode("utf-8")[:byte_column].decode("utf-8", errors="replace"))


def locate(top: cst.CSTNode, nodes: list[cst.CSTNode], statements: list[ast.stmt], source: str,
           offsets: list[int], ascii_only: bool = False) -> dict[int, Placed]:
    """id(node) -> its position, for the NODES (calls, dicts, strings of TOP, in any order) that the `ast`
    STATEMENTS (TOP's, as CPython parsed them) place beyond doubt. SOURCE's lines start at OFFSETS; ASCII_ONLY:
    SOURCE is ASCII (a byte column is a character column)."""
    mine: dict[tuple, list] = {}
    for node in nodes:
        key = _cst_key(node)
        if key is not None:
            mine.setdefault(key, []).append(node)
    if not mine:
        return {}
    kinds = {key[0] for key in mine}
    theirs: dict[tuple, list] = {}
    stack: list = list(statements)
    while stack:
        node = stack.pop()
        cls = type(node)
        if cls is ast.JoinedStr:
            continue  # an f-string's inner positions: libcst's code generation places them
        kind = _KINDS.get(cls)
        if kind is not None and kind in kinds:
            placed = _placed(node, source, offsets, ascii_only)
            if placed is not None:
                key = _ast_key(node, _text(source, offsets, placed) if kind == "s" else "")
                if key is not None and key in mine:
                    theirs.setdefault(key, []).append((node, placed))
        if cls is ast.Constant:
            continue
        names = _CHILDREN.get(cls)
        if names is None:
            names = _CHILDREN[cls] = tuple(name for name in getattr(cls, "_fields", ()) if name not in _NO_CHILD)
        for name in names:
            value = getattr(node, name)
            if type(value) is list:
                stack.extend(value)
            elif value is not None:
                stack.append(value)
    out: dict[int, Placed] = {}
    for key, found in theirs.items():
        candidates = mine[key]
        if len(found) != 1 or len(candidates) != 1:
            continue
        node, placed = found[0]
        if _agrees(candidates[0], node, _text(source, offsets, placed)):
            out[id(candidates[0])] = placed
    return out


def _placed(node: ast.AST, source: str, offsets: list[int], ascii_only: bool) -> Placed | None:
    end_line, end_col = node.end_lineno, node.end_col_offset
    if end_line is None or end_col is None:
        return None
    if ascii_only:
        return node.lineno, node.col_offset, end_line, end_col
    start = _column(source, offsets, node.lineno, node.col_offset)
    end = _column(source, offsets, end_line, end_col)
    if start is None or end is None:
        return None
    return node.lineno, start, end_line, end


def _text(source: str, offsets: list[int], placed: Placed) -> str:
    return source[offsets[placed[0] - 1] + placed[1]: offsets[placed[2] - 1] + placed[3]]


def _agrees(mine: cst.CSTNode, theirs: ast.AST, text: str) -> bool:
    """Does the source at the `ast` node's position spell what the libcst node does (as far as it cheaply can)?"""
    if isinstance(mine, cst.SimpleString):
        return text == mine.value
    if isinstance(mine, cst.Dict):
        return text.startswith("{") and text.endswith("}")
    if isinstance(mine, cst.Call):
        callee = _dotted(mine.func)
        if not text.endswith(")"):
            return False
        return callee is None or text.startswith(callee.split(".", 1)[0])
    return False
