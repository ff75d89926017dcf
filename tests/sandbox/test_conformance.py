"""Schemathesis conformance run over every operation of v2.json against a live sandbox.

Checks: no 5xx, declared status codes, declared content types and headers, and
every response body valid against its declared schema (the sandbox's own
response check is on too, so a drift shows up on both sides). Bounded by
max_examples so the whole project suite stays well inside its time budget.
"""
from __future__ import annotations

import asyncio
import socket
import threading

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from proxy.sandbox import SandboxConfig
from proxy.sandbox.app import create_sandbox_app
from proxy.sandbox.common import VIOLATIONS
from proxy.sandbox.spec import load_spec

KEY = "conformance-key"
MAX_EXAMPLES = 12
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
# negative_data_rejection is left out on purpose, not skipped: v2 ignores unknown
# query parameters (v1-to-v2 §0, observed live), which that check counts as a
# failure. Every rejection the sandbox owes is asserted exactly in the unit tests.

schema = schemathesis.openapi.from_dict(load_spec())


class LiveSandbox:
    """A sandbox on a real port, served from its own event loop thread (schemathesis calls are blocking)."""

    def __init__(self) -> None:
        from aiohttp import web

        self.app = create_sandbox_app(SandboxConfig(
            keys=[KEY], validate_responses=True, log_interval=0.01, log_follow_seconds=0.05,
        ))
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
        self.url = f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="module")
def live_sandbox():
    server = LiveSandbox()
    yield server
    server.close()
    assert not server.app[VIOLATIONS], "\n".join(server.app[VIOLATIONS])


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_every_operation_conforms(case, live_sandbox):
    case.call_and_validate(base_url=live_sandbox.url, headers={"Authorization": f"Bearer {KEY}"}, checks=CHECKS,
                           timeout=10)
