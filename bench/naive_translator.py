"""The reference for "as cheap as a naive translator": the smallest aiohttp handler that parses the v2 answer,
renames fields to v1 and re-serialises, for the three benchmarked routes.

No policies, no checks, no metrics, no logs: orjson, asyncio, one pooled ClientSession (the same connector
settings as the plain pass-through and the proxy). bench/hotpath.py runs it beside v1bridge; v1bridge must not
cost more per request than this does, while doing the rest of its job.
"""
from __future__ import annotations

import aiohttp
import orjson
from aiohttp import web

# v1 name -> v2 dotted path(s), first present wins: the plain renames of a pod (mappings/data/responses.yaml
# `pod`, converters left out)
POD_FIELDS = {
    "id": "id", "name": "name", "desiredStatus": "status", "image": "image", "containerDiskInGb": "disk",
    "volumeInGb": "mounts.persistent.size", "ports": "ports", "env": "env", "containerRegistryAuthId": "registry",
    "costPerHr": "cost", "adjustedCostPerHr": "cost", "cpuFlavorId": "cpu.id", "vcpuCount": ("cpu.vcpuCount", "gpu.vcpuCount"),
    "memoryInGb": ("cpu.memory", "gpu.memory"), "locked": "locked", "templateId": "template", "lastStartedAt": "startedAt",
}
_PATHS = [(v1, [p.split(".") for p in ((v2,) if isinstance(v2, str) else v2)]) for v1, v2 in POD_FIELDS.items()]


def pod(v2: dict) -> dict:
    out = {}
    for v1, choices in _PATHS:
        for parts in choices:
            value = v2
            for part in parts:
                value = value.get(part) if isinstance(value, dict) else None
            if value is not None:
                break
        out[v1] = value
    return out


def create_app(upstream: str) -> web.Application:
    async def session_ctx(app: web.Application):
        app["session"] = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0, limit_per_host=0, ttl_dns_cache=300),
            skip_auto_headers=("User-Agent",), cookie_jar=aiohttp.DummyCookieJar())
        yield
        await app["session"].close()

    async def call(request: web.Request, method: str, path: str, body: dict | None = None):
        headers = {"Authorization": request.headers.get("Authorization", "")}
        data = None
        if body is not None:
            data = orjson.dumps(body)
            headers["Content-Type"] = "application/json"
        async with request.app["session"].request(method, upstream + path, data=data, headers=headers) as resp:
            return resp.status, orjson.loads(await resp.read())

    def answer(status: int, value) -> web.Response:
        return web.Response(status=status, body=orjson.dumps(value), content_type="application/json")

    async def list_pods(request: web.Request) -> web.Response:
        status, value = await call(request, "GET", "/v2/pods")
        return answer(status, [pod(p) for p in value["pods"]])

    async def get_pod(request: web.Request) -> web.Response:
        status, value = await call(request, "GET", "/v2/pods/" + request.match_info["pod"])
        return answer(status, pod(value))

    async def stop_pod(request: web.Request) -> web.Response:
        status, value = await call(request, "POST", f"/v2/pods/{request.match_info['pod']}/action",
                                   {"action": "stop"})
        return answer(status, pod(value))

    app = web.Application()
    app.cleanup_ctx.append(session_ctx)
    app.router.add_get("/v1/pods", list_pods)
    app.router.add_get("/v1/pods/{pod}", get_pod)
    app.router.add_post("/v1/pods/{pod}/stop", stop_pod)
    return app


def run(port: int, upstream: str) -> None:
    from proxy_bench import BACKLOG, bench_loop  # the same event loop and backlog as every other target

    web.run_app(create_app(upstream), host="127.0.0.1", port=port, access_log=None, print=None, loop=bench_loop(),
                backlog=BACKLOG)
