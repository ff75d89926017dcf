"""The REST side's operational promises, kept by POST /graphql: bounded fan-out (a query's fields run at most
`limits.concurrency` at a time) and one deadline for the whole document (a change is never started after it),
against a slow upstream that counts what it was sent."""
from __future__ import annotations

import asyncio

from aiohttp import web

from mappings import default_mappings
from proxy.config import ProxyConfig
from tests.proxy.graphql.conftest import graphql_app

AUTH = {"Authorization": "Bearer k"}
POD = {"id": "p1", "name": "n", "image": "i", "status": "RUNNING", "gpu": {"id": "NVIDIA A40", "count": 1}}


class SlowUpstream:
    """A v2 that answers every pod read and action after `delay` seconds, counting calls in flight."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.in_flight = 0
        self.most = 0
        self.seen: list[tuple[str, str]] = []

    async def handle(self, request: web.Request) -> web.Response:
        self.seen.append((request.method, request.path))
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.in_flight -= 1
        return web.json_response({**POD, "id": request.match_info["id"]})

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/v2/pods/{id}", self.handle)
        app.router.add_post("/v2/pods/{id}/action", self.handle)
        return app


async def _proxy(aiohttp_client, aiohttp_server, slow: SlowUpstream, **config):
    server = await aiohttp_server(slow.app())
    return await aiohttp_client(graphql_app(ProxyConfig(upstream=str(server.make_url("")).rstrip("/"),
                                                        access_log=False, fingerprint_salt="s", **config)))


async def test_a_querys_fields_run_at_most_concurrency_at_a_time(aiohttp_client, aiohttp_server):
    slow = SlowUpstream(0.05)
    client = await _proxy(aiohttp_client, aiohttp_server, slow)
    bound = default_mappings().graphql.limits.concurrency
    fields = bound * 2 + 3
    query = "{ " + " ".join(f'p{n}: pod(input: {{podId: "pod{n}"}}) {{ id }}' for n in range(fields)) + " }"
    resp = await client.post("/graphql", json={"query": query}, headers=AUTH)
    body = await resp.json()
    assert resp.status == 200 and body == {"data": {f"p{n}": {"id": f"pod{n}"} for n in range(fields)}}
    assert sorted(slow.seen) == sorted(("GET", f"/v2/pods/pod{n}") for n in range(fields))
    assert slow.most == bound


async def test_one_deadline_for_the_document_and_no_change_started_after_it(aiohttp_client, aiohttp_server):
    slow = SlowUpstream(0.6)
    client = await _proxy(aiohttp_client, aiohttp_server, slow, request_deadline=0.3)
    resp = await client.post("/graphql", headers=AUTH, json={
        "query": 'mutation { a: podStop(input: {podId: "p1"}) { id } b: podStop(input: {podId: "p2"}) { id } }'})
    body = await resp.json()
    # the first stop was sent before the deadline: it is finished and answered; the second is never sent
    assert slow.seen == [("POST", "/v2/pods/p1/action")]
    assert body["data"] == {"a": {"id": "p1"}, "b": None}
    [error] = body["errors"]
    assert error["path"] == ["b"] and error["extensions"]["code"] == "DEADLINE_EXCEEDED"
    assert "podStop was not run" in error["message"]
