"""GraphQL fixtures: a proxy (embedded sandbox) on a real port, for synchronous clients such as the runpod SDK."""
from __future__ import annotations

import pytest
from aiohttp import web

from proxy.app import create_proxy_app
from proxy.config import ProxyConfig
from tests.live_server import LiveServer

KEY = "graphql-test-key"


def graphql_app(config: ProxyConfig) -> web.Application:
    """The proxy app; POST /graphql is registered by the factory itself."""
    app = create_proxy_app(config)
    if not any(r.name == "graphql" for r in app.router.routes()):  # before the factory registers it
        from proxy.app import CONFIG, SERVICE
        from proxy.graphql.service import register

        register(app, app[SERVICE], app[CONFIG])
    return app


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    usage = tmp_path_factory.mktemp("usage")
    server = LiveServer(graphql_app(ProxyConfig(upstream=None, keys=[KEY], access_log=False, fingerprint_salt="s",
                                                usage_dir=str(usage), reset_wait_seconds=2.0)))
    server.usage_dir = usage  # type: ignore[attr-defined]
    yield server
    server.close()
