"""The one index of mappings/ that rewrite and audit both read (mappings/index.py)."""
from __future__ import annotations

from codemod.audit.catalogue import catalogue
from codemod.audit.engine import _prefilter
from codemod.knowledge import handed_in_fields, knowledge
from codemod.prefilter import needs_parse
from mappings.index import index


def test_rewrite_and_audit_read_one_index() -> None:
    ix = index()
    assert knowledge() is ix
    cat = catalogue()
    assert cat.field_rules == ix.field_rules and cat.param_rules == ix.param_rules
    assert cat.distinctive == ix.v1_only_names
    assert cat.first_segments == ix.resources
    assert set(handed_in_fields()) <= ix.v1_only_names
    assert _prefilter().pattern == ix.prefilter(bytes_=True).pattern


def test_index_facts_come_from_the_data() -> None:
    ix = index()
    assert [r.op.id for r in ix.match("/pods/abc/stop", "POST")] == ["pods.stop"]
    assert ix.match("/pods/abc/stop", "GET") == []
    assert ix.field_rules["desiredStatus"] == ("Q13",)
    assert "endpointId" in ix.param_rules and "endpointId" not in ix.field_rules
    assert "message" not in ix.v1_only_names and "desiredStatus" in ix.v1_only_names
    assert ix.host_kind("rest.runpod.io") == "v1" and ix.host_kind("api.runpod.ai") == "runtime"
    assert ix.host_kind("127.0.0.1:8000") is None
    assert ix.is_runtime_path("/v2/abc/runsync") and not ix.is_runtime_path("/v2/pods/abc")


def test_a_path_with_parts_known_only_at_run_time_could_be_each_route_they_fill() -> None:
    ix, hole = index(), "\x00"
    assert [r.op.id for r in ix.could_match(f"/pods/abc/{hole}", "POST", hole)] == [
        "pods.update_alias", "pods.start", "pods.stop", "pods.restart", "pods.reset"]
    assert [r.op.id for r in ix.could_match(f"/pods/{hole}-x/stop", "POST", hole)] == ["pods.stop"]
    assert [r.op.id for r in ix.could_match(f"/pods/{hole}/stop", None, hole)] == ["pods.stop"]
    assert ix.could_match("/pods/abc/resume", "POST", hole) == []  # no hole: a verb v1 never had
    assert ix.could_match(f"/pods/abc/{hole}", "GET", hole) == []


def test_one_prefilter_for_both_tools() -> None:
    assert needs_parse('URL = "https://rest.runpod.io/v1"')
    assert needs_parse('self._request("POST", f"pods/{pod_id}/stop")')  # relative path, no leading slash
    assert needs_parse('print(pod["desiredStatus"])')
    assert not needs_parse("def add(a, b):\n    return a + b\n")


def test_the_prefilter_finds_every_token_and_branches_once_per_character() -> None:
    """Each token found, alone and amid other text, in str and bytes; and the alternation is a trie (no two
    alternatives of one group start with the same character; a look-behind at a token's end is no branch), so a
    file holding no token costs one branch per character, not one per token; and it is entered only at rare
    characters (a token is looked for from its rarest one), never at a common lowercase letter."""
    import re

    ix = index()
    text, data = ix.prefilter(), ix.prefilter(bytes_=True)
    for token in ix.prefilter_tokens:
        assert text.search(f"x = 1  # {token} here") and data.search(f"x = 1 {token}".encode()), token
        assert text.search(token) and data.search(token.encode()), token
    assert not text.search("def add(a, b):\n    return a + b\n")

    def groups(pattern: str) -> list[list[str]]:
        """The alternatives of every parenthesised group, outermost last (a look-behind is one atom: `<`)."""
        out, stack, i = [], [[[]]], 0
        while i < len(pattern):
            char = pattern[i]
            if char == "\\":
                stack[-1][-1].append(pattern[i:i + 2])
                i += 2
                continue
            if pattern.startswith("(?<=", i):
                i = pattern.index(")", i) + 1  # a token, escaped: no parenthesis in it
                stack[-1][-1].append("<")
                continue
            if pattern.startswith("(?:", i):
                stack.append([[]])
                i += 3
                continue
            if char == ")":
                out.append(["".join(a) for a in stack.pop()])
                stack[-1][-1].append("(...)")
            elif char == "|":
                stack[-1].append([])
            else:
                stack[-1][-1].append(char)
            i += 1
        out.append(["".join(a) for a in stack.pop()])
        return out

    every = groups(text.pattern)
    for alternatives in every:
        firsts = [re.match(r"\\.|.", a).group() for a in alternatives if a and not a.startswith("<")]
        assert len(firsts) == len(set(firsts)), alternatives
    entries = {re.match(r"\\.|.", a).group().lstrip("\\") for a in every[-1]}
    assert not entries & set("etaoinsrlcdu"), sorted(entries)


def test_the_prefilter_matches_exactly_where_a_token_is() -> None:
    """A match for any text that holds a token, none for a text that holds none: each token, its near misses (a
    character dropped at either end or at the one it is looked for from, one changed), and the repository's files."""
    from pathlib import Path

    ix = index()
    tokens = sorted(ix.prefilter_tokens)
    text, data = ix.prefilter(), ix.prefilter(bytes_=True)
    samples = []
    for token in tokens:
        samples += [token, token[1:], token[:-1], "x" + token[1:], token[:-1] + "#", f"a {token} b"]
        samples += [token[:i] + token[i + 1:] for i in range(len(token))]
        samples += [token[:i] + ("Q" if token[i] != "Q" else "q") + token[i + 1:] for i in range(len(token))]
    root = Path(__file__).resolve().parents[2]
    samples += [p.read_text(encoding="utf-8", errors="replace") for p in sorted(root.glob("*/**/*.py"))[:400]]
    for sample in samples:
        holds = any(token in sample for token in tokens)
        assert bool(text.search(sample)) == holds and bool(data.search(sample.encode())) == holds, sample[:80]


def test_a_path_is_matched_against_the_routes_once_per_method(monkeypatch) -> None:
    """Every call site of a module asks for the routes of its path (a large module: the same few paths thousands of
    times); the routes are scanned once per path and method, each caller given a list of its own."""
    from mappings.index import Index

    ix = index()
    scans = []
    real = Index._match
    monkeypatch.setattr(ix, "_matched", {})
    monkeypatch.setattr(Index, "_match",
                        lambda self, path, method: scans.append((path, method)) or real(self, path, method))
    first, second = ix.match("/pods/\x00/stop", "POST"), ix.match("/pods/\x00/stop", "POST")
    any_method = ix.match("/pods/\x00/stop", None)
    assert [r.label() for r in first] == ["POST /pods/{podId}/stop"] and first == second and first is not second
    assert any_method == first and scans == [("/pods/\x00/stop", "POST"), ("/pods/\x00/stop", None)]
    first.clear()
    assert ix.match("/pods/\x00/stop", "POST") == second
