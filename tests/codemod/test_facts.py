"""The facts of one file (codemod/analysis/facts.py): what the rules read, and nothing that outlives its file."""
from __future__ import annotations

import gc
import weakref

import libcst as cst

from codemod.analysis import analyze

SOURCE = '''import requests
API = "https://rest.runpod.io/v1"
def pods():
    return requests.get(f"{API}/pods").json()
'''


def test_the_facts_do_not_keep_their_analyzer_alive() -> None:
    """`facts.source` answers through the analyzer while the file is planned, and never holds it: a cycle kept each
    file's tree and index alive until a GC pass (3% more CPU on the corpus, a tree per file in memory)."""
    an, facts = analyze(SOURCE, "pods.py")
    assert facts.source is not None and facts.source.where(facts.calls[0].call)[0] == 4
    gone = weakref.ref(an)
    gc.disable()
    try:
        del an
        assert gone() is None
    finally:
        gc.enable()


def test_source_answers_for_parsed_nodes_only() -> None:
    an, facts = analyze(SOURCE, "pods.py")
    call = facts.calls[0].call
    assert isinstance(facts.source.statement_of(call), cst.SimpleStatementLine)
    assert facts.source.scope_of(call).name.value == "pods"
    assert facts.source.span(call).start.line == 4
    assert facts.source.span(cst.Name("made")) is None and facts.source.where(cst.Name("made")) == (0, 0, "")
    assert facts.source.assigned(None, "API")[0][0].value == '"https://rest.runpod.io/v1"'
