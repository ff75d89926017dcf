"""Positions of the nodes of a module, computed one top-level statement at a time (codemod/analysis/syntax.py).

libcst's positions come from generating the code of the whole module, which was the costliest step of an
analysis; `LazyPositions` generates only the statements a node is asked for in, and must answer exactly what
the whole module's positions answer."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from codemod.analysis.syntax import Indexer, LazyPositions, _PlacingState, positions

SOURCES = {
    "semicolons": "a = 1; b = 2\nc = (3,\n 4); d = 5\n",
    "decorators": "# c\n\n@dec(\n  1)\n\n# x\n@other\ndef f():\n    return 1\n    # footer\n\n# tail\nx = f()",
    "crlf": "import os\r\nx = 1\r\n\r\nif x:\r\n    y = 2\r\nelse:\r\n    y = 3\r\n",
    "cr": "x = 1\ry = 2\r",
    "form feed": "x = 1\x0c\ny = '\\d'\n",
    "trailing blank lines": "class A:\n    pass\n\n\n\n",
    "async and strings": 'async def g():\n    await h()\nz = """a\nb"""\n',
    "one-line suite": "if True: x = 1; y = 2\nz = 3\n",
    "no final newline": "def f(): pass\n# trailing\nprint(f())",
}


def _lazy(source: str) -> tuple[cst.Module, Indexer, LazyPositions]:
    module = cst.parse_module(source)
    ix = Indexer()
    ix.walk(module)
    return module, ix, LazyPositions(module, source, ix.parent)


@pytest.mark.parametrize("source", SOURCES.values(), ids=SOURCES.keys())
def test_every_node_has_the_position_the_whole_module_gives(source):
    module, ix, lazy = _lazy(source)
    whole = positions(module)
    for node, where in whole.items():
        if id(node) in ix.parent:  # the nodes the analysis can reach (the index skips whitespace)
            assert lazy[node] == where, (type(node).__name__, module.code_for_node(node))
    assert not lazy.whole, "no statement needed the whole module's positions"


def test_only_the_statement_asked_about_is_generated():
    source = "import requests\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return requests.get('/pods')\n"
    module, ix, lazy = _lazy(source)
    call = ix.calls[0]
    assert lazy[call].start.line == 9 and lazy[call].start.column == 11
    assert lazy.done == {id(module.body[2])}
    assert module.body[1] not in lazy.computed and module.body[0] not in lazy.computed


def test_a_node_outside_the_tree_is_not_there():
    _module, _ix, lazy = _lazy("x = 1\n")
    assert cst.Name("x") not in lazy and lazy.get(cst.Name("y")) is None


ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted([*ROOT.glob("codemod/**/*.py"), *ROOT.glob("tests/codemod/corpus/**/*.py"),
                  *ROOT.glob("tests/codemod/fixtures/*.py"), *(Path(cst.__file__).parent / "_nodes").glob("*.py")])


def _placed(module: cst.Module) -> dict[int, tuple[int, int, int, int]]:
    state = _PlacingState(module.default_indent, module.default_newline)
    module._codegen(state)  # noqa: SLF001
    return state.placed


def test_the_lean_state_places_every_node_where_libcst_does():
    """`_PlacingState` (the analysis' positions) against libcst's own PositionProvider, on every node of the odd
    sources and of over a hundred real modules: ours, the test corpus, libcst's node classes."""
    assert len(MODULES) > 100
    for source in [*SOURCES.values(), *(p.read_text(encoding="utf-8") for p in MODULES)]:
        module = cst.parse_module(source)
        placed = _placed(module)
        reference = positions(module)
        assert len(placed) == len(reference)
        for node, where in reference.items():
            assert placed[id(node)] == (where.start.line, where.start.column, where.end.line, where.end.column), (
                type(node).__name__, module.code_for_node(node))
