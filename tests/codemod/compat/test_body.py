"""v2_body / with_v1_body: a v1 body built where the rewrite cannot see it, converted when it runs.

The proxy's request translator is the reference: the same v1 body gives the same v2 body.
"""
from __future__ import annotations

import pytest

from mappings.translate import translators

from tests.codemod.compat.tools import AVAILABLE_GPU, UNAVAILABLE_GPU, Client

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


# ------------------------------------------------------------------ the same translation as the proxy, on any body

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402


_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-2, max_value=50), st.sampled_from(["", "GPU", "CPU", "x", "/w",
                                                                                       "REQUEST_COUNT", "t1"]),
    st.lists(st.sampled_from(["A", "B", "cpu3c", "8888/http"]), max_size=3), st.just({"K": "V"}),
)
_OPS = [op for op, spec in (
    (o.id, o.request) for o in __import__("mappings.loader", fromlist=["x"]).default_mappings().operations)
    if spec]


@st.composite
def _v1_bodies(draw):
    op = draw(st.sampled_from(_OPS))
    request_map = translators().mappings.operations_by_id[op].request
    names = sorted(translators().mappings.requests[request_map].fields)
    chosen = draw(st.lists(st.sampled_from(names), unique=True, max_size=6))
    return op, request_map, {name: draw(_VALUES) for name in chosen}


def _outcome(run):
    """("ok", v2 body), (error kind, message) for a refusal, or ("crash", exception type) for a shape neither takes."""
    try:
        return ("ok", run())
    except Exception as exc:  # noqa: BLE001 - the two sides' classes differ (the module defines its own)
        kind = type(exc).__name__
        if kind in ("InvalidValue", "NeedsLookup", "PolicyRefused", "Unsupported"):
            return (kind, str(exc))
        return ("crash", kind)


@given(_v1_bodies())
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None, derandomize=True)
def test_any_v1_body_translates_as_the_proxy_translates_it(cm, case):
    op, request_map, body = case
    expected = _outcome(lambda: translators().request(request_map, body).body)
    got = _outcome(lambda: cm.v2_body(op, body))
    assert got == expected, body


def test_a_policy_the_mapping_makes_strict_is_refused_with_its_message(tmp_path):
    """policies.yaml `default: strict` (e.g. interruptible, R03): the module refuses the body as the proxy does."""
    import shutil

    import yaml

    from codemod import compat
    from mappings.loader import DATA_DIR, load
    from mappings.translate import Translators

    from tests.codemod.compat.tools import load_module

    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    policies = yaml.safe_load((data / "policies.yaml").read_text())
    next(p for p in policies if p["id"] == "interruptible")["default"] = "strict"
    (data / "policies.yaml").write_text(yaml.safe_dump(policies, sort_keys=False))
    m = load(data)
    compat.write(tmp_path / "v1bridge_compat.py", m)
    module = load_module(tmp_path / "v1bridge_compat.py", "v1bridge_compat_strict")
    body = {"imageName": "img", "gpuTypeIds": ["A"], "interruptible": True}
    with pytest.raises(module.PolicyRefused) as raised:
        module.v2_body("pods.create", body)
    with pytest.raises(Exception) as reference:
        Translators(m).request("pod.create", body)
    assert raised.value.policy == "interruptible" and str(raised.value) == str(reference.value)
    assert module.v2_body("pods.create", {**body, "interruptible": False})["gpu"]["id"] == "A"
