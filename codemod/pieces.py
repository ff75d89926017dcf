"""A large module analysed a piece at a time, in bounded memory (issue 23 item 10).

libcst's tree of a module takes hundreds of bytes of memory per byte of source, and the analysis keeps an index
of every node: a module of megabytes needs gigabytes (figures: docs/bench.md, large files). Such a module is nearly always many independent top-level
functions and classes. `split` cuts it at its top-level statements (where the tokens say they end):

- the *shared* statements (imports, constants, module-level code, and the definitions those use) go into
  every piece: each piece is a module of its own that reads the same names;
- the other definitions are grouped with the definitions they name (a helper with its callers), and the
  groups packed into pieces of about PIECE_BYTES.

Each segment of a piece's text follows a marker comment line, so that the rewritten text is cut back into
segments; a shared segment must come out of every piece the same (a base constant migrates with every call
through it, or with none), else the module is analysed whole, as before. Line numbers are mapped back.
"""
from __future__ import annotations

import bisect
import io
import re
import secrets
import sys
import tokenize
from dataclasses import dataclass, field

LARGE_BYTES = 400_000  # a module at least this large is analysed in pieces
PIECE_BYTES = 60_000  # own definitions per piece (about)
SHARED_MAX = 100_000  # more shared text than this (bytes) and the module is analysed whole
SHARED_SHARE = 0.25  # ... or more than this share of the module

_NEWLINE = re.compile(r"\r\n?|\n")
_CLAUSES = frozenset({"else", "elif", "except", "finally"})  # go on the compound statement above them
_F_STRING = re.compile(r"[rRbB]?[fF][rR]?['\"]")
_IDENTIFIER = re.compile(r"[^\W\d]\w*")


@dataclass
class Piece:
    """One piece's text and, for each of its segments in order, (its first line in the piece text, in the module)."""

    text: str
    segments: list[int]
    starts: list[tuple[int, int]] = field(default_factory=list)

    def module_line(self, line: int) -> tuple[int, int]:
        """(line in the module, segment) of LINE of this piece's text."""
        at = max(0, bisect.bisect_right(self.starts, (line, float("inf"))) - 1)
        first, module_first = self.starts[at]
        return module_first + max(0, line - first), self.segments[at]


def keeps(shared: set[int], piece: int, segment: int) -> bool:
    """`Split.keeps` with the split's SHARED segments only (what a piece analysed in another process is given)."""
    return piece == 0 or segment not in shared


@dataclass
class Split:
    segments: list[str]
    shared: set[int]
    pieces: list[Piece]
    marker: re.Pattern

    def keeps(self, piece: int, segment: int) -> bool:
        """Does PIECE report what is found in SEGMENT (a shared segment is reported by the first piece only)?"""
        return keeps(self.shared, piece, segment)

    def chunks(self, text: str, piece: Piece) -> tuple[str, dict[int, str]] | None:
        """A piece's rewritten text cut back at its markers: (text before the first, {segment: its text}); None
        when the markers did not come out one per segment, in order."""
        found = list(self.marker.finditer(text))
        if [int(m.group(1)) for m in found] != piece.segments:
            return None
        out = {}
        for i, m in enumerate(found):
            end = found[i + 1].start() if i + 1 < len(found) else len(text)
            out[piece.segments[i]] = text[m.end():end]
        return text[: found[0].start()] if found else text, out


def _statements(source: str) -> list[list] | None:
    """Each top-level statement of SOURCE: [its last line, a definition?, names it defines, names it spells], from
    the tokens (a stream: CPython's `ast` tree of a large module is itself hundreds of MB). The names of a definition are every
    function and class in it; the names spelled are every name and attribute, and the identifiers of f-strings.

    Tokenized by CPython's C tokenizer, read as the plain tuples it makes, where `tokenize` is pure Python (3.11:
    about 5 times less CPU than `tokenize`, and this runs before the pieces are handed out); it gives the same
    statements (tests/codemod/test_pieces.py). A source it does not read to its end, or with CR line ends or form
    feeds (which `tokenize` reads differently), goes through `tokenize`."""
    if _c_tokens is not None and "\r" not in source and "\x0c" not in source:
        try:
            out, (level, line, last) = _scan(_c_tokens(source))
        except (SyntaxError, ValueError, MemoryError):
            out = None
        # the C tokenizer of 3.11 stops without a word on some errors (and has no ENDMARKER): its answer counts when
        # it read to the end, back at the top level after a statement, with nothing but comments after it
        if out is not None and level == 0 and last in (tokenize.NEWLINE, tokenize.DEDENT) and line > 0 \
                and _TRAILER.fullmatch(source, _line_end(source, line)):
            return out
    try:
        return _scan((tok.string, tok.type, tok.start[0])
                     for tok in tokenize.generate_tokens(io.StringIO(source).readline))[0]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None


def _c_tokenizer():
    """CPython's own tokenizer, where the `tokenize` module is still pure Python (3.11; from 3.12 it is this one):
    its tuples begin (string, type, line), as `_scan` reads them."""
    if sys.version_info >= (3, 12):
        return None
    try:
        from _tokenize import TokenizerIter
    except ImportError:  # pragma: no cover - another Python than CPython
        return None
    return TokenizerIter


_c_tokens = _c_tokenizer()


