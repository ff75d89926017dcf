"""GraphQL inventory (mappings/data/graphql.yaml): every operation reported in Python, JavaScript and shell,
with its v2 route or "no v2 equivalent"; --scope separates REST v1 and GraphQL."""
from __future__ import annotations

import json

import pytest

from codemod.audit.catalogue import catalogue
from codemod.audit.engine import analyze_source
from tests.audit.conftest import SAMPLES, audit_json
from v1bridge.cli import main

INVENTORY = catalogue().mappings.graphql
OPS = {op.id: op for op in INVENTORY.operations}


def _document(op) -> str:
    if op.parent:
        return f"query {{ {op.parent} {{ {op.field} {{ id }} }} }}" if op.field[0].islower() and op.field not in (
            "clientBalance", "currentSpendPerHr", "pubKey", "email") else f"query {{ {op.parent} {{ {op.field} }} }}"
    args = "(input: {podId: $id})" if op.kind == "mutation" else ""
    return f"{op.kind} Op($id: String) {{ {op.field}{args} {{ id }} }}"


def _findings(source: str, path: str) -> set[tuple[str, int]]:
    return {(f.rule, f.line) for f in analyze_source(source, path).findings}


def test_inventory_has_every_operation_the_issue_names():
    """Guards the inventory's coverage: deploy (on demand and spot), resume, stop, terminate, edit; template and
    endpoint save/delete; network volume, registry, billing and account queries."""
    selections = {op.selection for op in INVENTORY.operations}
    assert {"podFindAndDeployOnDemand", "podRentInterruptable", "podResume", "podStop", "podTerminate", "podEditJob",
            "saveTemplate", "deleteTemplate", "saveEndpoint", "deleteEndpoint", "myself.networkVolumes",
            "myself.containerRegistryCreds", "myself.clientBalance", "myself.email"} <= selections
    assert len(INVENTORY.operations) >= 20
    assert all(catalogue().rules[op.id].rule_class == "retiring" for op in INVENTORY.operations)
    assert catalogue().rules["G01"].rule_class == "retiring"


def test_every_v2_equivalent_is_a_v2_operation_or_says_there_is_none():
    """Guards the remedies: a named v2 route exists in v2.json; the others say "no v2 equivalent"."""
    from mappings import load_schema

    paths = load_schema("v2")["paths"]
    for op in INVENTORY.operations:
        rule = catalogue().rules[op.id]
        if op.v2 is None:
            assert rule.remedy.startswith("no v2 equivalent: "), op.id
        else:
            method, path = op.v2_route
            assert method.lower() in paths[path], op.id
            assert rule.remedy.startswith(f"use {op.v2}"), op.id


@pytest.mark.parametrize("rule_id", sorted(OPS))
def test_each_operation_is_reported_in_python_javascript_and_shell(rule_id):
    """Guards recall over the whole inventory, in the three languages GraphQL clients are written in."""
    doc = _document(OPS[rule_id])
    py = f'import requests\nQ = """{doc}"""\nrequests.post("https://api.runpod.io/graphql", json={{"query": Q}})\n'
    js = f'const Q = `{doc}`;\nfetch("https://api.runpod.io/graphql", {{ method: "POST", body: JSON.stringify({{ query: Q }}) }});\n'
    sh = "curl -s https://api.runpod.io/graphql -d '" + json.dumps({"query": doc}) + "'\n"
    assert (rule_id, 2) in _findings(py, "client.py"), py
    assert (rule_id, 1) in _findings(js, "client.js"), js
    assert (rule_id, 1) in _findings(sh, "client.sh"), sh


def test_graphql_samples_exact_findings_and_remedies():
    """Guards the GraphQL samples (Python f-string document, JS template and concatenation, curl JSON body):
    exactly these findings, each with its v2 route or "no v2 equivalent"."""
    data = audit_json(SAMPLES / "graphql")
    got = {(f["rule"], f["path"], f["line"]): f["v2_target"] for f in data["findings"]}
    assert got == {
        ("G01", "client.py", 3): None,  # the GraphQL URL in a module constant
        ("G06", "client.py", 9): "POST /v2/pods/{id}/action {action: stop}",  # podStop in an f-string document
        ("G22", "client.py", 17): "GET /v2/network-volumes",  # myself { networkVolumes }
        ("G27", "client.py", 17): "no v2 equivalent",  # myself { clientBalance }: v2 has no balance
        ("G01", "deploy.js", 1): None,  # URL in a template literal with the key interpolated
        ("G01", "deploy.js", 7): None, ("G01", "deploy.js", 10): None,  # fetch(GQL, ...): the request lines
        ("G02", "deploy.js", 4): "POST /v2/pods",  # podFindAndDeployOnDemand in a named mutation
        ("G07", "deploy.js", 11): "DELETE /v2/pods/{id}",  # podTerminate in a concatenated document
        ("G01", "gql.sh", 3): None,  # curl to the GraphQL URL
        ("G04", "gql.sh", 4): "POST /v2/pods/{id}/action {action: start}",  # podResume inside a JSON body
    }
    assert {f["language"] for f in data["findings"]} == {"python", "javascript", "shell"}
    assert all(f["class"] == "retiring" and f["kind"] == "graphql" for f in data["findings"])


def test_comments_and_look_alike_names_are_not_graphql_findings():
    """Guards precision: a document in a comment, a JS function named like an operation, REST code."""
    js = ('// mutation { podStop(input: {podId: "x"}) { id } }\n'
          'export function podStop(id) { return api.stop(id); }\n'
          'const label = "podTerminate";\n')
    assert _findings(js, "ops.js") == set()
    py = '# query { myself { pods { id } } }\ndef podResume(x):\n    return "podResume"\n'
    assert _findings(py, "ops.py") == set()


def test_scope_separates_rest_and_graphql(tmp_path, capsys):
    """Guards --scope: rest leaves the GraphQL findings out, graphql keeps only them."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "mixed.js").write_text(
        'const REST = "https://rest.runpod.io/v1";\n'
        'export const stop = (id) => fetch(`${REST}/pods/${id}/stop`, { method: "POST" });\n'
        'export const gq = (q) => fetch("https://api.runpod.io/graphql", { method: "POST", body: q });\n')
    classes = {}
    for scope in ("rest", "graphql", "all"):
        assert main(["audit", str(repo), "--format", "json", "--scope", scope]) == 0
        classes[scope] = sorted({f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]})
    assert classes == {"rest": ["L01", "L04", "Q24"], "graphql": ["G01"], "all": ["G01", "L01", "L04", "Q24"]}


def test_python_docstrings_are_documentation_not_findings():
    """Guards against a module docstring that shows a GraphQL document being reported."""
    py = ('"""Stop a pod.\\n\\n    mutation { podStop(input: {podId: $id}) { id } }\\n"""\n'
          'import requests\nURL = "https://api.runpod.io/graphql"\n')
    assert _findings(py, "doc.py") == {("G01", 3)}
