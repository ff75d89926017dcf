"""v1_view: the v1 record built from the v2 one, equal to what the proxy answers for the same record.

The proxy's translators are the reference: each test reads one record from v2 (the sandbox) and the same record
through the proxy in front of that sandbox (v1), and compares.
"""
from __future__ import annotations

import pytest

from mappings.translate import ResponseContext, translators

from tests.codemod.compat.tools import Client, pod_body


def _pod(client, **extra):
    body = pod_body(name="view", ports=["22/tcp", "8888/http"], env={"A": "1"},
                    mounts={"persistent": {"size": 20, "path": "/workspace"}}, **extra)
    answer = client.create_pod(body)
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


def test_a_pod_seen_through_the_compat_module_equals_the_proxys_v1_answer(cm, client, v1):
    pod_id = _pod(client)
    v2_record = client.send("GET", f"/pods/{pod_id}").json()
    view = cm.v1_view("pod", v2_record)
    assert view == v1.get(f"/pods/{pod_id}")
    for field in ("desiredStatus", "costPerHr", "volumeInGb", "ports", "gpu"):
        assert field in view, field


def test_public_ip_and_port_mappings_come_from_the_runtime(cm, client, v1):
    pod_id = _pod(client)
    v2_record = client.send("GET", f"/pods/{pod_id}").json()
    assert v2_record["runtime"] and v2_record["runtime"]["ports"], "the sandbox gives a running pod its ports"
    view = cm.v1_view("pod", v2_record)
    proxy_view = v1.get(f"/pods/{pod_id}")
    assert view["publicIp"] == proxy_view["publicIp"]
    assert view["portMappings"] == proxy_view["portMappings"] and "22" in view["portMappings"]


def test_a_list_answer_gives_the_v1_list(cm, client, v1):
    _pod(client)
    everything = cm.all_pages(client.send, "/pods")
    assert cm.v1_view("pod", everything) == v1.get("/pods")


def test_an_envelope_and_an_answer_object_are_read_too(cm, client):
    pod_id = _pod(client)
    answer = client.send("GET", f"/pods/{pod_id}")
    page = client.send("GET", "/pods").json()
    assert cm.v1_view("pod", answer) == cm.v1_view("pod", answer.json())
    assert cm.v1_view("pod", page) == [cm.v1_view("pod", p) for p in page["pods"]]


def test_no_answer_is_no_view(cm):
    # a helper answering None for an empty body (`return r.json() if r.content else None`): its callers test `None`
    assert cm.v1_view("pod", None) is None
    assert cm.v1_view("network_volume", None) is None


def test_the_network_volume_include_reads_the_volume_through_send(cm, client, v1):
    volume = client.send("POST", "/network-volumes", json={"name": "vol", "size": 10,
                                                          "dataCenter": "EU-RO-1"}).json()
    body = pod_body(name="nv", dataCenterIds=["EU-RO-1"],
                    mounts={"network": [{"volumeId": volume["id"], "path": "/data"}]})
    created = client.create_pod(body)
    assert created.status_code == 201, created.text
    pod_id = created.json()["id"]
    record = client.send("GET", f"/pods/{pod_id}").json()
    view = cm.v1_view("pod", record, send=client.send, includes=("includeNetworkVolume",))
    assert view["networkVolume"] == {"id": volume["id"], "name": "vol", "size": 10, "dataCenterId": "EU-RO-1"}
    assert view == v1.get(f"/pods/{pod_id}", params={"includeNetworkVolume": "true"})


def test_an_endpoint_reads_the_gpu_catalog_for_its_gpu_types(cm, client, v1):
    template = client.send("POST", "/templates", json={"name": "tpl-view", "image": "runpod/worker:1",
                                                       "serverless": True}).json()
    v1_endpoint = v1.session.post(v1.base + "/endpoints", timeout=20, json={
        "templateId": template["id"], "gpuTypeIds": ["NVIDIA RTX A5000"], "workersMax": 2}).json()
    record = client.send("GET", f"/serverless/{v1_endpoint['id']}").json()
    view = cm.v1_view("endpoint", record, send=client.send)
    assert view == v1.get(f"/endpoints/{v1_endpoint['id']}")
    assert view["gpuTypeIds"] == ["NVIDIA RTX A5000"] and view["workersMax"] == 2
    assert "gpuTypeIds" not in cm.v1_view("endpoint", record)  # without send: left out, never guessed


@pytest.mark.parametrize("kind,path,v1_path", [
    ("template", "/templates", "/templates"),
    ("network_volume", "/network-volumes", "/networkvolumes"),
    ("registry", "/registries", "/containerregistryauth"),
])
def test_other_resources_equal_the_proxys_v1_lists(cm, client, v1, kind, path, v1_path):
    client.send("POST", "/templates", json={"name": "tpl-other", "image": "img:1"})
    client.send("POST", "/network-volumes", json={"name": "nv-other", "size": 5, "dataCenter": "EU-RO-1"})
    client.send("POST", "/registries", json={"name": "reg", "username": "u", "password": "p"})
    records = cm.all_pages(client.send, path)
    assert records
    assert cm.v1_view(kind, records, send=client.send) == v1.get(v1_path)


