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


def test_one_prefilter_for_both_tools() -> None:
    assert needs_parse('URL = "https://rest.runpod.io/v1"')
    assert needs_parse('self._request("POST", f"pods/{pod_id}/stop")')  # relative path, no leading slash
    assert needs_parse('print(pod["desiredStatus"])')
    assert not needs_parse("def add(a, b):\n    return a + b\n")


def test_the_prefilter_finds_every_token_and_branches_once_per_character() -> None:
    """Each token found, alone and amid other text, in str and bytes; and the alternation is a trie (no two
    alternatives of one group start with the same character), so a file holding no token costs one branch per
    character, not one per token."""
    import re

    ix = index()
    text, data = ix.prefilter(), ix.prefilter(bytes_=True)
    for token in ix.prefilter_tokens:
        assert text.search(f"x = 1  # {token} here") and data.search(f"x = 1 {token}".encode()), token
    assert not text.search("def add(a, b):\n    return a + b\n")

    def groups(pattern: str) -> list[list[str]]:
        """The alternatives of every parenthesised group, outermost last."""
        out, stack, i = [], [[[]]], 0
        while i < len(pattern):
            char = pattern[i]
            if char == "\\":
                stack[-1][-1].append(pattern[i:i + 2])
                i += 2
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

    for alternatives in groups(text.pattern):
        firsts = [re.match(r"\\.|.", a).group() for a in alternatives if a]
        assert len(firsts) == len(set(firsts)), alternatives
