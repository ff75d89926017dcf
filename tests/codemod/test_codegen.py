"""The lean code generation (codemod/analysis/codegen.py) emits libcst's tokens, and the rewritten module's code
copied from the positions pass is the code libcst generates for it, whatever the edits did to the tree."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst._nodes.expression import _BaseParenthesizedNode

from codemod.analysis.codegen import code, lean
from codemod.analysis.syntax import Indexer, LazyPositions, descendants, positions

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted([*ROOT.glob("codemod/**/*.py"), *ROOT.glob("tests/codemod/corpus/**/*.py"),
                  *ROOT.glob("tests/codemod/projects/**/*.py"), *ROOT.glob("tests/codemod/fixtures/*.py"),
                  *(Path(cst.__file__).parent / "_nodes").glob("*.py")])
ODD = {
    "semicolons": "a = 1; b = 2\nc = (3,\n 4); d = 5\nif a: x = 1; y = 2\n",
    "decorators and comments": "# c\n\n@dec(\n  1)\n\n# x\n@other\ndef f(a, b=(1), *c, d, **e):\n    return ((a))\n"
                               "    # footer\n\n# tail\nx = f()",
    "crlf": "import os\r\nx = 1\r\n\r\nif x:\r\n    y = [2,\r\n  3]\r\nelse:\r\n    y = {3: (4)}\r\n",
    "cr": "x = 1\ry = (2,\r 3)\r",
    "tabs": "class A:\n\tdef f(self):\n\t\tif self:\n\t\t\treturn g(1, 2)\n\t\treturn None\n",
    "mixed indents": "def f():\n  if x:\n        y = h(1,)\n  return y\n",
    "no final newline": "def f(): pass\n# trailing\nprint(f(1, (2), *a, k=3, **kw))",
    "continuations": "x = (1 +\\\n     2)\ny = 1 + \\\n    3\n",
    "f-strings, walrus, match": 'if (n := len(a)) > 1:\n    print(f"{n!r:>{w}} {a[0]=}")\nmatch p:\n'
                                '    case [1, *r] | {"k": _}:\n        pass\n',
    "empty": "",
    "only a comment": "# nothing\n",
}


def _sources(modules=MODULES):
    yield from ODD.items()
    for path in modules:
        yield str(path.relative_to(ROOT.parent)), path.read_text(encoding="utf-8")


# the modules edited: the test clients (the whole list, with libcst's large modules, takes a minute)
EDITED = [p for p in MODULES if p.parent.name in ("corpus", "fixtures")]


def _lazy(source: str) -> tuple[cst.Module, LazyPositions]:
    module = cst.parse_module(source)
    ix = Indexer()
    ix.walk(module)
    return module, LazyPositions(module, source, ix.parent)


def test_the_lean_code_is_libcsts_code():
    for name, source in _sources([*EDITED, *(p for p in MODULES if p.parent.name == "analysis")]):
        module = cst.parse_module(source)
        assert code(module, module) == module.code, name
        for stmt in module.body:
            assert code(stmt, module) == module.code_for_node(stmt), name


def test_the_positions_under_lean_are_libcsts():
    """The whole module's positions computed with the lean codegen (`_compute_all`) equal PositionProvider's."""
    for name, source in _sources(EDITED):
        module, lazy = _lazy(source)
        lazy._compute_all()
        for node, where in positions(module).items():
            assert lazy.placed[id(node)] == (where.start.line, where.start.column, where.end.line,
                                             where.end.column), (name, type(node).__name__)


def test_libcsts_own_codegen_is_back_after_lean_even_after_an_error():
    before = cst.CSTNode.__dict__["_codegen"], _BaseParenthesizedNode.__dict__["_parenthesize"]
    with pytest.raises(ZeroDivisionError):
        with lean():
            assert cst.CSTNode.__dict__["_codegen"] is not before[0]
            1 / 0  # noqa: B018
    assert (cst.CSTNode.__dict__["_codegen"], _BaseParenthesizedNode.__dict__["_parenthesize"]) == before
    assert cst.parse_module("x = (1)\n").code == "x = (1)\n"


class _Targeted(cst.CSTTransformer):
    """Applies EDITS (id(node) -> a function of the node) as the rewrite's `_Apply` does: only the nodes on the way
    to an edited node are rebuilt, every other node stays the very object of the original tree."""

    def __init__(self, edits: dict, parent: dict) -> None:
        super().__init__()
        self.edits, self.on_path = edits, set()
        for key in edits:
            node = parent.get(key)
            while node is not None and id(node) not in self.on_path:
                self.on_path.add(id(node))
                node = parent.get(id(node))

    def on_visit(self, node) -> bool:
        return id(node) in self.on_path

    def on_leave(self, original, updated):
        edit = self.edits.get(id(original))
        return edit(updated) if edit is not None else updated


def _deeper(block):
    return block.with_changes(body=[cst.If(test=cst.Name("True"), body=cst.IndentedBlock(body=list(block.body)))])


def _shallower(fn):
    return cst.FlattenSentinel([fn.with_changes(body=cst.IndentedBlock(body=[cst.SimpleStatementLine([cst.Pass()])])),
                                *fn.body.body])


def _reorder(call):
    args = list(call.args)
    args[0], args[-1] = args[-1], args[0]
    return call.with_changes(args=args)


def _edits(kind: str, module: cst.Module, ix: Indexer) -> dict:
    """Edits of the shapes the rewrite's appliers make: a leaf renamed, statements moved one block deeper and out
    of their function, arguments reordered (a comma decided by the position), a statement dropped, an import
    added; on every third node of the kind."""
    if kind == "rename":
        nodes = [n for names in ix.names.values() for group in names.values() for n in group][::3]
        return {id(n): lambda n: n.with_changes(value=n.value + "_") for n in nodes}
    if kind == "reorder":
        nodes = [c for c in ix.calls if len(c.args) > 1 and all(a.star == "" and a.keyword is None for a in c.args)]
        return {id(c): _reorder for c in nodes[::3]}
    blocks = [node for node in descendants(module) if isinstance(node, cst.IndentedBlock) and len(node.body) > 1][::3]
    if kind == "deeper":
        return {id(b): _deeper for b in blocks}
    if kind == "drop":
        return {id(b): lambda b: b.with_changes(body=b.body[1:]) for b in blocks}
    if kind == "shallower":
        fns = [s for s in module.body if isinstance(s, cst.FunctionDef) and isinstance(s.body, cst.IndentedBlock)]
        return {id(fns[0]): _shallower} if fns else {}
    return {id(module): lambda m: m.with_changes(body=[cst.parse_statement("import v1bridge_compat\n"), *m.body])}


KINDS = ("rename", "reorder", "deeper", "shallower", "drop", "import")


@pytest.mark.parametrize("kind", KINDS)
def test_the_rewritten_code_copied_from_the_positions_is_libcsts(kind: str):
    """The module's positions computed (every statement's, or only every other one's), then edited: the code
    made by copying the unchanged nodes' tokens is `Module.code` of the edited tree."""
    checked = 0
    for name, source in _sources(EDITED):
        for every in (1, 2) if len(source) < 5000 else (1,):
            module = cst.parse_module(source)
            ix = Indexer()
            ix.walk(module)
            lazy = LazyPositions(module, source, ix.parent)
            for stmt in module.body[::every]:
                lazy.get(stmt)
            edits = _edits(kind, module, ix)
            if not edits:
                continue
            try:
                edited = module.visit(_Targeted(edits, ix.parent))
                expected = edited.code
            except Exception:  # an edit libcst refuses on this module (a dedent that leaves an orphan `else`)
                continue
            assert lazy.code_of_rewritten(edited) == expected, (name, kind, every)
            checked += 1
    assert checked > 50


def test_a_module_with_other_defaults_is_generated_whole():
    module, lazy = _lazy("def f():\n    return 1\n")
    lazy._compute_all()
    tabs = module.with_changes(default_indent="\t", body=[*module.body, cst.parse_statement("def g():\n\treturn 2\n")])
    assert lazy.code_of_rewritten(tabs) == tabs.code


def test_the_last_statement_of_a_module_without_a_final_newline_keeps_its_newline_when_copied():
    """The whole module's positions drop its final newline token at the end (libcst's pop_trailing_newline): the
    last statement's span still holds it, and the module's code drops it again."""
    source = "def f():\n    return 1\nx = g(1, 2)"
    module, lazy = _lazy(source)
    lazy._compute_all()
    edited = module.visit(_Targeted({id(module.body[0].name): lambda n: n.with_changes(value="h")}, lazy.parent))
    assert lazy.code_of_rewritten(edited) == edited.code == "def h():\n    return 1\nx = g(1, 2)"
    appended = edited.with_changes(body=[*edited.body, cst.parse_statement("y = 2\n")])
    assert lazy.code_of_rewritten(appended) == appended.code == "def h():\n    return 1\nx = g(1, 2)\ny = 2"
