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
    client.send("POST", "/network-volumes", json={"name": "nv", "size": 10, "dataCenter": "EU-RO-1"})
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
