"""A large module is analysed and rewritten a piece at a time (codemod/pieces.py, issue 23 item 10), with
exactly the answers of the whole module: its text, counts, manual items, call states and the audit's findings."""
from __future__ import annotations

import bisect
import sys
from pathlib import Path

import pytest

from codemod import engine, pieces
from codemod.engine import analyze_python, rewrite_source

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from large_file_bench import client_module  # noqa: E402

CORPUS = sorted((ROOT / "tests" / "codemod" / "corpus").glob("*.py")) + sorted(
    (ROOT / "tests" / "codemod" / "fixtures").glob("*.before.py"))


@pytest.fixture
def small_pieces(monkeypatch):
    """Pieces for modules of a few hundred bytes, so that the test's modules are cut."""
    monkeypatch.setattr(pieces, "LARGE_BYTES", 100)
    monkeypatch.setattr(pieces, "PIECE_BYTES", 300)
    monkeypatch.setattr(pieces, "SHARED_SHARE", 1.0)


def _whole(monkeypatch, run):
    monkeypatch.setattr(pieces, "LARGE_BYTES", 10**12)
    return run()


def _rewrite_facts(r):
    return r.new_source, dict(r.rules), r.manual, r.states, r.v1_left, r.error


def _audit_facts(a):
    return a.findings, a.states, a.manual, a.uses_v1, a.v1_left, a.error


def test_the_large_file_is_cut_and_rewritten_as_a_whole_module_is(monkeypatch, small_pieces):
    text = client_module(60)
    cut = pieces.split(text)
    assert cut is not None and len(cut.pieces) >= 10 and cut.shared == {0, 1, 2}  # import, BASE, HEADERS
    used = []
    real = engine._rewrite_pieces
    monkeypatch.setattr(engine, "_rewrite_pieces", lambda *a, **k: used.append(real(*a, **k)) or used[-1])
    in_pieces = rewrite_source(text, "big.py")
    assert used and used[0] is not None, "the pieces' rewrites agreed"
    whole = _whole(monkeypatch, lambda: rewrite_source(text, "big.py"))
    assert _rewrite_facts(in_pieces) == _rewrite_facts(whole)
    assert in_pieces.changed and "rest.runpod.io/v1" not in in_pieces.new_source
    assert dict(in_pieces.rules) == {"L01": 1, "L04": 120, "Q13": 60}  # the base once, not once per piece


def test_the_audit_of_the_large_file_reads_as_the_whole_module(monkeypatch, small_pieces):
    text = client_module(60)
    in_pieces = analyze_python(text, "big.py", edits=False)
    whole = _whole(monkeypatch, lambda: analyze_python(text, "big.py", edits=False))
    assert _audit_facts(in_pieces) == _audit_facts(whole)
    assert len(in_pieces.findings) == 181 and in_pieces.findings[0].line == 3  # the base, once, on its line
    assert in_pieces.module is None, "no piece's tree is kept"


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_every_corpus_module_in_pieces_is_rewritten_and_audited_as_whole(monkeypatch, small_pieces, path):
    """Cut as small as it goes, or analysed whole where its pieces disagree on a shared statement (a base one
    piece's calls move and another's do not use): the same answers either way."""
    text = path.read_text()
    rewritten, audited = rewrite_source(text, path.name), analyze_python(text, path.name, edits=False)
    whole_rewrite = _whole(monkeypatch, lambda: rewrite_source(text, path.name))
    whole_audit = analyze_python(text, path.name, edits=False)
    assert _rewrite_facts(rewritten) == _rewrite_facts(whole_rewrite)
    assert _audit_facts(audited) == _audit_facts(whole_audit)


def test_a_helper_and_its_callers_stay_in_one_piece(small_pieces):
    text = ("import requests\n\nBASE = 'https://rest.runpod.io/v1'\n\n\n"
            + "".join(f"def other_{i}():\n    return {i}\n\n\n" for i in range(30))
            + "def _get(path):\n    return requests.get(BASE + path).json()\n\n\n"
            + "class Client:\n    def pods(self):\n        return _get('/pods')\n\n\n"
            + "def summary(client):\n    return [p['desiredStatus'] for p in client.pods()]\n")
    cut = pieces.split(text)
    assert cut is not None
    names = [next(line.split()[1].split("(")[0].rstrip(":") for line in cut.segments[i].splitlines()
                  if line.startswith(("def ", "class "))) for p in cut.pieces for i in p.segments if i not in cut.shared
             and ("_get" in cut.segments[i] or "pods" in cut.segments[i])]
    holders = {id(p) for p in cut.pieces for i in p.segments if i not in cut.shared
               and ("_get" in cut.segments[i] or "pods" in cut.segments[i])}
    assert sorted(names) == ["Client", "_get", "summary"] and len(holders) == 1


