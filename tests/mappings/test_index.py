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
