"""Catalog, billing accumulation and SSE logs."""
from __future__ import annotations

import asyncio

import orjson
import pytest

from sandbox import SandboxConfig, create_sandbox_app
from sandbox.common import VIOLATIONS

from ..conftest import FakeClock
from .tools import GPU, auth, gpu_pod


async def test_gpu_catalog_has_v1_ids_and_pools(sandbox_client, sandbox_headers):
    gpus = (await (await sandbox_client.get("/v2/catalog/gpus", headers=sandbox_headers)).json())["gpus"]
    ids = {g["id"] for g in gpus}
    assert {"NVIDIA GeForce RTX 4090", "NVIDIA A40", "NVIDIA RTX A5000", "NVIDIA A100 80GB PCIe",
            "NVIDIA H100 80GB HBM3", "NVIDIA L4", "NVIDIA RTX A4000"} <= ids
    by_id = {g["id"]: g for g in gpus}
    assert by_id[GPU]["pool"] == "ADA_24" and by_id["NVIDIA A40"]["pool"] == "AMPERE_48"
    assert "availability" not in by_id[GPU]


async def test_gpu_availability_reflects_stock(sandbox_client, sandbox_headers):
    resp = await sandbox_client.get("/v2/catalog/gpus?include=AVAILABILITY&product=POD", headers=sandbox_headers)
    by_id = {g["id"]: g for g in (await resp.json())["gpus"]}
    assert by_id["NVIDIA H200"]["availability"] == "NONE" and "dataCenters" not in by_id["NVIDIA H200"]
    assert by_id[GPU]["availability"] == "HIGH"
    resp = await sandbox_client.get("/v2/catalog/gpus?include=AVAILABILITY&product=POD&countryCodes=FR,CZ",
                                    headers=sandbox_headers)
    names = {g["id"] for g in (await resp.json())["gpus"]}
    assert "NVIDIA RTX A5000" in names and GPU not in names


@pytest.mark.parametrize("query, detail", [
    ("include=AVAILABILITY", "include=AVAILABILITY requires product (POD, CLUSTER or SERVERLESS)"),
    ("product=POD", "product is valid only with include=AVAILABILITY"),
    ("countryCodes=FR", "countryCodes is valid only with include=AVAILABILITY"),
    ("include=AVAILABILITY&product=POD&cudaVersions=12.4&minCudaVersion=12", "cudaVersions and minCudaVersion are mutually exclusive"),
])
async def test_gpu_catalog_query_rules(sandbox_client, sandbox_headers, query, detail):
    resp = await sandbox_client.get(f"/v2/catalog/gpus?{query}", headers=sandbox_headers)
    assert resp.status == 400 and (await resp.json())["detail"] == detail


async def test_malformed_query_is_422(sandbox_client, sandbox_headers):
    resp = await sandbox_client.get("/v2/catalog/gpus?include=AVAILABILITY&product=POD&countryCodes=fra",
                                    headers=sandbox_headers)
    assert resp.status == 422
    assert (await resp.json())["errors"][0].startswith("query.countryCodes[0]: ")
    resp = await sandbox_client.get("/v2/billing?lastN=zero", headers=sandbox_headers)
    assert resp.status == 422


async def test_cpu_and_data_center_catalog(sandbox_client, sandbox_headers):
    cpus = (await (await sandbox_client.get("/v2/catalog/cpus", headers=sandbox_headers)).json())["cpus"]
    assert [c["id"] for c in cpus] == ["cpu3c", "cpu3g", "cpu3m", "cpu5c", "cpu5g", "cpu5m"]
    resp = await sandbox_client.get("/v2/catalog/datacenters?networkVolumeTypes=HIGH_PERFORMANCE", headers=sandbox_headers)
    assert {d["id"] for d in (await resp.json())["dataCenters"]} == {"EU-NL-1", "US-TX-3", "US-TX-4"}
    dc = await (await sandbox_client.get("/v2/catalog/datacenters/EU-RO-1?include=GPU_AVAILABILITY",
                                         headers=sandbox_headers)).json()
    assert dc["region"] == "EUROPE" and any(g["id"] == GPU for g in dc["gpuAvailability"])
    resp = await sandbox_client.get("/v2/catalog/datacenters/XX-1", headers=sandbox_headers)
    assert resp.status == 404 and (await resp.json())["detail"] == "data center 'XX-1' not found"