def test_a_small_module_is_never_cut():
    assert pieces.split(client_module(3)) is None


@pytest.mark.parametrize("run", [
    lambda text: analyze_python(text, "big.py", edits=False),  # the audit
    lambda text: rewrite_source(text, "big.py"),  # the rewrite
], ids=["audit", "rewrite"])
def test_no_tree_of_the_whole_large_module_is_built(monkeypatch, run):
    """Memory follows the largest piece, not the module: neither libcst nor CPython's ast parses all of it (a 5 MB
    module's trees took 3.3 GB)."""
    import ast

    import libcst

    parsed: list[int] = []
    real_cst, real_ast = libcst.parse_module, ast.parse
    monkeypatch.setattr(libcst, "parse_module", lambda text, *a, **k: parsed.append(len(text)) or real_cst(text, *a, **k))
    monkeypatch.setattr(ast, "parse", lambda text, *a, **k: parsed.append(len(text)) or real_ast(text, *a, **k))
    text = client_module(pieces.LARGE_BYTES // len(client_module(1)) * 2)
    result = run(text)
    assert result.error is None and parsed
    assert max(parsed) < pieces.PIECE_BYTES * 2 < len(text) / 4


def test_pieces_in_worker_processes_give_what_this_process_gives(monkeypatch, small_pieces, tmp_path):
    """`--jobs N` with one large file: its pieces are analysed and rewritten in the workers
    (`engine.pieces_in`), each giving back its answers without its tree; the result is this process's."""
    import os

    from codemod import workers
    from codemod.audit.engine import audit_paths

    text = client_module(30)
    here_rewrite, here_audit = rewrite_source(text, "big.py"), analyze_python(text, "big.py", edits=False)
    analysed_here = []
    real = engine.analyze
    monkeypatch.setattr(engine, "analyze", lambda *a, **k: analysed_here.append(os.getpid()) or real(*a, **k))
    with workers.pool(2) as pool, engine.pieces_in(pool):
        there_rewrite, there_audit = rewrite_source(text, "big.py"), analyze_python(text, "big.py", edits=False)
    assert analysed_here == [], "every piece was analysed in a worker"
    assert _rewrite_facts(there_rewrite) == _rewrite_facts(here_rewrite) and there_rewrite.changed
    assert _audit_facts(there_audit) == _audit_facts(here_audit) and there_audit.findings
    big = tmp_path / "big.py"
    big.write_text(text)
    reports = [audit_paths([str(big)], jobs=jobs, max_bytes=0) for jobs in (1, 2)]
    assert [f.findings for f in reports[0].files] == [f.findings for f in reports[1].files] != [[]]


STDLIB = sorted(Path(bisect.__file__).parent.glob("*.py"))[:200]  # the standard library
ODD_TOKENS = {
    "f-strings": 'x = f"{a!r:>{w}} {b.c} text words"\nclass A: y = rf"\\d{z}"\n',
    "decorated and async": "@d\n@e(1)\nasync def f():\n    await g()\n\n\nasync  def h(): pass\n",
    "clauses and one-liners": "if a: b = 1\nelif c: pass\nelse: d()\ntry:\n    e()\nexcept E as x: raise\nfinally: f()\n",
    "continuations": "x = 1 + \\\n    2\ny = (3,\n  # c\n  4)  # end\n\n\n# tail\n",
    "no final newline": "def f():\n    return 1\nz = f()",
    "bad indentation": "def f():\n\tif x:\n        return 1\n",
    "unterminated": "x = (1,\n",
    "a dedent to no level": "def f():\n  x\n y\nz = 1\n",
    "a character no token starts with": "x = 1\n$ = 2\n",
    "an unterminated string last": 'x = 1\ny = """abc\n',
    "a comment after the last statement": "x = 1\n  # indented comment\n\n# last",
    "numbers": "x = 1e5 + 0x1f + 1_000j + 0o7\ndef e5(): pass\n",
}


@pytest.mark.skipif(pieces._c_tokens is None, reason="tokenize is CPython's C tokenizer already")
def test_the_c_tokenizer_gives_the_statements_tokenize_gives():
    """`_statements` reads CPython's C tokenizer: on our modules, the test clients, the standard library's and
    odd sources (errors the C tokenizer stops at without a word included), the statements and names are those of
    `tokenize`."""
    import io
    import tokenize

    sources = [*ODD_TOKENS.values(), client_module(50)]
    sources += [p.read_text(encoding="utf-8", errors="replace") for p in sorted(ROOT.glob("codemod/**/*.py"))]
    sources += [p.read_text(encoding="utf-8") for p in CORPUS]
    sources += [p.read_text(encoding="utf-8", errors="replace") for p in STDLIB]
    assert len(sources) > 250
    compared = 0
    for source in sources:
        try:
            expected = pieces._scan((t.string, t.type, t.start[0])
                                    for t in tokenize.generate_tokens(io.StringIO(source).readline))[0]
        except (tokenize.TokenError, IndentationError, SyntaxError):
            expected = None
        assert pieces._statements(source) == expected
        if "\r" not in source and "\x0c" not in source:
            compared += 1
    assert compared > 200


def test_a_merge_moves_what_a_piece_found_as_dataclasses_replace_does():
    """`engine.moved` copies the fields of a finding, a call state or a path argument as they are (a merge moves
    each to its line in the module): the same as `replace`, frozen as before; a class whose __init__ does more
    goes through `replace`."""
    import dataclasses

    from codemod.engine import moved

    analysis = analyze_python(client_module(3) + "\n\ndef pods(s):\n    return s.get(\"/pods\")\n", "big.py", edits=False)
    items = [*analysis.findings, *analysis.states, *analysis.path_arguments]
    assert {type(i).__name__ for i in items} == {"Finding", "CallState", "PathArgument"}
    for item in items:
        for changes in ({"line": 7}, {"line": 0}, {}):
            copy = moved(item, **changes)
            assert copy == dataclasses.replace(item, **changes) and vars(copy) == vars(dataclasses.replace(
                item, **changes)) and hash(copy) == hash(dataclasses.replace(item, **changes))
        with pytest.raises(dataclasses.FrozenInstanceError):
            moved(item, line=1).line = 2
        with pytest.raises(TypeError):
            moved(item, no_such_field=1)

    @dataclasses.dataclass(frozen=True)
    class Derived:
        line: int
        twice: int = dataclasses.field(init=False, default=0)

        def __post_init__(self) -> None:
            object.__setattr__(self, "twice", 2 * self.line)

    assert moved(Derived(1), line=4).twice == 8


def test_a_rule_left_out_of_a_large_module_is_named_at_the_line_the_whole_module_names(monkeypatch, small_pieces):
    text = client_module(30)
    selected = frozenset({"L01", "Q13"})  # L04 left out: the file stays as it is, said at L04's first line
    in_pieces = rewrite_source(text, "big.py", selected=selected)
    whole = _whole(monkeypatch, lambda: rewrite_source(text, "big.py", selected=selected))
    assert _rewrite_facts(in_pieces) == _rewrite_facts(whole)
    assert not in_pieces.changed and [(m.line, m.rule) for m in in_pieces.manual if "not rewritten" in m.message] \
        == [(13, "L04")]


def test_a_piece_of_a_rewrite_sends_back_the_findings_its_merge_reads(monkeypatch, small_pieces):
    """The findings in the shared statements and the first of each rule it reports: not one per call site (they
    were most of what a piece sent back); the audit's pieces send every finding."""
    monkeypatch.setattr(pieces, "PIECE_BYTES", 3000)
    cut = pieces.split(client_module(60))
    piece = cut.pieces[2]
    rewrite = engine._piece_work((2, piece, cut.shared, "big.py", True, {}))
    audit = engine._piece_work((2, piece, cut.shared, "big.py", False, {}))
    assert len(audit.analysis.findings) > 20 and len(rewrite.analysis.findings) < 8
    shared = [f for f in audit.analysis.findings if piece.module_line(f.line)[1] in cut.shared]
    own = [f for f in audit.analysis.findings if piece.module_line(f.line)[1] not in cut.shared]
    firsts = [f for i, f in enumerate(own) if f.rule not in {g.rule for g in own[:i]}]
    assert rewrite.analysis.findings == [f for f in audit.analysis.findings if f in shared or f in firsts]


def test_a_piece_counts_its_edits_by_line_without_generating_their_statements(monkeypatch, small_pieces):
    """Which edits a piece keeps is read from each edit's line (`line_of`, from CPython's ast): asking `where` for
    it generated the code of every edited statement to learn a column nobody reads (a tenth of a piece)."""
    from codemod.analysis.syntax import LazyPositions

    monkeypatch.setattr(pieces, "PIECE_BYTES", 3000)
    cut = pieces.split(client_module(60))
    generated = []
    real = LazyPositions._compute
    monkeypatch.setattr(LazyPositions, "_compute", lambda self, node: generated.append(node) or real(self, node))
    done = engine._piece_work((2, cut.pieces[2], cut.shared, "big.py", True, {}))
    assert generated == []
    lines = cut.pieces[2].text.splitlines()
    stops, reads = (len([line for line in lines if line.startswith(f"def {name}_")])
                    for name in ("stop_pod", "pod_status"))
    assert stops > 3 and dict(done.rules) == {"L04": 2 * stops, "Q13": reads}  # not the base's L01: piece 0's
    assert done.new_text.count('json={"action": "stop"}') == stops
