"""A large file is not quadratic (issue 23 item 10).

Before: `rewrite` of a 0.5 MB file took 66 s and the audit of a 1 MB file with 7,392 v1 calls was killed at
120 s: `references` (then in codemod/decide.py, now codemod/analysis/references.py) scanned every same-named
Name of the module, each time asking for its binding scope (811,800 `binding_scope` calls for 900 call sites).
Counting that work is exact and does not depend on the machine's load; the times themselves are measured by
bench/large_file_bench.py (docs/bench.md).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from codemod.analysis import references
from codemod.engine import analyze_python, rewrite_source

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from large_file_bench import client_module  # noqa: E402  (the benchmark's file, smaller)


def _scope_lookups(monkeypatch, source: str, run) -> int:
    calls = 0
    real = references.binding_scope

    def counting(an, name):
        nonlocal calls
        calls += 1
        return real(an, name)

    monkeypatch.setattr(references, "binding_scope", counting)
    run(source)
    return calls


@pytest.mark.parametrize("run", [
    lambda text: analyze_python(text, "big.py", edits=False),  # the audit
    lambda text: rewrite_source(text, "big.py"),  # the rewrite
], ids=["audit", "rewrite"])
def test_the_work_per_call_site_does_not_grow_with_the_file(monkeypatch, run):
    small = _scope_lookups(monkeypatch, client_module(40), run)
    large = _scope_lookups(monkeypatch, client_module(160), run)
    assert small > 0, "the measured path must run"
    assert large <= 4.5 * small, f"4x the call sites cost {large / small:.1f}x the scope lookups (quadratic: ~16x)"


def test_the_answers_are_the_same(monkeypatch):
    """The index changes the cost of `references`, not what it finds."""
    text = client_module(12)
    result = rewrite_source(text, "big.py")
    assert result.changed and "rest.runpod.io/v1" not in result.new_source
    assert result.new_source.count("/v2") >= 1 and result.new_source.count("def stop_pod_") == 12


@pytest.mark.parametrize("run", [
    lambda text: analyze_python(text, "big.py", edits=False),  # the audit
    lambda text: rewrite_source(text, "big.py"),  # the rewrite
], ids=["audit", "rewrite"])
def test_the_calls_of_each_function_are_found_once(monkeypatch, run):
    """Every function of a module is asked whether it is a helper other files may call; each asking scanned every
    call of the module for those inside it (a 0.25 MB module: 3.4 million scope lookups). The calls are indexed by
    their function once."""
    from codemod.analysis import Analyzer

    def lookups(text: str) -> int:
        calls = 0
        real = Analyzer.scope_of

        def counting(self, node):
            nonlocal calls
            calls += 1
            return real(self, node)

        monkeypatch.setattr(Analyzer, "scope_of", counting)
        run(text)
        monkeypatch.setattr(Analyzer, "scope_of", real)
        return calls

    small, large = lookups(client_module(40)), lookups(client_module(160))
    assert small > 0
    assert large <= 4.5 * small, f"4x the functions cost {large / small:.1f}x the scope lookups (quadratic: ~16x)"
