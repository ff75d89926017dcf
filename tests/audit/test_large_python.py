"""Paths only v1 spells in a large Python module are found without a tree of the whole module (issue 23 item 10).

`project.python_v1_only_paths` parsed every Python file whole with CPython's `ast`: the tree of a 5 MB module
is most of a gigabyte, the audit's peak. A large module is parsed a run of statements at a time; the runs must
find exactly what the whole module's tree finds, at the same lines and columns, on code whose column-0 lines are
not all statement starts (strings, brackets, continued lines, decorators, `else:`).
"""
from __future__ import annotations

import ast

import pytest

from codemod import pieces
from codemod.audit import project

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


def _module(blocks: int) -> str:
    return "import client\n" + "".join(
        f'\n\ndef volume_{i}(vid):\n    return fetch_json(f"/networkvolumes/{{vid}}")\n{ODD}' for i in range(blocks))


def _whole(text: str) -> list[tuple[str, int, int, str]]:
    def whole(_text):
        raise project._WholeModule
        yield

    runs = project._run_trees
    try:
        project._run_trees = whole
        return _found(text)
    finally:
        project._run_trees = runs


def _found(text: str) -> list[tuple[str, int, int, str]]:
    """What the audit makes of the candidates: by line, `ast.walk`'s order kept on a line (the first call on a
    line takes it)."""
    return sorted(((callee, arg.lineno, arg.col_offset, route.path)
                   for callee, arg, route, _line in project._v1_only_candidates(text)), key=lambda c: c[1])


def test_runs_find_what_the_whole_module_finds_with_no_tree_of_the_whole(monkeypatch):
    text = _module(1 + pieces.LARGE_BYTES // len(ODD))
    assert len(text) >= pieces.LARGE_BYTES
    whole = _whole(text)
    # a decorator's path is a route the code serves (not found); the call in the function it decorates is
    assert len(whole) > 3000 and {w[0] for w in whole} == {"fetch_json", "client.get_json"}
    parsed: list[int] = []
    real = ast.parse

    def measured(source, *args, **kwargs):
        parsed.append(len(source.lstrip("\n")))
        return real(source, *args, **kwargs)

    monkeypatch.setattr(project.ast, "parse", measured)
    assert _found(text) == whole
    assert len(parsed) > 5 and max(parsed) < 2 * pieces.PIECE_BYTES, "a tree of the whole module was built"


@pytest.mark.parametrize("line_end", ["\r\n", "\r"])
def test_lines_are_counted_as_python_counts_them(line_end):
    text = _module(1 + pieces.LARGE_BYTES // len(ODD)).replace("\n", line_end)
    assert _found(text) == _whole(text)


@pytest.mark.parametrize("where", [0.5, 1.0])
def test_a_module_that_does_not_parse_raises_as_the_whole_does(where):
    text = _module(1 + pieces.LARGE_BYTES // len(ODD))
    at = text.index("\ndef ", int(len(text) * where) - 1) if where < 1 else len(text)
    broken = text[:at] + "\ndef broken(:\n    pass\n" + text[at:]
    with pytest.raises(SyntaxError) as raised:
        project._v1_only_candidates(broken)
    with pytest.raises(SyntaxError) as whole:
        ast.parse(broken)
    assert raised.value.lineno == whole.value.lineno


def test_the_walk_meets_the_nodes_ast_walk_meets_in_its_order():
    """`project.walk` replaces `ast.walk` where the order counts (the first call on a line takes it)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for path in sorted([*root.glob("codemod/audit/*.py"), *root.glob("tests/codemod/corpus/*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        ours, theirs = list(project.walk(tree)), list(ast.walk(tree))
        assert len(ours) == len(theirs) and all(a is b for a, b in zip(ours, theirs)), path
