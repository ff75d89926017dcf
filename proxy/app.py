"""The proxy app factory: the v1 routes from mappings/, the `/v2` pass-through and the ops routes behind one
middleware, and what opens and closes with the app (embedded sandbox, upstream session, records, answer pool).

Everything that only depends on configuration (route table, translators, header values, metric objects) is built
here once; handlers only look up. Where each concern lives: `proxy/middleware.py` (errors, headers, records),
`proxy/passthrough.py` (`/v2/...`), `proxy/ops.py` (health, metrics), `proxy/serving.py` (event loop, GC, a
serving process's metrics directory), `proxy/gunicorn_worker.py` (gunicorn's workers; their app is `gunicorn_app`
below), `proxy/config.py` (settings, from flags or env). A new route is registered in `add_routes` below.
"""
from __future__ import annotations

import os
from typing import AsyncIterator

import aiohttp
from aiohttp import web

from mappings import default_mappings, redact
from proxy import embedded, http1, ops
from proxy.app_keys import (ACCESS, CONFIG, GRAPHQL, METRICS, PASSTHROUGH, SANDBOX_URL, SERVICE, TABLE, UPSTREAM,
                            UPSTREAM_URL, USAGE)
from proxy.config import ProxyConfig, config_from_env
from proxy.confine import PassThroughRoutes
from proxy.graphql.service import GraphQLService
from proxy.malloc import return_large_blocks
from proxy.middleware import middleware_for
from proxy.passthrough import passthrough
from proxy.routes import RouteTable
from proxy.serving import gunicorn_metrics_dir, serving_for_life
from proxy.telemetry import AccessLog, Metrics, UsageLog
from proxy.upstream import Upstream
from proxy.v1 import V1Service

__all__ = ["ACCESS", "CONFIG", "GRAPHQL", "METRICS", "PASSTHROUGH", "SANDBOX_URL", "SERVICE", "TABLE", "UPSTREAM",
           "UPSTREAM_URL", "USAGE", "add_routes", "create_proxy_app", "gunicorn_app"]


def create_proxy_app(config: ProxyConfig) -> web.Application:
    """A ready-to-run proxy. The upstream session, sandbox and usage file open in cleanup_ctx."""
    table = RouteTable(default_mappings())
    redact.install()  # no API key in aiohttp's bad-request or access log
    app = web.Application(client_max_size=config.max_body)
    app[CONFIG] = config
    app[TABLE] = table
    app[PASSTHROUGH] = PassThroughRoutes(table.mappings)
    app[METRICS] = Metrics(config.metrics_dir)
    app[USAGE] = UsageLog(config.usage_dir, metrics=app[METRICS])
    app[ACCESS] = AccessLog(config.access_log, metrics=app[METRICS])
    app[SERVICE] = V1Service(table, config, lambda: app[UPSTREAM])
    app[GRAPHQL] = GraphQLService(app[SERVICE], config)
    app.middlewares.append(middleware_for(app))
    add_routes(app)
    app.cleanup_ctx.append(_embedded_sandbox)
    app.cleanup_ctx.append(_client_session)
    app.cleanup_ctx.append(_records)
    app.cleanup_ctx.append(_answer_pool)
    return app


def add_routes(app: web.Application) -> None:
    """Every route the proxy serves: v1 (one per mapped operation), GraphQL (`POST /graphql`), `/v2/...` as is,
    health and metrics."""
    table, service, graphql = app[TABLE], app[SERVICE], app[GRAPHQL]
    for route in table:
        handler, method = service.handler(route), route.op.v1.method
        # `/v1/pods/` is served as `/v1/pods`, and every GET answers HEAD (headers, no body) as v1 did
        for path, name in ((route.aiohttp_path, route.op_id), (route.aiohttp_path + "/", None)):
            app.router.add_route(method, path, handler, name=name)
            if method == "GET":
                app.router.add_route("HEAD", path, handler, name=name)
    app.router.add_post(graphql.path, graphql.handle, name="graphql")
    app.router.add_route("*", table.v2_prefix + "/{tail:.*}", passthrough, name="v2_passthrough")
    ops.add_routes(app)


async def _embedded_sandbox(app: web.Application) -> AsyncIterator[None]:
    """No upstream configured: run the v2 sandbox in this process on an ephemeral loopback port."""
    config = app[CONFIG]
    if config.upstream is not None:
        app[UPSTREAM_URL] = config.upstream
        yield
        return
    runner, app[UPSTREAM_URL] = await embedded.start(config.keys, config.db_path, config.sandbox_transition_seconds)
    app[SANDBOX_URL] = app[UPSTREAM_URL]
    try:
        yield
    finally:
        await runner.cleanup()


async def _client_session(app: web.Application) -> AsyncIterator[None]:
    """The upstream of this process: the translated calls' pool (proxy/http1.py) and the pass-through's
    ClientSession, each bounded to `upstream_connections`."""
    config = app[CONFIG]
    metrics = app[METRICS]
    # one verifying TLS context for both clients (--upstream-ca, else SSL_CERT_FILE, else the system's)
    tls = http1.tls_context(config.upstream_ca)
    # bounded: a fan-out (include* lookups, a burst of clients) queues for a connection instead of opening thousands
    connector = aiohttp.TCPConnector(limit=config.upstream_connections, limit_per_host=0, ttl_dns_cache=300,
                                     enable_cleanup_closed=True, ssl=tls)
    session = aiohttp.ClientSession(
        connector=connector,
        auto_decompress=True,
        skip_auto_headers=("User-Agent",),
        cookie_jar=aiohttp.DummyCookieJar(),
    )
    app[UPSTREAM] = Upstream(
        session,
        app[UPSTREAM_URL],
        connect_timeout=config.connect_timeout,
        total_timeout=config.total_timeout,
        get_retries=config.get_retries,
        connections=config.upstream_connections,
        stream_idle_timeout=config.stream_idle_timeout,
        observe=metrics.observe_upstream,
        ssl_context=tls,
        max_answer=config.max_answer,
    )
    try:
        yield
    finally:
        await app[UPSTREAM].close()
        await session.close()


async def _records(app: web.Application) -> AsyncIterator[None]:
    """Usage file and access log: opened in the serving process, flushed periodically and at shutdown."""
    usage, access = app[USAGE], app[ACCESS]
    usage.open()
    access.start()
    try:
        yield
    finally:
        usage.close()
        access.close()
        app[METRICS].close()


async def _answer_pool(app: web.Application) -> AsyncIterator[None]:
    """The large-answer process pool (started at first need by V1Service) is stopped with the app."""
    try:
        yield
    finally:
        app[SERVICE].close()


async def gunicorn_app() -> web.Application:
    """gunicorn 'proxy.app:gunicorn_app' --worker-class proxy.gunicorn_worker.GunicornWorker (asyncio's loop; or
    GunicornUVLoopWorker for uvloop; both keep gunicorn's --backlog, proxy/gunicorn_worker.py): configured from
    V1BRIDGE_* env (proxy/config.py config_from_env).
    Every worker writes its metrics where all can read them (PROMETHEUS_MULTIPROC_DIR, or one directory per
    gunicorn master), so a scrape answered by any worker counts them all."""
    return_large_blocks()  # before the app is built (proxy/malloc.py)
    config = config_from_env(os.environ)
    config.metrics_dir = gunicorn_metrics_dir(os.environ)
    return serving_for_life(create_proxy_app(config))
