"""GraphQL fixtures: a proxy (embedded sandbox) on a real port, for synchronous clients such as the runpod SDK."""
from __future__ import annotations

import pytest
from aiohttp import web

from proxy.app import create_proxy_app
from proxy.config import ProxyConfig
from tests.live_server import LiveServer

KEY = "graphql-test-key"


def graphql_app(config: ProxyConfig) -> web.Application:
    """The proxy app, as the factory makes it (POST /graphql included)."""
    return create_proxy_app(config)


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    usage = tmp_path_factory.mktemp("usage")
    server = LiveServer(graphql_app(ProxyConfig(upstream=None, keys=[KEY], access_log=False, fingerprint_salt="s",
                                                usage_dir=str(usage), reset_wait_seconds=2.0)))
    server.usage_dir = usage  # type: ignore[attr-defined]
    yield server
    server.close()