async def test_billing_accumulates_from_what_ran(aiohttp_client):
    clock = FakeClock()  # 2026-01-01T00:00:00Z
    app = create_sandbox_app(SandboxConfig(keys=["a", "b"], clock=clock, validate_responses=True))
    client = await aiohttp_client(app)
    h = auth("a")
    pod = await (await client.post("/v2/pods", json=gpu_pod(disk=10), headers=h)).json()
    vol = await (await client.post("/v2/network-volumes", json={"name": "v", "size": 730, "dataCenter": "EU-RO-1"},
                                   headers=h)).json()
    clock.advance(2 * 3600)
    await client.post(f"/v2/pods/{pod['id']}/action", json={"action": "stop"}, headers=h)
    clock.advance(22 * 3600)  # now 2026-01-02T00:00Z

    resp = await client.get("/v2/billing/pods?bucketSize=day&startTime=2026-01-01T00:00:00Z&endTime=2026-01-02T00:00:00Z",
                            headers=h)
    body = await resp.json()
    assert resp.status == 200 and body["metadata"]["recordCount"] == 1 and body["metadata"]["uniquePodCount"] == 1
    rec = body["records"][0]
    assert rec["podId"] == pod["id"] and rec["startTime"] == "2026-01-01T00:00:00.000Z"
    assert rec["gpuAmount"] == pytest.approx(2 * 0.69)
    assert rec["diskAmount"] == pytest.approx(2 * 10 * 0.10 / 730, abs=1e-6)
    assert rec["totalAmount"] == pytest.approx(rec["gpuAmount"] + rec["diskAmount"], abs=1e-6)
    assert body["metadata"]["totals"]["totalAmount"] == rec["totalAmount"]
    assert body["metadata"]["query"] == {"startTime": "2026-01-01T00:00:00.000Z", "endTime": "2026-01-02T00:00:00.000Z",
                                         "bucketSize": "day", "podId": None}

    resp = await client.get("/v2/billing/network-volumes?bucketSize=hour&lastN=3", headers=h)
    body = await resp.json()
    assert body["metadata"]["recordCount"] == 3
    assert body["records"][0]["standardAmount"] == pytest.approx(0.07, abs=1e-6)
    assert body["records"][0]["networkVolumeId"] == vol["id"]

    agg = await (await client.get("/v2/billing?bucketSize=day&lastN=2", headers=h)).json()
    assert [r["startTime"] for r in agg["records"]] == ["2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z"]
    assert agg["records"][0]["podGpuAmount"] == pytest.approx(1.38)
    assert agg["records"][0]["storageStandardAmount"] == pytest.approx(24 * 0.07, abs=1e-5)

    # snapping: a mid-day window widens to whole days; another tenant sees nothing
    body = await (await client.get("/v2/billing/pods?startTime=2026-01-01T05:00:00Z&endTime=2026-01-01T06:00:00Z",
                                   headers=h)).json()
    assert body["metadata"]["query"]["endTime"] == "2026-01-02T00:00:00.000Z"
    other = await (await client.get("/v2/billing/pods", headers=auth("b"))).json()
    assert other["records"] == [] and other["metadata"]["totals"]["totalAmount"] == 0.0
    resp = await client.get("/v2/billing?lastN=2&startTime=2026-01-01T00:00:00Z", headers=h)
    assert resp.status == 400
    assert (await resp.json())["detail"] == "lastN is mutually exclusive with startTime/endTime; send one or the other"
    assert not app[VIOLATIONS]


async def test_pod_logs_stream_sse_until_the_client_leaves(aiohttp_client):
    app = create_sandbox_app(SandboxConfig(keys=["k"], log_interval=0.01))
    client = await aiohttp_client(app)
    pod = await (await client.post("/v2/pods", json=gpu_pod(ports=["8888/http"]), headers=auth("k"))).json()
    resp = await client.get(f"/v2/pods/{pod['id']}/logs?tail=3", headers=auth("k"))
    assert resp.status == 200 and resp.content_type == "text/event-stream"
    assert resp.headers["Cache-Control"] == "no-cache" and resp.headers["X-Accel-Buffering"] == "no"
    events = []
    while len(events) < 6:
        chunk = await asyncio.wait_for(resp.content.readuntil(b"\n\n"), 2)
        lines = dict(line.split(": ", 1) for line in chunk.decode().strip().split("\n"))
        data = orjson.loads(lines["data"])
        assert lines["id"] == data["ts"]
        events.append(data)
    assert [e["line"] for e in events[:3]] == ["==========  starting  ==========", "listening on 8888/http", "ready"]
    assert events[3]["line"].endswith("heartbeat 1") and events[5]["line"].endswith("heartbeat 3")
    resp.close()  # the client goes away; the server stops writing without error
    # resume after the last backfilled line with Last-Event-ID
    resp = await client.get(f"/v2/pods/{pod['id']}/logs?source=system", headers={**auth("k"),
                            "Last-Event-ID": events[0]["ts"]})
    chunk = await asyncio.wait_for(resp.content.readuntil(b"\n\n"), 2)
    assert b'"source":"system"' in chunk
    resp.close()
