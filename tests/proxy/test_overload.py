"""Overload: past the in-flight limit the proxy sheds at once (v1-shaped 503 with Retry-After, a v2 problem on
/v2), never queues without bound; health and metrics still answer; the limit frees as answers complete."""
from __future__ import annotations

import asyncio

from aiohttp import web

from proxy.app import create_proxy_app
from proxy.config import ProxyConfig

POD = {"id": "p1", "name": "held", "image": "nginx", "status": "RUNNING"}
SHED = ("the proxy is answering 2 requests already; retry after 1 s "
        "(overload: requests past the in-flight limit are refused, not queued)")


async def _held_upstream(aiohttp_server, gate: asyncio.Event, arrived: list[str]):
    async def pod(request: web.Request) -> web.Response:
        arrived.append(request.path)
        await gate.wait()
        return web.json_response(POD)

    app = web.Application()
    app.router.add_get("/v2/pods/{id}", pod)
    return await aiohttp_server(app)


async def test_requests_past_the_limit_are_shed_in_their_callers_shape(aiohttp_server, aiohttp_client):
    gate = asyncio.Event()
    arrived: list[str] = []
    upstream = await _held_upstream(aiohttp_server, gate, arrived)
    config = ProxyConfig(upstream=str(upstream.make_url("")).rstrip("/"), fingerprint_salt="s", access_log=False,
                         max_inflight=2, retry_after=1)
    client = await aiohttp_client(create_proxy_app(config))
    auth = {"Authorization": "Bearer k"}
    held = [asyncio.create_task(client.get(f"/v1/pods/p{i}", headers=auth)) for i in (1, 2)]
    for _ in range(100):
        if len(arrived) == 2:
            break
        await asyncio.sleep(0.01)
    assert arrived == ["/v2/pods/p1", "/v2/pods/p2"]

    v1 = await client.get("/v1/pods/p3", headers=auth)
    assert v1.status == 503
    assert v1.headers["Retry-After"] == "1"
    assert v1.headers["Content-Type"] == "application/json"
    assert await v1.json() == {"message": SHED}
    v2 = await client.get("/v2/pods/p3", headers=auth)
    assert v2.status == 503
    assert v2.headers["Retry-After"] == "1"
    assert v2.headers["Content-Type"] == "application/problem+json"
    assert await v2.json() == {"title": "Service Unavailable", "status": 503, "detail": SHED}
    assert arrived == ["/v2/pods/p1", "/v2/pods/p2"]  # nothing shed reached the upstream
    assert (await client.get("/healthz")).status == 200
    metrics = await (await client.get("/metrics")).text()
    assert ('v1bridge_requests_total{api="v1",method="GET",operation="pods.get",route="GET /pods/{podId}",'
            'status="503"} 1.0') in metrics

    gate.set()
    answers = await asyncio.gather(*held)
    assert [r.status for r in answers] == [200, 200]
    after = await client.get("/v1/pods/p4", headers=auth)
    assert after.status == 200
    assert (await after.json())["id"] == "p1"


async def test_no_limit_when_zero(aiohttp_server, aiohttp_client):
    gate = asyncio.Event()
    arrived: list[str] = []
    upstream = await _held_upstream(aiohttp_server, gate, arrived)
    config = ProxyConfig(upstream=str(upstream.make_url("")).rstrip("/"), fingerprint_salt="s", access_log=False,
                         max_inflight=0)
    client = await aiohttp_client(create_proxy_app(config))
    held = [asyncio.create_task(client.get(f"/v1/pods/p{i}", headers={"Authorization": "Bearer k"}))
            for i in range(5)]
    for _ in range(200):
        if len(arrived) == 5:
            break
        await asyncio.sleep(0.01)
    assert len(arrived) == 5
    gate.set()
    assert [r.status for r in await asyncio.gather(*held)] == [200] * 5
