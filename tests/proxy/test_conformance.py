"""Schemathesis over v1.json against the proxy in front of the embedded sandbox.

No 5xx except 501, the proxy's designed answer for a v1 capability v2 cannot
serve (a strict policy, an unsupported filter), and every body valid against
the v1 response schema. Bounded by max_examples to keep the suite fast.
"""
from __future__ import annotations

import asyncio
import socket
import threading

import orjson
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import response_schema_conformance

from mappings import load_schema
from proxy.app import create_proxy_app
from proxy.config import ProxyConfig

KEY = "conformance-key"
MAX_EXAMPLES = 8

schema = schemathesis.openapi.from_dict(load_schema("v1"))


@schemathesis.check
def no_5xx_but_named_gaps(ctx, response, case):
    """A 5xx is a failure, except a v1-shaped 501 that names the gap."""
    if response.status_code < 500:
        return None
    if response.status_code == 501:
        body = orjson.loads(response.content)
        if list(body) == ["message"] and body["message"]:
            return None
    raise AssertionError(f"server error {response.status_code}: {response.text[:300]}")


class LiveProxy:
    """The proxy (embedded sandbox) on a real port, on its own event loop thread."""

    def __init__(self) -> None:
        from aiohttp import web

        self.app = create_proxy_app(ProxyConfig(upstream=None, keys=[KEY], access_log=False, fingerprint_salt="s",
                                                reset_wait_seconds=0.5))
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.loop = asyncio.new_event_loop()
        self.runner = web.AppRunner(self.app, access_log=None)
        ready = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(self.loop)
            self.loop.run_until_complete(self.runner.setup())
            self.loop.run_until_complete(web.TCPSite(self.runner, "127.0.0.1", self.port).start())
            ready.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        ready.wait(10)
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="module")
def live_proxy():
    server = LiveProxy()
    yield server
    server.close()


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_v1_operations_conform(case, live_proxy):
    case.call_and_validate(base_url=live_proxy.url, headers={"Authorization": f"Bearer {KEY}"},
                           checks=[no_5xx_but_named_gaps, response_schema_conformance], timeout=10)