def test_every_response_map_equals_the_proxys_translator_on_the_same_record(cm):
    """Field by field, for every map, on records that exercise conversions, values, fallbacks and aliases."""
    records = {
        "pod": {"id": "p", "status": "PROVISIONING", "cost": 0.3, "cmd": None, "args": '{"cmd": ["a", "b"]}',
                "mounts": {"network": [{"volumeId": "v1", "path": "/d"}]}, "gpu": {"id": "G", "count": 2,
                "vcpuCount": 8, "memory": 30}, "runtime": {"ports": [{"ip": "100.64.0.1", "type": "http",
                "private": 80, "public": 8080}, {"ip": "8.8.8.8", "type": "tcp", "private": 22, "public": 2222}]},
                "dataCenterId": "EU-RO-1", "cloud": "SECURE"},
        "endpoint": {"id": "e", "name": "n", "cpu": [{"id": "cpu3c", "vcpuCount": 2, "memory": 4}],
                     "scaling": {"type": "QUEUE_DELAY", "queueDelay": 4.4}, "workers": {"min": 0, "max": 3},
                     "networkVolumes": ["a", "b"]},
        "template": {"id": "t", "name": "n", "image": "i", "args": "python -m x", "public": False},
        "network_volume": {"id": "v", "name": "n", "size": 3, "dataCenter": "US-1"},
        "registry": {"id": "r", "name": "n"},
        "billing_pod": {"totalAmount": 1.5, "startTime": "2026-01-01T00:00:00Z", "podId": "p"},
        "billing_endpoint": {"totalAmount": 2.5, "startTime": "2026-01-01T00:00:00Z", "serverlessId": "e"},
        "billing_network_volume": {"totalAmount": 0.5, "highPerformanceAmount": 0.1, "startTime": "t"},
    }
    reference = translators()
    assert set(records) == set(reference.responses), "a response map without a case here"
    for kind, record in records.items():
        for includes in (frozenset(), frozenset(f["include"] for f in cm.RESPONSE_MAPS[kind]["fields"].values()
                                                if "include" in f)):
            expected = reference.response(kind, record, ResponseContext(includes=includes))
            assert cm._v1_record(kind, record, cm.ResponseContext(includes=includes)) == expected, kind
    billing = [{"totalAmount": 1.0, "highPerformanceAmount": 0.5, "startTime": "t1"},
               {"totalAmount": 2.0, "highPerformanceAmount": 0.25, "startTime": "t1"}]
    assert cm.v1_view("billing_network_volume", billing) == reference.records("billing_network_volume", billing)


def test_a_pod_without_a_runtime_has_null_public_ip_and_port_mappings_as_in_the_proxys_answer(cm, client, v1):
    """v1 always sent publicIp and portMappings (null until the pod runs): `pod["publicIp"]` reads None, never a
    KeyError, and the compat module's view equals the proxy's for the same record."""
    pod_id = _pod(client)
    assert client.send("POST", f"/pods/{pod_id}/action", json={"action": "stop"}).status_code < 300
    record = client.send("GET", f"/pods/{pod_id}").json()
    assert not record.get("runtime"), "a stopped pod has no runtime"
    view = cm.v1_view("pod", record)
    assert view["publicIp"] is None and view["portMappings"] is None
    assert view == v1.get(f"/pods/{pod_id}")


def test_the_compat_view_and_the_proxys_translators_agree_on_every_record_shape(cm):
    """Both are driven by responses.yaml: the same records, with and without a runtime, give the same v1 view."""
    records = [{"id": "a", "status": "RUNNING", "runtime": None},
               {"id": "b", "status": "EXITED"},
               {"id": "c", "status": "RUNNING", "runtime": {"ports": [
                   {"private": 22, "public": 10341, "type": "tcp", "ip": "203.0.113.7"},
                   {"private": 8888, "public": None, "type": "http", "ip": "100.64.0.3"}]}}]
    for record in records:
        assert cm.v1_view("pod", record) == translators().response("pod", record, ResponseContext())
    assert [cm.v1_view("pod", r)["publicIp"] for r in records] == [None, None, "203.0.113.7"]
    assert [cm.v1_view("pod", r)["portMappings"] for r in records] == [None, None, {"22": 10341}]


def test_a_field_v1_sent_on_request_is_asked_for_by_its_name_or_its_flag(cm, client, v1):
    # `?includeMachine=true` rewritten as a plain v2 GET read through v1_view(..., includes=("machine",))
    pod_id = _pod(client)
    v2_record = client.send("GET", f"/pods/{pod_id}").json()
    asked = v1.get(f"/pods/{pod_id}?includeMachine=true")
    assert "machine" in asked and "machine" not in cm.v1_view("pod", v2_record)
    assert cm.v1_view("pod", v2_record, includes=("machine",)) == asked
    assert cm.v1_view("pod", v2_record, includes=("includeMachine",)) == asked


def test_the_include_flags_of_a_v1_query_are_honoured_as_it_sets_them(cm, client, v1):
    """`includes=params`, the v1 query a list was asked with (`{"includeWorkers": "true"}` set under an `if`): the
    view of every page builds the workers (one v2 read per endpoint through send) when the flag is true, and leaves
    them out when it is "false" or absent, as v1 answered."""
    template = client.send("POST", "/templates", json={"name": "tpl-workers", "image": "runpod/worker:1",
                                                       "serverless": True}).json()
    v1.session.post(v1.base + "/endpoints", timeout=20, json={"templateId": template["id"],
                                                             "gpuTypeIds": ["NVIDIA RTX A5000"]}).raise_for_status()
    records = cm.all_pages(client.send, "/serverless", {"includeWorkers": "true"}, op="endpoints.list")
    asked = cm.v1_view("endpoint", records, send=client.send, includes={"includeWorkers": "true"})
    assert asked == v1.get("/endpoints", params={"includeWorkers": "true"})
    assert all("workers" in ep for ep in asked)
    for query in ({"includeWorkers": "false"}, {}):
        assert cm.v1_view("endpoint", records, send=client.send, includes=query) == v1.get("/endpoints")
