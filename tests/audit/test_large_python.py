"""Paths only v1 spells handed to any Python call are read from the analysis' facts, not from a parse of their own.

`project.python_v1_only_paths` parsed every Python file with CPython's `ast` in the audit's parent, a third parse of
the source (a large module a run of statements at a time). It now reads the `PathArgument`s the analysis records as
it indexes the module, in the workers, and a large module's pieces record them as the whole module does. What it
finds must stay what CPython's tree finds, at the same lines and columns (UTF-8 bytes, as `ast` counts them), and
the same call must take a line where two compete (`ast.walk`'s order): `_ast_candidates` below is the old pass,
kept as the reference.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from codemod import pieces
from codemod.audit import project
from codemod.audit.catalogue import catalogue
from codemod.audit.engine import analyze_source
from codemod.audit.matching import HOLE, IMPORT_LIKE
from codemod.engine import analyze_python

ROOT = Path(__file__).resolve().parents[2]
_PLACE = "\x00"
_COMPAT_CALLS = {"v1bridge_compat.call_v1", "v1bridge_compat.acall_v1"}

ODD = '''
@decorator(
"/networkvolumes/in-a-decorator-argument")
def decorated():
    return fetch_json("/networkvolumes/" + vid)


DOC = """
def not_a_function():
fetch_json("/networkvolumes/in-a-string")
"""
PARTS = [
"/containerregistryauth",
]
TOTAL = 1 + \\
2
if flag:
    fetch_json("/billing/endpoints")
else:
    fetch_json("/networkvolumes")
try:
    client.get_json("/containerregistryauth/" + rid)
except KeyError:
    pass
'''

TRICKY = '''import client

NAME = "é"  # a non-ASCII line: CPython counts columns in bytes


def spelled(vid, s):
    fetch_json("/networkvolumes/" + vid); note = "ünïcode"; fetch_json("/containerregistryauth")
    x = "ü" + fetch_json(f"/networkvolumes/{vid}")
    fetch_json(("/networkvolumes"))
    fetch_json("/network" "volumes")
    fetch_json(f"/network" "volumes/{vid}")
    fetch_json(rb"/networkvolumes")
    fetch_json(b"/networkvolumes")
    fetch_json(f"/networkvolumes/{vid=}")
    fetch_json(f"/networkvolumes/{{vid}}")
    fetch_json("/network\\x76olumes")
    fetch_json(f"/network\\x76olumes/{vid}")
    fetch_json(rf"/networkvolumes/{vid}")
    fetch_json(
        "/billing/endpoints",
    )
    s.session().get("/networkvolumes")
    s[0].post("/networkvolumes", {})
    fetch_json(*["/networkvolumes"])
    fetch_json(path="/networkvolumes")
    fetch_json("" + "/networkvolumes")
    fetch_json("/networkvolumes" + 1)
    fetch_json(vid + "/networkvolumes")
    require("/networkvolumes")
    v1bridge_compat.call_v1("GET", "/networkvolumes")
    x = h(g("/billing/endpoints")) or f("/networkvolumes")
    y = [fetch_json("/networkvolumes")]; fetch_json("/billing/endpoints")
    lambda: fetch_json("/networkvolumes")
    return [fetch_json(p) for p in ("/networkvolumes",)]


@routes.get("/networkvolumes")
@deco(fetch_json("/networkvolumes/{id}"))
def served():
    pass
'''


def _path_text(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else _PLACE
                       for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _path_text(node.left), _path_text(node.right)
        if left is None and right is None:
            return None
        return (left if left is not None else _PLACE) + (right if right is not None else _PLACE)
    return None


def _callee(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _callee(node.value)
        return f"{inner}.{node.attr}" if inner else node.attr
    return ""


def _ast_candidates(text: str) -> list[tuple[str, str, int, int, int]]:
    """The old pass: (callee, route, line, column in bytes, the call's line) in `ast.walk`'s order."""
    cat = catalogue()
    calls, served = [], set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call):
            calls.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            served.update(id(d) for d in node.decorator_list)
    out = []
    for node in calls:
        callee = _callee(node.func)
        if id(node) in served or callee.rsplit(".", 1)[-1] in IMPORT_LIKE or callee in _COMPAT_CALLS:
            continue
        for arg in node.args:
            text_of = _path_text(arg)
            if not text_of or text_of[0] == _PLACE or not re.fullmatch(r"[A-Za-z0-9/_{}\x00-]+", text_of):
                continue
            segs = tuple(HOLE if _PLACE in seg else seg for seg in text_of.strip("/").split("/") if seg)
            route = cat.match_route(segs) if segs and segs[0] in cat.first_segments else None
            if route is not None and route.v1_only:
                out.append((callee, route.path, arg.lineno, arg.col_offset, node.lineno))
    return out


def _from_facts(text: str, **options) -> list[tuple[str, str, int, int, int]]:
    """The same, from the analysis' facts, in the order the audit takes them."""
    analysis = analyze_python(text, "client.py", edits=False, **options)
    assert analysis.error is None
    read = text.replace("\r\n", "\n").replace("\r", "\n")
    byte_column = project._byte_columns(read)
    ordered = project._in_walk_order(project._v1_only_arguments(analysis.path_arguments), read, byte_column)
    return [(callee, route.path, line, byte_column(line, column), call_line)
            for callee, route, line, column, call_line, _statement in ordered]


def _taken(candidates: list) -> list:
    """The candidates that become findings (the first on a line takes it), in line order."""
    routed, out = set(), []
    for c in candidates:
        if c[2] not in routed and c[4] not in routed:
            out.append(c)
            routed.add(c[2])
    return sorted(out)


@pytest.mark.parametrize("line_end", ["\n", "\r\n", "\r"])
def test_the_facts_find_what_cpython_finds(line_end):
    text = TRICKY.replace("\n", line_end)
    expected = _ast_candidates(text.replace("\r\n", "\n").replace("\r", "\n"))
    found = _from_facts(text)
    assert sorted(found) == sorted(expected)
    assert _taken(found) == _taken(expected)
    # two calls on one line: `ast.walk` meets the shallower one first, whatever the source order; a non-ASCII
    # line counts bytes
    assert ("f", "/networkvolumes", 31, 40, 31) in _taken(found)
    assert ("fetch_json", "/billing/endpoints", 32, 52, 32) in _taken(found)
    assert ("fetch_json", "/networkvolumes/{networkVolumeId}", 8, 26, 8) in _taken(found)


def test_the_facts_find_what_cpython_finds_in_every_sample_and_project():
    files = sorted([*ROOT.glob("tests/audit/samples/**/*.py"), *ROOT.glob("tests/codemod/corpus/*.py"),
                    *ROOT.glob("tests/codemod/projects/**/*.py")])
    seen = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        if analyze_python(text, path.name, edits=False).error:
            continue
        expected = _ast_candidates(text)
        found = _from_facts(text)
        assert sorted(found) == sorted(expected), path
        assert _taken(found) == _taken(expected), path
        seen += bool(expected)
    assert seen >= 20


BLOCK = '''

def volume_{i}(vid):
    return fetch_json(f"/networkvolumes/{{vid}}")


@decorator(
"/networkvolumes/in-a-decorator-argument")
def decorated_{i}(rid):
    x = h(g("/billing/endpoints")) or f("/networkvolumes")
    if flag:
        fetch_json("/networkvolumes/" + rid)
    else:
        client.get_json(
            "/containerregistryauth/" + rid)
    return """
fetch_json("/networkvolumes/in-a-string")
"""
'''


def test_a_large_module_is_read_from_its_pieces_facts_with_no_parse_of_the_whole(monkeypatch):
    text = "import client\n" + "".join(BLOCK.format(i=i) for i in range(int(1.1 * pieces.LARGE_BYTES / len(BLOCK))))
    assert pieces.split(text) is not None
    parsed: list[int] = []
    real = ast.parse

    def measured(source, *args, **kwargs):
        parsed.append(len(source.lstrip("\n")))
        return real(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", measured)
    result = analyze_source(text, "client.py")
    assert len(parsed) > 5 and max(parsed) < 2 * pieces.PIECE_BYTES, "the audit parsed the whole module"
    monkeypatch.setattr(ast, "parse", real)
    expected = _taken(_ast_candidates(text))
    # a decorator's path is a route the code serves (not found); the calls in the function it decorates are
    assert len(expected) > 3000 and {c[0] for c in expected} == {"fetch_json", "f", "client.get_json"}
    found = [f for f in result.findings if "a path only v1 spells" in f.message]
    assert sorted({(f.line, f.column - 1) for f in found}) == sorted((c[2], c[3]) for c in expected)
