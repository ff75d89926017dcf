"""Schemathesis conformance run over every operation of v2.json against a live sandbox.

Checks: no 5xx, declared status codes, declared content types and headers, and
every response body valid against its declared schema (the sandbox's own
response check is on too, so a drift shows up on both sides). Bounded by
max_examples so the whole project suite stays well inside its time budget.
"""
from __future__ import annotations

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

from sandbox import SandboxConfig
from sandbox.app import create_sandbox_app
from sandbox.common import VIOLATIONS
from sandbox.spec import load_spec

from tests.live_server import LiveServer

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


def _start() -> LiveServer:
    server = LiveServer(create_sandbox_app(SandboxConfig(
            keys=[KEY], validate_responses=True, log_interval=0.01, log_follow_seconds=0.05,
        )))
    server.url += ""
    return server


@pytest.fixture(scope="module")
def live_sandbox():
    server = _start()
    yield server
    server.close()
    assert not server.app[VIOLATIONS], "\n".join(server.app[VIOLATIONS])


@schema.parametrize()
# derandomize: CI sees the same examples every run (a red run is reproducible); widen locally with a seed
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None,
          derandomize=True)
def test_every_operation_conforms(case, live_sandbox):
    case.call_and_validate(base_url=live_sandbox.url, headers={"Authorization": f"Bearer {KEY}"}, checks=CHECKS,
                           timeout=10)
