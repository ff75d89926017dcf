"""Health and metrics: `/healthz` (the process answers), `/readyz` (the upstream answers), `/metrics` (Prometheus)."""
from __future__ import annotations

from aiohttp import web

from mappings.errors import V1bridgeError
from proxy.app_keys import METRICS, TABLE, UPSTREAM

PATHS = frozenset({"/healthz", "/readyz", "/metrics"})


async def healthz(request: web.Request) -> web.Response:
    return web.json_response({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    """Ready when the upstream answers at all (any HTTP status counts; a 401 still proves it is there)."""
    upstream = request.app[UPSTREAM]
    try:
        resp = await upstream.call("GET", request.app[TABLE].v2_prefix + "/openapi.json", authorization=None,
                                   label="readyz")
    except V1bridgeError as exc:
        return web.json_response({"status": "unavailable", "upstream": exc.message}, status=503)
    return web.json_response({"status": "ready", "upstream_status": resp.status})


async def metrics(request: web.Request) -> web.Response:
    from prometheus_client import CONTENT_TYPE_LATEST

    return web.Response(body=request.app[METRICS].render(), headers={"Content-Type": CONTENT_TYPE_LATEST})




def add_routes(app: web.Application) -> None:
    app.router.add_get("/healthz", healthz)  # HEAD too (allow_head), as on every GET route
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", metrics)
