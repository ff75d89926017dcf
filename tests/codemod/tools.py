"""Helpers several codemod test modules share: before/after pairs of the rewrite, loading a module from source,
and the execution harness's recording sandbox, seed data, account state and job-API stub."""
from __future__ import annotations

import re
import sys
import textwrap
import types
from dataclasses import dataclass
from typing import Any

import libcst as cst
import orjson
from aiohttp import web

from sandbox import create_sandbox_app


def case(before: str, after: str | None = None) -> tuple[str, str]:
    """A before/after pair written indented in a test (no AFTER: the rewrite must leave BEFORE as it is)."""
    before = textwrap.dedent(before).lstrip("\n")
    return before, before if after is None else textwrap.dedent(after).lstrip("\n")


def check_rewrite(before: str, after: str, path: str = "case.py") -> None:
    """The rewrite makes exactly AFTER of BEFORE, AFTER parses, and a second run changes nothing."""
    from codemod.engine import rewrite_source

    result = rewrite_source(before, path)
    assert result.error is None
    assert result.new_source == after
    cst.parse_module(result.new_source)
    assert rewrite_source(result.new_source, path).new_source == result.new_source, "second run changed it"


def load(source: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__file__ = f"<{name}>"
    sys.modules[name] = module
    try:
        exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    finally:
        sys.modules.pop(name, None)
    return module


KEY = "key-alice"


AUTH = {"Authorization": f"Bearer {KEY}"}


PAGE = 2  # items per page of a paginated v2 list in both sandboxes (the service's is 1,000)


EXTRA = PAGE + 1  # more seeded pods, endpoints and templates than one page holds


@dataclass(frozen=True)
class Op:
    method: str
    route: str  # the sandbox's route template, e.g. /v2/pods/{podId}
    body: Any  # the body's shape: keys and value types (action names kept)


def shape(value: Any) -> Any:
    """The structure of a JSON body: dict keys and value types; short enum-like strings kept.

    Lowercase words are kept only up to 9 letters: the sandbox's ids are 10 or more lowercase letters and
    digits, and about one id in 26 has no digit, which made the two runs' shapes differ at random.
    """
    if isinstance(value, dict):
        return {k: shape(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [shape(v) for v in value]
    if isinstance(value, str):
        return value if re.fullmatch(r"[a-z]{1,9}|[A-Z0-9_-]+", value) else "str"
    return type(value).__name__


class Recording:
    """A sandbox app whose every received request is kept (after routing, so the template is known)."""

    def __init__(self, config) -> None:
        self.ops: list[Op] = []
        self.refused: list[Op] = []  # what v2 answered with a 4xx: a refusal, not an operation
        self.unrouted: list[str] = []  # "METHOD path" of requests to paths the v2 service does not have
        self.on = False
        self.app = create_sandbox_app(config)

        @web.middleware
        async def record(request: web.Request, handler):
            raw = await request.read()
            response = await handler(request)
            if self.on:
                route = request.match_info.route.resource
                template = route.canonical if route is not None else request.path
                if route is None:
                    self.unrouted.append(f"{request.method} {request.path}")
                op = Op(request.method, template, shape(orjson.loads(raw)) if raw else None)
                (self.refused if 400 <= response.status < 500 else self.ops).append(op)
            return response

        self.app.middlewares.insert(0, record)


SEED_POD = {"name": "seed-pod", "image": "busybox:latest", "cpu": {"id": "cpu3c", "vcpuCount": 2}}


SEED_ENDPOINT = {"name": "seed-endpoint", "type": "QUEUE", "image": "busybox:latest", "gpu": {"pools": ["ADA_24"]},
                 "scaling": {"type": "QUEUE_DELAY", "queueDelay": 4}, "workers": {"min": 0, "max": 3}}


VOLATILE = re.compile(r"(?i)(^id$|Id$|Ids$|^createdAt$|^updatedAt$|^lastStatusChange$|^lastStartedAt$|^machine$|^ip$|url$|Urls$|^ports?$|^startedAt$|^ssh$|^uptime$)")


def scrub(value: Any) -> Any:
    """A resource list without what differs between two sandboxes by construction (ids, times)."""
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in sorted(value.items()) if not VOLATILE.search(k)}
    if isinstance(value, list):
        return sorted((scrub(v) for v in value), key=repr)
    return value


async def state(session, base: str) -> dict:
    """Every resource list of the account, every page of it."""
    out = {}
    for path in ("/pods", "/network-volumes", "/templates", "/serverless", "/registries"):
        query: dict = {}
        while True:
            async with session.get(base + path, headers=AUTH, params=query) as resp:
                assert resp.status == 200, path
                page = await resp.json()
            if isinstance(page, dict) and "pagination" in page:
                out.setdefault(path, []).extend(page[next(k for k in page if k != "pagination")])
                if page["pagination"]["hasNextPage"]:
                    query = {"cursor": page["pagination"]["nextCursor"]}
                    continue
            else:
                out[path] = page
            break
        out[path] = scrub(out[path])
    return out


async def seed(session, base: str) -> dict:
    """The seed pod and endpoint (their ids), and EXTRA older pods (stopped), endpoints and templates, so that
    every paginated list spans several pages."""
    async def post(path: str, body: dict) -> str:
        async with session.post(base + path, json=body, headers=AUTH) as resp:
            assert resp.status in (200, 201), await resp.text()
            return (await resp.json())["id"]

    extra: dict[str, list[str]] = {"pods": [], "endpoints": [], "templates": []}
    for n in range(EXTRA):
        pod = await post("/pods", {**SEED_POD, "name": f"old-pod-{n}"})
        async with session.post(f"{base}/pods/{pod}/action", json={"action": "stop"}, headers=AUTH) as resp:
            assert resp.status == 200, await resp.text()
        extra["pods"].append(pod)
        extra["endpoints"].append(await post("/serverless", {**SEED_ENDPOINT, "name": f"old-endpoint-{n}"}))
        extra["templates"].append(await post("/templates", {"name": f"old-template-{n}", "image": "busybox:latest"}))
    ids: dict = {"pod": await post("/pods", SEED_POD), "endpoint": await post("/serverless", SEED_ENDPOINT)}
    return {**ids, "extra": extra}


def paged(config):
    """A sandbox configuration answering pages of PAGE items (`--max-page-size`)."""
    return config.__class__(**{**vars(config), "max_page_size": PAGE})


def client_ops(ops: list[Op]) -> list[Op]:
    """The proxy's own catalogue reads (it maps GPU ids for v1 answers) are not client operations."""
    return [op for op in ops if not (op.method == "GET" and op.route.startswith("/v2/catalog/"))]


def job_api_stub() -> web.Application:
    """The serverless job API as MANIFEST.yaml describes it (`stubs: [job_api]`)."""
    app = web.Application()

    async def run(request):
        return web.json_response({"id": "job-1", "status": "IN_QUEUE"})

    async def runsync(request):
        body = await request.json()
        return web.json_response({"id": "job-2", "status": "COMPLETED", "output": body.get("input")})

    async def status(request):
        return web.json_response({"id": request.match_info["job"], "status": "COMPLETED"})

    async def health(request):
        return web.json_response({"jobs": {"completed": 0, "failed": 0, "inProgress": 0, "inQueue": 0, "retried": 0},
                                  "workers": {"idle": 1, "running": 0}})

    async def purge(request):
        return web.json_response({"removed": 0})

    app.router.add_post("/v2/{eid}/run", run)
    app.router.add_post("/v2/{eid}/runsync", runsync)
    app.router.add_get("/v2/{eid}/status/{job}", status)
    app.router.add_get("/v2/{eid}/health", health)
    app.router.add_post("/v2/{eid}/purge-queue", purge)
    return app
