"""Billing reports through call_v1, against the proxy on the same sandbox with its clock stopped.

v1 grouped records (pods by GPU type by default: each pod's GPU joined in), filtered on joined fields and summed
them; the compat module must give the very records the proxy gives.
"""
from __future__ import annotations

import pytest

from tests.codemod.compat.tools import AVAILABLE_GPU, Client, V1Client, pod_body, start_sandbox
from tests.conftest import FakeClock
from tests.live_server import LiveServer


@pytest.fixture(scope="module")
def billed():
    from proxy.app import create_proxy_app
    from proxy.config import ProxyConfig

    clock = FakeClock()
    sandbox = start_sandbox(clock=clock)
    proxy = LiveServer(create_proxy_app(ProxyConfig(upstream=sandbox.url, fingerprint_salt="t", access_log=False)))
    client = Client(sandbox.url)
    for n in range(3):
        client.create_pod(pod_body(name=f"bill-{n}"))
    client.create_pod(pod_body(name="bill-cpu", gpu=None, cpu={"id": "cpu3c", "vcpuCount": 2}))
    for name in ("nv", "nv-2"):
        client.send("POST", "/network-volumes", json={"name": name, "size": 10, "dataCenter": "EU-RO-1"})
    clock.advance(3 * 86400)
    yield client, V1Client(proxy.url)
    proxy.close()
    sandbox.close()


@pytest.mark.parametrize("path,query", [
    ("/billing/pods", {}),
    ("/billing/pods", {"grouping": "podId"}),
    ("/billing/pods", {"gpuTypeId": AVAILABLE_GPU, "bucketSize": "day"}),
    ("/billing/endpoints", {}),
    ("/billing/networkvolumes", {"bucketSize": "day"}),
])
def test_billing_reports_equal_the_proxys(cm, billed, path, query):
    client, v1 = billed
    answer = cm.call_v1(client.send, "GET", path, params=query)
    assert answer.status_code == 200, answer.json()
    assert answer.json() == v1.get(path, params=query)
    if path == "/billing/pods" and not query:
        assert answer.json() and all("gpuTypeId" in r and "podId" not in r for r in answer.json())


# v1 record field -> the v2 field regroup_billing keeps it under (responses.yaml `from`)
_V2_NAMES = {"amount": "totalAmount", "time": "startTime", "highPerformanceStorageAmount": "highPerformanceAmount"}


@pytest.mark.parametrize("path,kind,query", [
    ("/billing/pods", "billing_pod", {"bucketSize": "day"}),
    ("/billing/networkvolumes", "billing_network_volume", {"bucketSize": "day"}),
    ("/billing/endpoints", "billing_endpoint", {"bucketSize": "day"}),
])
def test_regroup_billing_gives_the_proxys_records_in_v2_names(cm, billed, path, kind, query):
    """The plain v2 answer (one record per pod or volume and day) regrouped: as many records as v1 gave, each with
    v1's amounts under v2's names."""
    client, v1 = billed
    v2_path = cm.v2_route("GET", path)[1]
    answer = client.send("GET", v2_path, params=query)
    grouped = cm.regroup_billing(kind, answer, send=client.send)
    expected = v1.get(path, params=query)
    assert len(grouped) == len(expected)
    if kind != "billing_endpoint":  # v2 splits v1's records per pod, per volume
        assert len(answer.json()["records"]) > len(expected)
    assert sorted((r["startTime"], r.get("gpuTypeId"), r["totalAmount"]) for r in grouped) == sorted(
        (r["time"], r.get("gpuTypeId"), r["amount"]) for r in expected)
    for record in grouped:
        one = next(r for r in expected if r["time"] == record["startTime"] and r.get("gpuTypeId") == record.get(
            "gpuTypeId") and r.get("endpointId") == record.get("serverlessId"))
        assert {_V2_NAMES[k]: v for k, v in one.items() if k in _V2_NAMES} == {
            v2: record[v2] for v2 in (_V2_NAMES[k] for k in one if k in _V2_NAMES)}
    if kind == "billing_pod":  # v1's default grouping: per GPU type, each pod's GPU joined in
        assert all("podId" not in r and "gpuTypeId" in r for r in grouped)
    if kind == "billing_network_volume":
        assert all("networkVolumeId" not in r for r in grouped)


def test_regroup_billing_per_pod_is_v2s_own_records(cm, billed):
    client, _v1 = billed
    answer = client.send("GET", "/billing/pods", params={"bucketSize": "day"}).json()
    assert cm.regroup_billing("billing_pod", answer, grouping="podId") == answer["records"]


def test_regroup_billing_by_gpu_type_needs_the_callers_send(cm, billed):
    client, _v1 = billed
    answer = client.send("GET", "/billing/pods", params={"bucketSize": "day"}).json()
    with pytest.raises(cm.CompatError, match="pass send="):
        cm.regroup_billing("billing_pod", answer)


@pytest.mark.parametrize("query", [
    {"bucketSize": "day"},
    {"bucketSize": "day", "grouping": "podId"},
    {"bucketSize": "day", "gpuTypeId": AVAILABLE_GPU},
    {"bucketSize": "day", "gpuTypeId": AVAILABLE_GPU, "grouping": "podId"},
])
def test_all_pages_of_pod_billing_reads_the_v1_query_it_is_given_as_v1_did(cm, billed, query):
    """A v1 query built at run time (a grouping or a GPU filter on some runs only): all_pages sends v2 only what v2
    takes and gives v1's records (grouped as asked, or by GPU type; the GPU filter on each pod's GPU), in v2's
    field names."""
    client, v1 = billed
    sent = []

    def send(method, path, **kw):
        sent.append((method, path, kw.get("params")))
        return client.send(method, path, **kw)

    records = cm.all_pages(send, "/billing/pods", query, op="billing.pods")
    expected = v1.get("/billing/pods", params=query)
    assert expected and sorted((r["startTime"], r.get("gpuTypeId"), r.get("podId"), r["totalAmount"])
                               for r in records) == sorted(
        (r["time"], r.get("gpuTypeId"), r.get("podId"), r["amount"]) for r in expected)
    billing = [params for method, path, params in sent if path.startswith("/billing/")]
    assert billing and all("grouping" not in str(p) and "gpuTypeId" not in str(p) for p in billing)
