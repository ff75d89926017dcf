"""`v1bridge translate` on a GraphQL document: the v2 calls each selected operation would make, nothing called."""
from __future__ import annotations

import json

from proxy.graphql.translate import translate
from v1bridge.cli import main


def test_each_selected_operation_and_its_v2_calls():
    out = translate('query { myself { pods { id } pubKey } gpuTypes { id } }')["graphql"]
    assert out["operation"] == "query"
    assert [(f["field"], f["rule"]) for f in out["fields"]] == [("myself.pods", "G11"), ("myself.pubKey", "G30"),
                                                               ("gpuTypes", "G26")]
    pods, keys, gpus = out["fields"]
    assert pods["v2"] == {"method": "GET", "path": "/v2/pods", "query": [["limit", "1000"]]}
    assert "every page" in pods["pages"]
    assert keys["v2"] == {"method": "GET", "path": "/v2/account/ssh-keys"}
    assert gpus["v2"] == {"method": "GET", "path": "/v2/catalog/gpus"}


def test_variables_policies_and_gaps():
    doc = ("mutation($id: String!) { podStop(input: {podId: $id}) { id } "
           "updateRegistryAuth(input: {id: $id, username: \"u\", password: \"p\"}) { id } }")
    stop, gap = translate(doc, {"id": "abc"})["graphql"]["fields"]
    assert stop["v2"] == {"method": "POST", "path": "/v2/pods/abc/action", "body": {"action": "stop"}}
    assert gap["answer"]["error"] == "NOT_SUPPORTED_BY_V2" and gap["replaced_by"] == "no v2 equivalent"
    create = ('mutation { podFindAndDeployOnDemand(input: {name: "x", imageName: "i", gpuTypeId: "NVIDIA A40", '
              'cloudType: ALL}) { id } }')
    emulated = translate(create)["graphql"]["fields"][0]
    assert emulated["fallback"] == {"cloud": ["SECURE", "COMMUNITY"]} and "cloud-all" in emulated["emulations"]
    refused = translate(create, strict=frozenset({"cloud-all"}))["graphql"]["fields"][0]
    assert refused["answer"]["status"] == 501 and "SECURE or COMMUNITY" in refused["answer"]["message"]


def test_an_invalid_document_is_reported_not_raised():
    out = translate("{ myself { nope } }")["graphql"]
    assert out["status"] == 400 and out["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"


def test_the_cli_takes_a_document_or_a_graphql_request_body(capsys):
    assert main(["translate", 'mutation { podTerminate(input: {podId: "p1"}) }']) == 0
    field = json.loads(capsys.readouterr().out)["graphql"]["fields"][0]
    assert field["v2"] == {"method": "DELETE", "path": "/v2/pods/p1"}
    body = json.dumps({"query": "query($id: String!) { pod(input: {podId: $id}) { id } }", "variables": {"id": "p2"}})
    assert main(["translate", "POST", "/graphql", body]) == 0
    field = json.loads(capsys.readouterr().out)["graphql"]["fields"][0]
    assert field["v2"] == {"method": "GET", "path": "/v2/pods/p2"}


def test_the_cli_exits_1_for_a_document_the_proxy_would_refuse(capsys):
    assert main(["translate", "{ myself { nope } }"]) == 1
    assert json.loads(capsys.readouterr().out)["graphql"]["status"] == 400


def test_nested_records_read_by_their_own_call_are_named():
    fields = translate("{ myself { endpoints { id networkVolume { id } } } }")["graphql"]["fields"]
    assert "then" not in fields[0]  # the id is in the endpoint
    [endpoints] = translate("{ myself { endpoints { id networkVolume { dataCenterId } } } }")["graphql"]["fields"]
    assert endpoints["v2"]["path"] == "/v2/serverless"
    assert endpoints["then"] == [{"field": "Endpoint.networkVolume", "once": "per id in the answer",
                                  "v2": {"method": "GET", "path": "/v2/network-volumes/{id}"}}]