_TRAILER = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]*(?:#[^\n]*)?")  # blank and comment lines


def _line_end(source: str, line: int) -> int:
    """The offset just past line LINE of SOURCE (lines end with \\n: the C tokenizer reads no other here)."""
    at = -1
    for _ in range(line):
        at = source.find("\n", at + 1)
        if at < 0:
            return len(source)
    return at + 1


# `async` and `await` are NAME tokens of `tokenize`, ASYNC and AWAIT of the C tokenizer
_NAMES = frozenset({tokenize.NAME, getattr(tokenize, "ASYNC", tokenize.NAME), getattr(tokenize, "AWAIT", tokenize.NAME)})
_NOT_READ = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.ENDMARKER})


def _scan(tokens) -> tuple[list[list] | None, tuple[int, int, int | None]]:
    """The statements of TOKENS, each a tuple that begins (string, type, line); and where the stream ended:
    (indentation level, line of the last NEWLINE, type of the last token)."""
    out: list[list] = []
    level = 0
    starting = True  # the next token begins a logical line
    decorated = False  # the logical line before, at the top level, was a decorator
    previous = ""
    newline_at, kind = 0, None
    indent, dedent, newline, string, names, not_read = tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE, \
        tokenize.STRING, _NAMES, _NOT_READ
    for tok in tokens:
        text, kind = tok[0], tok[1]
        if kind == indent:
            level += 1
            continue
        if kind == dedent:
            level -= 1
            continue
        if kind in not_read:
            continue
        if starting and level == 0:
            if not decorated and text not in _CLAUSES:
                out.append([0, text in ("def", "class", "async", "@"), set(), set()])
            decorated = text == "@"
        starting = kind == newline
        if not out:
            return None, (level, newline_at, kind)
        if kind == newline:
            out[-1][0] = newline_at = tok[2]
        elif kind in names:
            out[-1][3].add(text)
            if previous in ("def", "class"):
                out[-1][2].add(text)
        elif kind == string and _F_STRING.match(text):
            out[-1][3].update(_IDENTIFIER.findall(text))
        previous = text
    return out, (level, newline_at, kind)


def split(source: str) -> Split | None:
    """The pieces of a large module, or None: small, not tokenized, or too little of it independent."""
    if len(source) < LARGE_BYTES:
        return None
    statements = _statements(source)
    if statements is None or len(statements) < 2:
        return None
    groups = statements
    offsets = [0] + [m.end() for m in _NEWLINE.finditer(source)]
    # a segment: from the line after the previous statement (its comments and decorators) to its own last line
    segments: list[str] = []
    first_lines: list[int] = []
    breaks: list[int] = []  # line ends in each segment
    line = 1
    for i, (last, _definition, _defines, _names) in enumerate(groups):
        if i == len(groups) - 1 or last >= len(offsets):
            segments.append(source[offsets[line - 1]:])
            breaks.append(len(_NEWLINE.findall(segments[-1])))
        else:
            segments.append(source[offsets[line - 1]:offsets[last]])
            breaks.append(last - line + 1)
        first_lines.append(line)
        line = last + 1
    if "".join(segments) != source:
        return None
    # what each definition defines (every function, method and class in it: the analysis follows a call to any
    # function of the module by its name, `client.list_pods()` too) and what each statement names
    definition = {i for i, (_last, is_definition, _defines, _names) in enumerate(groups) if is_definition}
    defined_at: dict[str, list[int]] = {}
    for i in definition:
        for name in groups[i][2]:
            defined_at.setdefault(name, []).append(i)
    named = [g[3] for g in groups]
    parent = list(range(len(groups)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    defined = defined_at.keys()
    for i in definition:
        for name in named[i] & defined:  # (a set operation: most names a statement spells are defined nowhere)
            for j in defined_at[name]:
                parent[root(j)] = root(i)
    shared_roots = {root(j) for i in range(len(groups)) if i not in definition
                    for name in named[i] & defined for j in defined_at[name]}
    shared = {i for i in range(len(groups)) if i not in definition or root(i) in shared_roots}
    if sum(len(segments[i]) for i in shared) > min(SHARED_MAX, len(source) * SHARED_SHARE):
        return None
    components: dict[int, list[int]] = {}
    for i in range(len(groups)):
        if i not in shared:
            components.setdefault(root(i), []).append(i)
    packs: list[list[int]] = []
    size = PIECE_BYTES
    for members in sorted(components.values()):
        if size >= PIECE_BYTES:
            packs.append([])
            size = 0
        packs[-1].extend(members)
        size += sum(len(segments[i]) for i in members)
    if len(packs) < 2:
        return None
    nonce = secrets.token_hex(8)
    while nonce in source:
        nonce = secrets.token_hex(8)
    marker = re.compile(rf"^[ \t]*# <<{nonce} (\d+)>>(?:\r\n?|\n)", re.MULTILINE)
    pieces = []
    for own in packs:
        piece = Piece("", sorted(shared | set(own)))
        parts, line = [], 1
        for i in piece.segments:
            parts.append(f"# <<{nonce} {i}>>\n")
            piece.starts.append((line + 1, first_lines[i]))
            parts.append(segments[i])
            line += 1 + breaks[i]
        piece.text = "".join(parts)
        pieces.append(piece)
    return Split(segments, shared, pieces, marker)
