"""Positions of calls, dicts and strings read from CPython's `ast` (codemod/analysis/located.py) instead of libcst's
code generation: where they answer, they answer what libcst's PositionProvider does; where they cannot tell two
nodes apart, the code generation does, as before."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from codemod.analysis.located import LOCATED
from codemod.analysis.syntax import Indexer, LazyPositions, positions

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted([*ROOT.glob("codemod/**/*.py"), *ROOT.glob("tests/codemod/corpus/**/*.py"),
                  *ROOT.glob("tests/codemod/fixtures/*.py"), *ROOT.glob("tests/codemod/projects/**/*.py"),
                  *ROOT.glob("tests/audit/samples/**/*.py"), *(Path(cst.__file__).parent / "_nodes").glob("*.py")])

ODD = {
    "non-ascii before a call": 'x = "é€𝄞"; y = f(1)\nz = {"ü": g("ä", k=1)}\n',
    "tabs": "if x:\n\tcall(1)\n\td = {'a': 1}\n",
    "parentheses": "a = (f(1))\nb = ((g)(2))\nc = ({'k': 1})\nd = (('s'))\n",
    "call on a call": "x = f(1)(2)\ny = a.b(c)(d).e()\n",
    "multi-line": 'r = requests.post(\n    "https://x/v1/pods",\n    json={\n        "a": 1,\n    },\n)\n',
    "strings": 's = """a\nb"""\nt = b"x" + r"\\d"\nu = "a" "b"\nv = "a"\nw = ("p"\n     "q")\n',
    "f-strings": 'u = f"{BASE}/pods/{f(x)}"\nv = f(x)\nw = f"{d[\'k\']}" + \'k\'\n',
    "decorators": "@route('/pods')\n@other(1, *a, k=2, **kw)\ndef f(a=g(1)):\n    return h(a)\n",
    "same call twice": "x = [f(1), f(2)]\ny = {'a': 1} or {'b': 2}\n",
    "keywords after star": "f(a, *b, c=1, **d)\nf(*b, c=1)\n",
    "semicolons": "a = f(1); b = g(2)\nc = {'x': 1}; d = 'y'\n",
    "class and lambda": "class A(B, metaclass=M):\n    x = (lambda: 1)()\n    y = A.m['k'](2)\n",
    "no final newline": "x = f(1)",
    "operators, match, imports": ("import a.b as c\nfrom m import (n, o as p)\nglobal q\n"
                                  "match f(1):\n    case True | None:\n        g({'k': 1, **d})\n"
                                  "    case {'s': h(2)} | Point(x=0):\n        pass\n"
                                  "x = -f(1) + g(2) < h(3) and not {1: 'v'}\n"),
}


def _sources():
    for name, source in ODD.items():
        yield name, source
        yield name + " (CRLF)", source.replace("\n", "\r\n")
    for path in MODULES:
        yield str(path), path.read_text(encoding="utf-8")


def _lazy(source: str) -> tuple[cst.Module, Indexer, LazyPositions]:
    module = cst.parse_module(source)
    ix = Indexer()
    ix.walk(module)
    return module, ix, LazyPositions(module, source, ix.parent, ix)


def test_what_ast_places_is_where_libcst_places_it():
    """Every call, dict and plain string of the odd sources (LF and CRLF) and of over a hundred real modules: the
    position read from `ast`, where it gives one, is PositionProvider's; most are given one."""
    assert len(MODULES) > 100
    placed = asked = 0
    for name, source in _sources():
        module, ix, lazy = _lazy(source)
        reference = positions(module)
        for node in [*ix.calls, *ix.dicts, *ix.strings]:
            if not isinstance(node, LOCATED):
                continue
            asked += 1
            got = lazy._located(node)  # noqa: SLF001 - what `ast` says alone, before any code generation
            if got is None:
                continue
            placed += 1
            where = reference[node]
            assert got == (where.start.line, where.start.column, where.end.line, where.end.column), \
                (name, type(node).__name__, module.code_for_node(node))
    assert placed > asked / 3, (placed, asked)


