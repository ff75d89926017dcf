"""The upstream call's total timeout (proxy/upstream.py Deadlines): calls ending in the same second share one
loop timer; a call past its deadline is a 504 and leaves its task as it found it; a cancellation that is not
the deadline's stays a cancellation."""
from __future__ import annotations

import asyncio
import time

import aiohttp
import pytest
from aiohttp import web

from mappings.errors import UpstreamError
from proxy.upstream import Deadlines, Upstream


@pytest.fixture
async def hanging(aiohttp_server):
    """An upstream that answers /fast at once and never answers /hang."""
    async def fast(request: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    async def hang(request: web.Request) -> web.Response:
        await asyncio.sleep(3600)
        return web.json_response({})

    app = web.Application()
    app.router.add_get("/fast", fast)
    app.router.add_get("/hang", hang)
    server = await aiohttp_server(app)
    session = aiohttp.ClientSession()
    yield lambda total: Upstream(session, str(server.make_url("")).rstrip("/"), connect_timeout=1.0,
                                 total_timeout=total, get_retries=0)
    await session.close()


async def test_calls_ending_in_the_same_second_share_one_timer():
    deadlines = Deadlines()
    loop = asyncio.get_running_loop()
    before = len(loop._scheduled)  # type: ignore[attr-defined]
    entered = [deadlines.enter(30.0) for _ in range(100)]
    groups = {id(group) for _, group, _ in entered}
    assert len(groups) in (1, 2)  # a second boundary may fall between two enters
    assert len(loop._scheduled) - before == len(groups)  # type: ignore[attr-defined]
    for task, group, _ in entered:
        group.discard(task)


async def test_a_call_leaves_its_group_when_it_returns(hanging):
    upstream = hanging(30.0)
    resp = await upstream.call("GET", "/fast", authorization=None)
    assert resp.status == 200 and resp.json() == {"ok": True}
    assert all(not group for group in upstream.deadlines._groups.values())


async def test_a_call_past_its_deadline_is_a_504_and_the_task_is_not_left_cancelled(hanging):
    upstream = hanging(0.3)
    started = time.perf_counter()
    with pytest.raises(UpstreamError) as raised:
        await upstream.call("GET", "/hang", authorization=None)
    assert (raised.value.status, raised.value.message) == (504, "the v2 upstream did not answer within 0.3s")
    assert 0.27 <= time.perf_counter() - started < 1.5
    task = asyncio.current_task()
    assert task is not None and task.cancelling() == 0
    await asyncio.sleep(0)  # no cancellation left pending for the caller's next await
    resp = await upstream.call("GET", "/fast", authorization=None)
    assert resp.status == 200


async def test_a_cancellation_that_is_not_the_deadline_stays_a_cancellation(hanging):
    upstream = hanging(30.0)
    task = asyncio.ensure_future(upstream.call("GET", "/hang", authorization=None))
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert all(not group for group in upstream.deadlines._groups.values())
