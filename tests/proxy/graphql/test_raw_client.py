"""A second client shape, as users write them: `requests.post(".../graphql?api_key=...", json={"query": ...,
"variables": ...})`, with named operations, variables for every input, and the v2 state read back through /v2."""
from __future__ import annotations

import requests

from tests.proxy.graphql.conftest import KEY

DEPLOY = """
mutation Deploy($input: PodFindAndDeployOnDemandInput!) {
  podFindAndDeployOnDemand(input: $input) { id name desiredStatus gpuCount ports env volumeInGb }
}
"""
PODS = "query Pods { myself { pods { id name desiredStatus } } }"
STOP = "mutation Stop($id: String!) { podStop(input: {podId: $id}) { id desiredStatus } }"
TERMINATE = "mutation Kill($id: String!) { podTerminate(input: {podId: $id}) }"


def graphql(base: str, query: str, variables: dict | None = None, key: str = KEY) -> requests.Response:
    return requests.post(f"{base}/graphql?api_key={key}", json={"query": query, "variables": variables or {}},
                         timeout=30)


def test_a_raw_requests_script(live):
    base = live.url
    resp = graphql(base, DEPLOY, {"input": {
        "name": "script-pod", "imageName": "me/app:3", "gpuTypeId": "NVIDIA L4", "gpuCount": 2, "cloudType": "COMMUNITY",
        "volumeInGb": 25, "containerDiskInGb": 20, "ports": "8080/http", "env": [{"key": "TOKEN", "value": "x=y"}],
        "startSsh": False}})
    assert resp.status_code == 200, resp.text
    created = resp.json()["data"]["podFindAndDeployOnDemand"]
    pod_id = created["id"]
    assert created == {"id": pod_id, "name": "script-pod", "desiredStatus": "RUNNING", "gpuCount": 2,
                       "ports": "8080/http", "env": ["TOKEN=x=y"], "volumeInGb": 25}
    assert resp.headers["Deprecation"].startswith("@")
    state = requests.get(f"{base}/v2/pods/{pod_id}", headers={"Authorization": f"Bearer {KEY}"}, timeout=10).json()
    assert (state["cloud"], state["gpu"]["id"], state["gpu"]["count"], state["disk"], state["env"]) == (
        "COMMUNITY", "NVIDIA L4", 2, 20, {"TOKEN": "x=y"})

    listed = graphql(base, PODS).json()["data"]["myself"]["pods"]
    assert {"id": pod_id, "name": "script-pod", "desiredStatus": "RUNNING"} in listed

    stopped = graphql(base, STOP, {"id": pod_id}).json()
    assert stopped == {"data": {"podStop": {"id": pod_id, "desiredStatus": "EXITED"}}}
    again = graphql(base, STOP, {"id": pod_id}).json()  # v2 refuses to stop a stopped pod (409)
    assert again["data"] == {"podStop": None} and again["errors"][0]["path"] == ["podStop"]
    assert again["errors"][0]["extensions"]["code"] in ("CONFLICT", "BAD_USER_INPUT")

    assert graphql(base, TERMINATE, {"id": pod_id}).json() == {"data": {"podTerminate": None}}
    assert requests.get(f"{base}/v2/pods/{pod_id}", headers={"Authorization": f"Bearer {KEY}"},
                        timeout=10).status_code == 404

    assert graphql(base, PODS, key="not-a-key").status_code == 401
    bad = graphql(base, "query { myself { pods { id, } }")
    assert bad.status_code == 400 and bad.json()["errors"][0]["extensions"]["code"] == "GRAPHQL_PARSE_FAILED"
