"""v2_body / with_v1_body: a v1 body built where the rewrite cannot see it, converted when it runs.

The proxy's request translator is the reference: the same v1 body gives the same v2 body.
"""
from __future__ import annotations

import pytest

from mappings.translate import translators

from tests.codemod.compat.conftest import AVAILABLE_GPU, UNAVAILABLE_GPU, Client

BODIES = [
    ("pods.create", {"name": "a", "imageName": "img", "gpuTypeIds": ["A", "B"], "gpuCount": 2}),
    ("pods.create", {"imageName": "img", "computeType": "CPU", "cpuFlavorIds": ["cpu3c"], "vcpuCount": 4,
                     "volumeInGb": 30}),
    ("pods.create", {"imageName": "img", "computeType": "CPU"}),
    ("pods.create", {"imageName": "img", "gpuTypeIds": ["A"], "networkVolumeId": "", "ports": "8888/http, 22/tcp",
                     "dockerStartCmd": ["python", "x.py"], "env": {"K": "V"}, "cloudType": "SECURE",
                     "dataCenterIds": ["EU-RO-1"], "containerDiskInGb": None}),
    ("pods.create", {"imageName": "img", "gpuTypeIds": ["A"], "networkVolumeId": "nv1", "volumeMountPath": "/d"}),
    ("pods.create", {"templateId": "t1", "gpuTypeIds": ["A"]}),
    ("pods.update", {"name": "b", "imageName": "img2", "ports": ["80/http"], "volumeInGb": 40,
                     "volumeMountPath": "/w"}),
    ("endpoints.create", {"templateId": "t1", "computeType": "CPU", "cpuFlavorIds": ["cpu3c", "cpu5c"],
                          "workersMax": 3, "scalerType": "REQUEST_COUNT", "scalerValue": 2, "idleTimeout": 9,
                          "flashboot": True, "networkVolumeIds": ["a", "b"]}),
    ("endpoints.update", {"workersMin": 1, "scalerType": "QUEUE_DELAY", "scalerValue": 6, "flashboot": False}),
    ("templates.create", {"name": "t", "imageName": "img", "isServerless": True, "readme": "x"}),
    ("templates.update", {"imageName": "img3", "volumeInGb": 5, "volumeMountPath": "/v"}),
    ("network_volumes.create", {"name": "n", "size": 10, "dataCenterId": "EU-RO-1"}),
    ("registries.create", {"name": "r", "username": "u", "password": "p"}),
]


@pytest.mark.parametrize("op,body", BODIES, ids=[f"{op}-{n}" for n, (op, _) in enumerate(BODIES)])
def test_the_v2_body_equals_the_proxys_translation(cm, op, body):
    request_map = next(o for o in cm.OPERATIONS if o["id"] == op)["request"]
    expected = translators().request(request_map, body).body
    assert cm.v2_body(op, body) == expected


def test_a_translation_that_must_read_v2_first_says_so(cm):
    with pytest.raises(cm.NeedsLookup, match="catalog"):
        cm.v2_body("endpoints.create", {"templateId": "t1", "gpuTypeIds": ["NVIDIA RTX A5000"]})
    with pytest.raises(cm.NeedsLookup, match="current"):
        cm.v2_body("pods.update", {"volumeInGb": 50})


def test_a_v1_value_without_a_v2_form_is_invalid_value(cm):
    with pytest.raises(cm.InvalidValue, match="gpuTypeIds"):
        cm.v2_body("pods.create", {"imageName": "img", "gpuTypeIds": []})
    with pytest.raises(cm.InvalidValue, match="computeType"):
        cm.v2_body("pods.create", {"imageName": "img", "computeType": "TPU"})
    assert issubclass(cm.InvalidValue, cm.CompatError) and issubclass(cm.InvalidValue, ValueError)


def test_with_v1_body_walks_the_fallback_list_of_an_unseen_body(cm, client):
    body = {"name": "unseen", "imageName": "runpod/base:0.6.2", "gpuTypeIds": [UNAVAILABLE_GPU, AVAILABLE_GPU],
            "gpuTypePriority": "custom"}
    answer = cm.with_v1_body(client.create_pod, "pods.create", body)
    assert answer.status_code == 201 and answer.json()["gpu"]["id"] == AVAILABLE_GPU
    assert [b["gpu"]["id"] for _, _, b in client.calls] == [UNAVAILABLE_GPU, AVAILABLE_GPU]
    assert client.calls[-1][2] == {**cm.v2_body("pods.create", body), "gpu": {**client.calls[-1][2]["gpu"]}}


def test_with_v1_body_reads_the_catalog_through_send(cm, client):
    template = client.send("POST", "/templates", json={"name": "tpl-body", "image": "runpod/worker:1",
                                                       "serverless": True}).json()
    answer = cm.with_v1_body(lambda b: client.send("POST", "/serverless", json=b), "endpoints.create",
                             {"templateId": template["id"], "gpuTypeIds": [AVAILABLE_GPU]}, send=client.send)
    assert answer.status_code == 201, answer.text
    assert answer.json()["gpu"]["pools"]


def test_with_v1_body_reads_the_current_record_for_a_partial_update(cm, sandbox):
    client = Client(sandbox.url)
    pod = client.create_pod({"name": "upd", "image": "runpod/base:0.6.2", "gpu": {"id": AVAILABLE_GPU, "count": 1},
                             "mounts": {"persistent": {"size": 20, "path": "/keep"}}}).json()
    answer = cm.with_v1_body(lambda b: client.send("PATCH", f"/pods/{pod['id']}", json=b), "pods.update",
                             {"volumeInGb": 40}, send=client.send, ids={"id": pod["id"]})
    assert answer.status_code == 200, answer.text
    assert answer.json()["mounts"]["persistent"] == {"size": 40, "path": "/keep"}


def test_v2_route(cm):
    assert cm.v2_route("GET", "/networkvolumes/n1") == ("GET", "/network-volumes/n1", None)
    assert cm.v2_route("post", "/endpoints/e1/update") == ("PATCH", "/serverless/e1", None)
    assert cm.v2_route("GET", "/billing/endpoints?bucketSize=day") == ("GET", "/billing/serverless?bucketSize=day",
                                                                        None)
    assert cm.v2_route("GET", "/models") is None
    with pytest.raises(cm.CompatError, match="no single v2 call"):
        cm.v2_route("POST", "/pods/p1/reset")
