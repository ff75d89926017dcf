"""Property over the whole rule catalogue (mappings/data/rules.yaml): each rule has a fixture that triggers it
and one that must not. Fixtures are generated from the catalogue itself, so a rule added to the data is covered
(or must be listed in UNDETECTABLE with its reason)."""
from __future__ import annotations

import re

import pytest

from codemod.audit.catalogue import catalogue
from codemod.audit.scan_text import scan_text

CAT = catalogue()
# GraphQL operations (class `retiring`) are covered by tests/audit/test_graphql.py, one fixture per operation.
REST_RULES = sorted(rid for rid, rule in CAT.rules.items() if rule.rule_class != "retiring")
V1 = CAT.mappings.conventions.hosts.v1[0]
V2 = CAT.mappings.conventions.hosts.v2[0]

# Rules that no code can reveal, with the reason. Kept exact by test_undetectable_set_is_exact.
UNDETECTABLE: dict[str, str] = {}


def _concrete(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "abc123", path)


def trigger_fixtures(rule_id: str) -> list[tuple[str, str]]:
    """(description, JS source) that should each raise RULE_ID: a v1 call on every route the rule concerns,
    the rule's fields as request keys and response reads, its params in a query string."""
    rule = CAT.rules[rule_id]
    out = []
    for route in CAT.routes:
        for method in route.methods():
            if rule_id in CAT.route_rules(route, method):
                out.append((f"{method} {route.path}",
                            f'const BASE = "{V1}";\nfetch(`${{BASE}}{_concrete(route.path)}`, {{ method: "{method}" }});\n'))
    for name in rule.concerns.fields:
        out.append((f"key {name}", f'const BASE = "{V1}";\nconst body = {{ "{name}": 1 }};\n'))
        out.append((f"read {name}", f'const BASE = "{V1}";\nconst value = data["{name}"];\n'))
    for name in rule.concerns.params:
        out.append((f"param {name}", f'const BASE = "{V1}";\nfetch(BASE + "/pods?{name}=1");\n'))
    return out


def quiet_fixture(rule_id: str) -> str:
    """v2 code doing the same things: v2 routes, and the rule's v1 names only in comments."""
    rule = CAT.rules[rule_id]
    lines = [f'const BASE = "{V2}/v2";']
    for route in CAT.routes:
        for op in route.operations:
            if rule_id in CAT.route_rules(route, op.v1.method) and op.v2 is not None:
                lines.append(f'fetch(`${{BASE}}{_concrete(op.v2.path[len(CAT.v2_prefix):])}`, '
                             f'{{ method: "{op.v2.method}" }});  // was {op.v1.method} {op.v1.path}')
    for name in [*rule.concerns.fields, *rule.concerns.params]:
        lines.append(f"// was {name}; /* {name} */")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("rule_id", REST_RULES)
def test_rule_is_triggered_by_a_v1_fixture(rule_id: str):
    """Guards against a catalogue rule the audit can never report (recall over the whole catalogue)."""
    if rule_id in UNDETECTABLE:
        pytest.skip(UNDETECTABLE[rule_id])
    fixtures = trigger_fixtures(rule_id)
    assert fixtures, f"{rule_id} names no path, field or param to build a fixture from"
    hit = [desc for desc, src in fixtures if rule_id in {f.rule for f in scan_text(src, "fixture.js").findings}]
    assert hit, f"{rule_id} was not reported by any of: {[d for d, _ in fixtures]}"


@pytest.mark.parametrize("rule_id", REST_RULES)
def test_rule_is_silent_on_equivalent_v2_code(rule_id: str):
    """Guards against a rule firing on v2 code or on a comment that names the v1 spelling (precision)."""
    found = scan_text(quiet_fixture(rule_id), "fixture.js").findings
    assert [(f.rule, f.line, f.message) for f in found] == []


def test_undetectable_set_is_exact():
    """Guards against the documented set of undetectable rules growing, or listing a rule that is detected."""
    assert len(UNDETECTABLE) <= 3
    for rule_id in UNDETECTABLE:
        assert rule_id in CAT.rules
        fixtures = trigger_fixtures(rule_id)
        assert not any(rule_id in {f.rule for f in scan_text(src, "f.js").findings} for _, src in fixtures), \
            f"{rule_id} is listed as undetectable but a fixture triggers it"


def test_v1_only_spellings_are_derived_from_mappings():
    """Guards issue 25: the paths that mean v1 wherever their base comes from are read from mappings/ (no such
    v2 path, or v2 serves all its operations elsewhere, as /billing/endpoints -> /v2/billing/serverless), never
    a page word such as /docs, never a path v2 serves the same (/pods, /billing/pods)."""
    from codemod.audit.catalogue import catalogue

    only = {r.path for r in catalogue().routes if r.v1_only}
    assert {"/networkvolumes", "/containerregistryauth", "/billing/endpoints", "/billing/networkvolumes",
            "/pods/{podId}/stop", "/pods/{podId}/reset", "/pods/{podId}/update",
            "/templates/{templateId}/update", "/endpoints/{endpointId}/update"} <= only
    assert not only & {"/docs", "/openapi.json", "/pods", "/pods/{podId}", "/templates", "/billing/pods"}


def test_a_v1_only_path_is_a_call_wherever_its_base_is(tmp_path):
    """Guards issue 25: `c.Get("/containerregistryauth", nil)` with the base in no file of the run is still a v1
    call (needs-migration), not a review."""
    from tests.audit.conftest import audit_json

    (tmp_path / "registry.go").write_text('package rp\n\nfunc (c *Client) Auths() error {\n'
                                          '\treturn c.Get("/containerregistryauth", nil)\n}\n')
    data = audit_json(tmp_path)
    assert {f["path"]: f["status"] for f in data["files"]} == {"registry.go": "needs-migration"}
    assert {(f["rule"], f["line"], f["kind"]) for f in data["findings"]} >= {("L01", 4, "call")}


def test_a_call_the_analysis_read_is_not_reported_again_on_the_line_of_its_path(tmp_path):
    """`self.http.post(\n    "/endpoints", ...)`: the Python analysis reads the call (its first line); the pass
    for paths handed to code out of sight reported the path's own line again, as a call it could not follow (one
    fixable and one unfixable L01 for the same create, corpus httpx_client_base_url_endpoints.py)."""
    from tests.audit.conftest import audit_json

    (tmp_path / "client.py").write_text(
        'import httpx\n\n\nclass C:\n    def __init__(self):\n'
        '        self.http = httpx.Client(base_url="https://rest.runpod.io/v1")\n\n'
        '    def create(self, name):\n        return self.http.post(\n            "/endpoints",\n'
        '            json={"name": name, "templateId": "t"},\n        ).json()\n')
    data = audit_json(tmp_path)
    assert {(f["rule"], f["line"]) for f in data["findings"] if f["rule"] == "L01" and f["kind"] == "call"} == {
        ("L01", 9)}