@pytest.mark.parametrize("name", ODD)
def test_every_node_still_has_its_place(name):
    """Asked in any order, nodes of any kind get PositionProvider's answer: `ast`'s or the code generation's."""
    for source in (ODD[name], ODD[name].replace("\n", "\r\n"), ODD[name].replace("\n", "\r")):
        module, ix, lazy = _lazy(source)
        reference = positions(module)
        for node, where in reference.items():
            if id(node) in ix.parent:
                assert lazy[node] == where, (name, type(node).__name__, module.code_for_node(node))


def test_a_client_module_is_placed_without_generating_code():
    source = ('import requests\n\nBASE = "https://rest.runpod.io/v1"\n\n\n'
              'def create():\n    body = {"name": "p", "gpuTypeIds": ["NVIDIA A40"]}\n'
              '    return requests.post(f"{BASE}/pods", json=body).json()\n\n\n'
              'def volumes():\n    return [v["id"] for v in requests.get(BASE + "/networkvolumes").json()]\n')
    module, ix, lazy = _lazy(source)
    post = next(c for c in ix.calls if cst.ensure_type(c.func, cst.Attribute).attr.value == "post")
    assert (lazy[post].start.line, lazy[post].start.column, lazy[post].end.column) == (8, 11, 51)
    for node in [*ix.calls, *ix.dicts, *(s for s in ix.strings if isinstance(s, cst.SimpleString))]:
        assert lazy[node] == positions(module)[node]
    assert lazy.done == set() and not lazy.whole, "no statement's code was generated"


def test_two_calls_alike_in_one_statement_are_left_to_the_code_generation():
    module, ix, lazy = _lazy("x = [f(1), f(2)]\ny = g(3)\n")
    first, second, third = ix.calls
    assert lazy._located(first) is None and lazy._located(second) is None  # noqa: SLF001
    assert lazy._located(third) == (2, 4, 2, 8)  # noqa: SLF001
    assert lazy[second].start.column == 11 and lazy.done == {id(module.body[0])}


def test_a_lone_cr_is_left_to_the_code_generation():
    _module, ix, lazy = _lazy("x = f(1)\ry = g(2)\r")
    assert lazy._located(ix.calls[1]) is None  # noqa: SLF001
    assert lazy[ix.calls[1]].start.line == 2


def test_the_line_of_a_node_is_the_line_libcst_places_it_on():
    """`line_of` (the line a node starts on; a statement line `ast` places on one line gives it without generating
    code) against PositionProvider, for every node the index reaches, in the odd sources (LF, CRLF, CR) and over a
    hundred modules: what `ast` alone says, and what `line_of` says asked in any order; most nodes are in a
    statement line `ast` places."""
    from_ast = asked = 0
    for name, source in [*_sources(), *((n + " (CR)", s.replace("\n", "\r")) for n, s in ODD.items())]:
        module, ix, lazy = _lazy(source)
        reference = positions(module)
        for node, where in reference.items():
            if id(node) in ix.parent:
                asked += 1
                line = lazy._one_line(node)  # noqa: SLF001 - what `ast` says alone, before any code generation
                from_ast += line is not None
                assert line in (None, where.start.line), (name, type(node).__name__, module.code_for_node(node))
        assert lazy.done == set() and not lazy.whole
        for node, where in reference.items():
            if id(node) in ix.parent:
                assert lazy.line_of(node) == where.start.line, (name, type(node).__name__, module.code_for_node(node))
    assert from_ast > asked / 3, (from_ast, asked)


def test_a_name_read_in_a_function_is_placed_without_generating_code():
    source = ("def status(pod_id):\n    r = requests.get(f'{BASE}/pods/{pod_id}')\n    r.raise_for_status()\n"
              "    for key in KEYS:\n        print(r.json()[key])\n    return (\n        r.text)\n")
    module, ix, lazy = _lazy(source)
    names = ix.names[id(module.body[0])]["r"]
    assert [lazy.line_of(n) for n in names[:-1]] == [2, 3, 5] and lazy.done == set()
    assert lazy.line_of(names[-1]) == 7 and lazy.done == {id(module.body[0])}  # over two lines: generated
