"""`syntax.parse_module` skips libcst's per-node validation while the parser makes the nodes, and only then: the
tree is the one `cst.parse_module` gives, and nodes made afterwards (the rewrite's edits) are validated."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from codemod.analysis.syntax import parse_module

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted([*ROOT.glob("codemod/**/*.py"), *ROOT.glob("tests/codemod/corpus/**/*.py"),
                  *ROOT.glob("tests/codemod/projects/**/*.py"), *ROOT.glob("tests/codemod/fixtures/*.py"),
                  *(Path(cst.__file__).parent / "_nodes").glob("*.py")])
ODD = {
    "line continuations in whitespace": "x = (1 +\\\n     2)\ny = 1 + \\\n    3\n",
    "form feed and tabs": "x = 1\x0c\nif x:\n\ty = 2\n",
    "CR line ends": "x = 1\ry = [1,\r 2]\r",
    "no final newline, a comment": "def f(): pass\n# tail",
    "f-strings and walrus": 'if (n := len(a)) > 1:\n    print(f"{n!r:>{w}} {a[0]=}")\n',
}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_the_tree_is_the_one_libcst_gives(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    tree = parse_module(source)
    assert tree.deep_equals(cst.parse_module(source))
    assert tree.code == source


@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_sources_give_libcsts_tree(name: str) -> None:
    tree, libcsts = parse_module(ODD[name]), cst.parse_module(ODD[name])
    assert tree.deep_equals(libcsts) and tree.code == libcsts.code


def test_nodes_made_after_a_parse_are_validated() -> None:
    parse_module("x = 1\n")
    with pytest.raises(cst.CSTValidationError):
        cst.SimpleWhitespace("not whitespace")


def test_validation_is_back_after_a_parse_that_fails() -> None:
    with pytest.raises(cst.ParserSyntaxError):
        parse_module("def (:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.SimpleWhitespace("x")


def test_an_action_body_is_parsed_once_for_every_call_given_it(monkeypatch) -> None:
    """The same snippet in many calls (a large module's stop calls) is one parse and one node, shared: the output is
    the text each call had before."""
    from codemod.analysis.syntax import snippet_expression
    from codemod.engine import rewrite_source

    parsed = []
    real = cst.parse_expression
    monkeypatch.setattr(cst, "parse_expression", lambda code, *a, **k: parsed.append(code) or real(code, *a, **k))
    snippet_expression.cache_clear()
    source = 'import requests\nBASE = "https://rest.runpod.io/v1"\n' + "".join(
        f'def stop_{i}(pod_id):\n    requests.post(f"{{BASE}}/pods/{{pod_id}}/stop")\n' for i in range(3))
    new = rewrite_source(source, "c.py").new_source
    assert new.count('requests.post(f"{BASE}/pods/{pod_id}/action", json={"action": "stop"})\n') == 3
    assert parsed.count('{"action": "stop"}') == 1
    assert snippet_expression('{"action": "stop"}') is snippet_expression('{"action": "stop"}')
