"""Large v2 answers (issue 12, item 8): above `large_answer` bytes the answer is checked, translated and serialised
in a worker process (proxy/offload.py), so the event loop keeps answering /healthz; the v1 answer is byte for byte
what the in-loop path gives, errors included."""
from __future__ import annotations

import asyncio
import errno
import os
import tempfile
import time

import orjson
import pytest
from aiohttp import web

from proxy.app import create_proxy_app
from proxy.app_keys import SERVICE
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
    """Two proxies on one loop with the upstream; the in-loop one holds that loop while it parses MBs, so the
    connect timeout is generous here (the stress default of 0.3 s is for fault tests)."""
    url = str(upstream.make_url(""))
    timeouts = dict(total_timeout=30.0, request_deadline=30.0, connect_timeout=10.0)
    offloaded = await aiohttp_client(create_proxy_app(fast_config(url, tmp_path / "a", **timeouts)))
    in_loop = await aiohttp_client(create_proxy_app(fast_config(url, tmp_path / "b", large_answer=0, **timeouts)))
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
    assert offloaded.app[SERVICE].answer.pool.started  # it did go through the pool
    assert in_loop.app[SERVICE].answer.pool is None
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
    assert offloaded.app[SERVICE].answer.pool.started


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

    from proxy.cli_proxy import config_from_args, configure
    from proxy.config import config_from_env

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


# large answers that are not answers: the spooled check is the in-loop check, word for word
PAD = "x" * 3_000_000
MALFORMED = {
    "truncated": BILLING[:-100],
    "trailing-garbage": BILLING + b" ]",
    "entries-not-all-objects": BILLING[:-2] + b",1]}",
    "dict-under-the-key": orjson.dumps({"records": {"pad": PAD}}),
    "null-under-the-key": orjson.dumps({"records": None, "pad": PAD}),
    "no-list-key": orjson.dumps({"pad": PAD}),
    "a-json-string": orjson.dumps(PAD),
    "whitespace-only": b" " * 2_000_000,
    "lone-surrogate": BILLING[:-2] + b',{"startTime":"2026-11-01T00:00:00Z","networkVolumeId":"\\ud800"}]}',
}
MESSAGES = {
    "truncated": "a body that is not JSON (application/json) where a list was expected",
    "trailing-garbage": "a body that is not JSON (application/json) where a list was expected",
    "entries-not-all-objects": "a list under 'records' whose entries are not all objects",
    "dict-under-the-key": "a JSON dict under 'records' where a list was expected",
    "null-under-the-key": "no list under 'records' where a list was expected",
    "no-list-key": "no list under 'records' where a list was expected",
    "a-json-string": "a JSON str where a list was expected",
    "whitespace-only": "an empty body where a list was expected",
    "lone-surrogate": "a body that is not JSON (application/json) where a list was expected",
}


@pytest.fixture
async def malformed_upstream(aiohttp_server):
    async def billing(request: web.Request) -> web.Response:
        fault = sorted(MALFORMED)[int(request.query["startTime"][8:10])]
        return web.Response(body=MALFORMED[fault], content_type="application/json")

    app = web.Application()
    app.router.add_get("/v2/billing/network-volumes", billing)
    return await aiohttp_server(app)


@pytest.mark.parametrize("fault", sorted(MALFORMED))
async def test_large_answer_that_is_not_an_answer_is_the_in_loop_502_before_any_byte(aiohttp_client,
                                                                                    malformed_upstream, tmp_path,
                                                                                    fault):
    """A 2-6 MB 200 that is no list of records (cut short, trailing bytes, a number among the records, a lone
    surrogate near the end, ...): checked in full before the answer starts, the same v1 502 as the in-loop path."""
    offloaded, in_loop = await proxies(aiohttp_client, malformed_upstream, tmp_path)
    path = f"/v1/billing/networkvolumes?startTime=2026-02-{sorted(MALFORMED).index(fault):02d}T00:00:00Z"
    a = await offloaded.get(path, headers=AUTH)
    b = await in_loop.get(path, headers=AUTH)
    expected = {"message": "the v2 upstream answered 200 to GET /v2/billing/network-volumes "
                           f"(billing.network_volumes) with {MESSAGES[fault]}"}
    assert (a.status, await a.json()) == (b.status, await b.json()) == (502, expected)
    assert offloaded.app[SERVICE].answer.pool.started


@pytest.fixture
async def cut_upstream(aiohttp_server):
    """A 6 MB billing answer announced whole, cut after 3 MB (the upstream closes its connection)."""
    async def billing(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "application/json", "Content-Length": str(len(BILLING))})
        await resp.prepare(request)
        await resp.write(BILLING[:3_000_000])
        request.transport.close()
        return resp

    app = web.Application()
    app.router.add_get("/v2/billing/network-volumes", billing)
    return await aiohttp_server(app)


async def test_large_answer_cut_mid_body_is_a_502_and_leaves_no_spool_file(aiohttp_client, cut_upstream, tmp_path,
                                                                            monkeypatch):
    """The spool is being written when the upstream breaks off: a v1 502 naming the break, the file removed."""
    spool = tmp_path / "spool"
    spool.mkdir()
    monkeypatch.setenv("TMPDIR", str(spool))
    monkeypatch.setattr(tempfile, "tempdir", None)
    offloaded, _ = await proxies(aiohttp_client, cut_upstream, tmp_path)
    r = await offloaded.get("/v1/billing/networkvolumes", headers=AUTH)
    assert (r.status, await r.json()) == (502, {
        "message": "the v2 upstream broke off its answer mid-body (connection closed)"})
    assert list(spool.iterdir()) == []


async def test_no_room_for_a_large_answer_is_a_503_with_retry_after(aiohttp_client, big_upstream, tmp_path,
                                                                     monkeypatch):
    """The temporary directory cannot take the spool (a full disk): the proxy's own failure, a 503 worth a retry,
    never a 500 or a half answer."""
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("proxy.upstream.tempfile.mkstemp", full)
    offloaded, _ = await proxies(aiohttp_client, big_upstream, tmp_path)
    r = await offloaded.get("/v1/billing/networkvolumes", headers=AUTH)
    assert (r.status, r.headers.get("Retry-After"), await r.json()) == (503, "1", {
        "message": "the proxy could not hold the large v2 answer on disk (No space left on device)"})
