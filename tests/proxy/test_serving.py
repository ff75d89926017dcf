"""A proxy app built and closed in a long-lived process (a test run, a program embedding the proxy) is freed.

gc.freeze() at start-up once made every app, and all garbage alive at that moment, permanent: the full
suite grew to 11 GB and was killed by the kernel. Freezing belongs to processes that serve one app for life.
"""
from __future__ import annotations

import asyncio
import gc
import weakref

from aiohttp.test_utils import TestServer

from proxy.app import create_proxy_app
from proxy.serving import GC_THRESHOLD, event_loop, serving_for_life
from proxy.config import ProxyConfig


async def test_a_closed_proxy_app_is_collected(tmp_path):
    app = create_proxy_app(ProxyConfig(upstream="http://127.0.0.1:9", usage_dir=str(tmp_path / "usage"),
                                       fingerprint_salt="t", access_log=False))
    alive = weakref.ref(app)
    server = TestServer(app)
    await server.start_server()
    await server.close()
    del app, server
    gc.collect()
    assert alive() is None, "a started and closed proxy app is still referenced (frozen by the collector?)"


def test_only_a_process_serving_for_life_freezes_the_collector(tmp_path):
    config = ProxyConfig(upstream="http://127.0.0.1:9", usage_dir=str(tmp_path / "usage"), fingerprint_salt="t")
    plain = create_proxy_app(config)
    served = serving_for_life(create_proxy_app(config))
    assert len(served.on_startup) == len(plain.on_startup) + 1
    assert all(getattr(hook, "__name__", "") != "_freeze_gc" for hook in plain.on_startup)


async def test_a_process_serving_for_life_collects_young_objects_every_20000_allocations(tmp_path):
    """A request's few hundred objects are freed by reference counting; the collector need not walk every
    in-flight request's objects every 700 allocations (the default) in a serving process."""
    before = gc.get_threshold()
    served = serving_for_life(create_proxy_app(ProxyConfig(upstream="http://127.0.0.1:9", fingerprint_salt="t",
                                                           usage_dir=str(tmp_path / "usage"), access_log=False)))
    server = TestServer(served)
    try:
        await server.start_server()
        assert gc.get_threshold() == (GC_THRESHOLD, *before[1:]) and GC_THRESHOLD == 20_000
    finally:
        await server.close()
        gc.unfreeze()
        gc.set_threshold(*before)


def test_serving_processes_run_on_asyncio_loop_unless_uvloop_is_asked_for():
    import uvloop

    default, asked = event_loop(), event_loop("uvloop")
    try:
        assert isinstance(default, asyncio.SelectorEventLoop) and not isinstance(default, uvloop.Loop)
        assert isinstance(asked, uvloop.Loop)
    finally:
        default.close()
        asked.close()
