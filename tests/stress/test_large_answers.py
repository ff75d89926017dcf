"""Large v2 answers (issue 12, item 8): above `large_answer` bytes the answer is checked, translated and serialised
in a worker process (proxy/offload.py), so the event loop keeps answering /healthz; the v1 answer is byte for byte
what the in-loop path gives, errors included."""
from __future__ import annotations

import asyncio
import time

import orjson
import pytest
from aiohttp import web

from proxy.app import SERVICE, create_proxy_app
from tests.stress.conftest import fast_config

RECORD = {"startTime": "2026-11-01T00:00:00Z", "totalAmount": 0.25, "highPerformanceAmount": 0.0,
          "diskSpaceBilledGb": 20, "highPerformanceDiskSpaceBilledGb": 0, "networkVolumeId": "vol-0000000000"}
# ~6 MB of billing records, as a month of hourly records over many volumes gives
BILLING = orjson.dumps({"records": [{**RECORD, "startTime": f"2026-11-{1 + i // 1440 % 28:02d}T{i // 60 % 24:02d}:"
                                                            f"{i % 60:02d}:00Z", "networkVolumeId": f"vol-{i:010d}",
                                     "totalAmount": round(0.25 + i % 97 / 100, 2)} for i in range(36_000)]})
NOT_JSON = b"<html>" + b"x" * 3_000_000 + b"</html>"
AUTH = {"Authorization": "Bearer stress-key"}
# /healthz must answer within this while the large translations run (on the loop, each one held it ~0.3-1 s)
HEALTHZ_BOUND = 0.25


@pytest.fixture
async def big_upstream(aiohttp_server):
    async def billing(request: web.Request) -> web.Response:
        if request.query.get("startTime") == "2026-01-01T00:00:00Z":
            return web.Response(body=NOT_JSON, content_type="text/html")
        return web.Response(body=BILLING, content_type="application/json",
                            headers={"X-Request-ID": request.headers.get("X-Request-ID", "")})

    app = web.Application()
    app.router.add_get("/v2/billing/network-volumes", billing)
    return await aiohttp_server(app)


async def proxies(aiohttp_client, upstream, tmp_path):
    url = str(upstream.make_url(""))
    offloaded = await aiohttp_client(create_proxy_app(fast_config(url, tmp_path / "a", total_timeout=30.0,
                                                                  request_deadline=30.0)))
    in_loop = await aiohttp_client(create_proxy_app(fast_config(url, tmp_path / "b", total_timeout=30.0,
                                                                request_deadline=30.0, large_answer=0)))
    return offloaded, in_loop


async def test_large_answer_translated_in_a_worker_equals_the_in_loop_answer(aiohttp_client, big_upstream, tmp_path):
    """A 6 MB billing answer, with and without v1 query parameters: the pool's v1 bytes are exactly the in-loop
    bytes (and headers)."""
    assert len(BILLING) > 5_000_000
    offloaded, in_loop = await proxies(aiohttp_client, big_upstream, tmp_path)
    for query in ("", "?bucketSize=day", "?startTime=2026-11-01T00:00:00Z&endTime=2026-11-30T00:00:00Z"):
        a = await offloaded.get(f"/v1/billing/networkvolumes{query}", headers={**AUTH, "X-Request-ID": "r-1"})
        b = await in_loop.get(f"/v1/billing/networkvolumes{query}", headers={**AUTH, "X-Request-ID": "r-1"})
        body_a, body_b = await a.read(), await b.read()
        assert a.status == b.status == 200, (query, body_a[:300], body_b[:300])
        assert body_a == body_b
        assert a.headers["Content-Type"] == b.headers["Content-Type"] == "application/json"
        assert a.headers["X-Request-ID"] == "r-1"
    assert offloaded.app[SERVICE].answer._pool is not None  # it did go through the pool
    assert in_loop.app[SERVICE].answer._pool is None
    assert len(orjson.loads(body_a)) >= 1


async def test_large_answer_that_is_not_json_is_the_same_502_from_the_worker(aiohttp_client, big_upstream, tmp_path):
    """A 3 MB HTML 200 where records were expected: the worker's error is the in-loop V1 502, word for word."""
    offloaded, in_loop = await proxies(aiohttp_client, big_upstream, tmp_path)
    html = "/v1/billing/networkvolumes?startTime=2026-01-01T00:00:00Z"
    a = await offloaded.get(html, headers=AUTH)
    b = await in_loop.get(html, headers=AUTH)
    assert a.status == b.status == 502
    assert await a.json() == await b.json() == {
        "message": "the v2 upstream answered 200 to GET /v2/billing/network-volumes (billing.network_volumes) with a body that is not "
                   "JSON (text/html) where a list was expected"}
    assert offloaded.app[SERVICE].answer._pool is not None


async def test_healthz_answers_within_a_bound_while_large_answers_are_translated(aiohttp_client, big_upstream,
                                                                                  tmp_path):
    """Six 6 MB answers at once, /healthz polled every 10 ms meanwhile: every poll answered within the bound."""
    offloaded, _ = await proxies(aiohttp_client, big_upstream, tmp_path)
    # start the pool first: the bound is about translations in flight, not about spawning the workers
    warm = await offloaded.get("/v1/billing/networkvolumes", headers=AUTH)
    assert warm.status == 200
    await warm.read()
    latencies: list[float] = []
    done = asyncio.Event()

    async def poll() -> None:
        while not done.is_set():
            started = time.perf_counter()
            r = await offloaded.get("/healthz")
            await r.read()
            assert r.status == 200
            latencies.append(time.perf_counter() - started)
            await asyncio.sleep(0.01)

    async def big() -> bytes:
        r = await offloaded.get("/v1/billing/networkvolumes", headers=AUTH)
        assert r.status == 200
        return await r.read()

    poller = asyncio.create_task(poll())
    started = time.perf_counter()
    bodies = await asyncio.gather(*(big() for _ in range(6)))
    wall = time.perf_counter() - started
    done.set()
    await poller
    assert len({len(b) for b in bodies}) == 1 and len(bodies[0]) > 1_000_000
    assert len(latencies) >= 5, (wall, latencies)  # polls did run while the translations were in flight
    assert max(latencies) < HEALTHZ_BOUND, (wall, sorted(latencies)[-5:])


def test_large_answer_settings_from_flags_and_environment():
    """--large-answer / --answer-processes and V1BRIDGE_LARGE_ANSWER / V1BRIDGE_ANSWER_PROCESSES; defaults 1 MiB, 2."""
    import argparse

    from proxy.cli_proxy import config_from_args, config_from_env, configure

    parser = argparse.ArgumentParser()
    configure(parser)
    default, _ = config_from_args(parser.parse_args(["--upstream", "http://u"]))
    assert (default.large_answer, default.answer_processes) == (1024 * 1024, 2)
    given, _ = config_from_args(parser.parse_args(["--upstream", "http://u", "--large-answer", "0",
                                                   "--answer-processes", "3"]))
    assert (given.large_answer, given.answer_processes) == (0, 3)
    env = config_from_env({"V1BRIDGE_UPSTREAM": "http://u", "V1BRIDGE_LARGE_ANSWER": "5000000",
                           "V1BRIDGE_ANSWER_PROCESSES": "1"})
    assert (env.large_answer, env.answer_processes) == (5_000_000, 1)
