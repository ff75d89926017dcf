"""Rewritten clients do on v2 what the originals did through the v1 proxy.

Each realistic fixture module runs twice on a fresh, recording sandbox:
the ORIGINAL (v1) module through the proxy (`create_proxy_app` in front of
sandbox A), and the module produced by the rewrite engine in this test (equal
to the reviewed `.after.py`) straight against sandbox B. The v2 operations
each sandbox received (method, route template, body shape) must be the same
sequence, and the sandboxes must end in the same state. The proxy's own
catalogue reads are its implementation, not the client's operations: see
`_client_ops`.

Synchronous clients (requests) run in a worker thread (`asyncio.to_thread`)
while the servers keep serving on real ports in the test's event loop.
Base addresses are injected by setting the module's base constant (or the
client's `base_url` argument): the fixtures themselves stay untouched.
"""
from __future__ import annotations

import asyncio
import contextlib
import io
import re
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import orjson
import pytest
from aiohttp import web

from codemod.engine import rewrite_source
from proxy.app import create_proxy_app
from proxy.config import ProxyConfig
from proxy.sandbox import create_sandbox_app
from proxy.sandbox.common import VIOLATIONS

FIXTURES = Path(__file__).parent / "fixtures"
KEY = "key-alice"
AUTH = {"Authorization": f"Bearer {KEY}"}


@dataclass(frozen=True)
class Op:
    method: str
    route: str  # the sandbox's route template, e.g. /v2/pods/{podId}
    body: Any  # the body's shape: keys and value types (action names kept)


def shape(value: Any) -> Any:
    """The structure of a JSON body: dict keys and value types; short enum-like strings kept."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [shape(v) for v in value]
    if isinstance(value, str):
        return value if re.fullmatch(r"[a-z]+|[A-Z0-9_-]+", value) else "str"
    return type(value).__name__


class Recording:
    """A sandbox app whose every received request is kept (after routing, so the template is known)."""

    def __init__(self, config) -> None:
        self.ops: list[Op] = []
        self.refused: list[Op] = []  # what v2 answered with a 4xx: a refusal, not an operation
        self.on = False
        self.app = create_sandbox_app(config)

        @web.middleware
        async def record(request: web.Request, handler):
            raw = await request.read()
            response = await handler(request)
            if self.on:
                route = request.match_info.route.resource
                template = route.canonical if route is not None else request.path
                op = Op(request.method, template, shape(orjson.loads(raw)) if raw else None)
                (self.refused if 400 <= response.status < 500 else self.ops).append(op)
            return response

        self.app.middlewares.insert(0, record)


def load(source: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__file__ = f"<{name}>"
    sys.modules[name] = module
    try:
        exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    finally:
        sys.modules.pop(name, None)
    return module


def pair(name: str) -> tuple[str, str]:
    """(original, rewritten): the rewrite runs here and must give the reviewed .after.py exactly."""
    before = (FIXTURES / f"{name}.before.py").read_text()
    result = rewrite_source(before, f"{name}.py")
    assert result.error is None
    assert result.new_source == (FIXTURES / f"{name}.after.py").read_text()
    return before, result.new_source


# ------------------------------------------------------------------ scenarios
# Each takes the loaded module and the base address (v1 through the proxy, or v2
# on the sandbox) and drives the client the way its user would.


async def run_session_client(mod, base: str, ids: dict) -> None:
    def go() -> None:
        client = mod.PodClient(KEY, base_url=base)
        pod = client.create_pod("web", "nginx:latest")
        assert sorted(p["id"] for p in client.list_pods()) == sorted([pod["id"], ids["pod"]])
        client.stop_pod(pod["id"])
        client.start_pod(pod["id"])
        assert client.get_pod(pod["id"])["id"] == pod["id"]
        assert sorted(row[0] for row in mod.summary(client)) == sorted([pod["id"], ids["pod"]])
        with pytest.raises(KeyError) as missing:
            client.get_pod("no-such-pod")
        other = client.create_pod("gone", "busybox:latest")
        client.delete_pod(other["id"])
        return [missing.value.args[0]]

    return await asyncio.to_thread(go)


async def run_argparse_cli(mod, base: str, ids: dict) -> None:
    mod.API = base
    mod.HEADERS = dict(AUTH)

    def go() -> None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert mod.main(["new-volume", "--name", "data", "--size", "20"]) == 0
        vol_id = orjson.loads(out.getvalue())["id"]
        with contextlib.redirect_stdout(io.StringIO()):
            assert mod.main(["grow", "--id", vol_id, "--size", "40"]) == 0
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert mod.main(["volumes"]) == 0
            assert mod.main(["endpoints"]) == 0
            assert mod.main(["spend"]) == 0
        lines = out.getvalue().splitlines()
        assert lines[0] == f"{vol_id} data 40 EU-RO-1"
        assert lines[1] == "seed-endpoint 3"
        with pytest.raises(SystemExit) as refused:
            with contextlib.redirect_stdout(io.StringIO()):
                mod.main(["new-volume", "--name", "data", "--size", "0"])
        # both refuse the size: the proxy in v1 words before forwarding, v2 with its own detail
        message = refused.value.code
        assert isinstance(message, str) and message, "the refusal must reach the user as a message"
        return ["refused", lines[2]]

    return await asyncio.to_thread(go)


async def run_async_httpx(mod, base: str, ids: dict) -> None:
    mod.BASE_URL = base
    api = mod.AsyncTemplates(KEY)
    try:
        created = await api.create("demo", "busybox:latest")
        assert await api.names() == ["demo"]
        image = await api.rename(created["id"], "demo-2")
        assert image == "busybox:latest"
        assert await api.names() == ["demo-2"]
        await api.remove(created["id"])
    finally:
        await api.aclose()


async def run_helper_client(mod, base: str, ids: dict) -> None:
    mod.BASE = base

    def go() -> None:
        api = mod.Api(KEY)
        api.add_registry("hub", "me", "secret")
        assert mod.registry_names(api) == ["hub"]
        api.restart(ids["pod"])
        api.scale(ids["endpoint"], 5)

    await asyncio.to_thread(go)


SCENARIOS: dict[str, Callable] = {
    "session_client": run_session_client,
    "argparse_cli": run_argparse_cli,
    "async_httpx": run_async_httpx,
    "helper_client": run_helper_client,
}

SEED_POD = {"name": "seed-pod", "image": "busybox:latest", "cpu": {"id": "cpu3c", "vcpuCount": 2}}
SEED_ENDPOINT = {"name": "seed-endpoint", "type": "QUEUE", "image": "busybox:latest", "gpu": {"pools": ["ADA_24"]},
                 "scaling": {"type": "QUEUE_DELAY", "queueDelay": 4}, "workers": {"min": 0, "max": 3}}

VOLATILE = re.compile(r"(?i)(^id$|Id$|Ids$|^createdAt$|^updatedAt$|^lastStatusChange$|^lastStartedAt$|^machine$|^ip$|url$|Urls$|^ports?$|^startedAt$|^ssh$)")


def scrub(value: Any) -> Any:
    """A resource list without what differs between two sandboxes by construction (ids, times)."""
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in sorted(value.items()) if not VOLATILE.search(k)}
    if isinstance(value, list):
        return sorted((scrub(v) for v in value), key=repr)
    return value


async def state(session, base: str) -> dict:
    out = {}
    for path in ("/pods", "/network-volumes", "/templates", "/serverless", "/registries"):
        async with session.get(base + path, headers=AUTH) as resp:
            assert resp.status == 200, path
            out[path] = scrub(await resp.json())
    return out


async def seed(session, base: str) -> dict:
    ids = {}
    for key, path, body in (("pod", "/pods", SEED_POD), ("endpoint", "/serverless", SEED_ENDPOINT)):
        async with session.post(base + path, json=body, headers=AUTH) as resp:
            assert resp.status in (200, 201), await resp.text()
            ids[key] = (await resp.json())["id"]
    return ids


def client_ops(ops: list[Op]) -> list[Op]:
    """The proxy's own catalogue reads (it maps GPU ids for v1 answers) are not client operations."""
    return [op for op in ops if not (op.method == "GET" and op.route.startswith("/v2/catalog/"))]


@pytest.mark.parametrize("name", list(SCENARIOS))
async def test_rewritten_module_does_on_v2_what_the_original_did_through_the_proxy(
    name, aiohttp_server, aiohttp_client, sandbox_config, tmp_path
) -> None:
    original, rewritten = pair(name)
    scenario = SCENARIOS[name]
    sandbox_a, sandbox_b = Recording(sandbox_config), Recording(sandbox_config.__class__(**vars(sandbox_config)))
    server_a = await aiohttp_server(sandbox_a.app)
    server_b = await aiohttp_server(sandbox_b.app)
    proxy = await aiohttp_server(create_proxy_app(ProxyConfig(
        upstream=str(server_a.make_url("")).rstrip("/"), usage_dir=str(tmp_path / "usage"),
        fingerprint_salt="t", access_log=False, reset_wait_seconds=1.0)))
    v1_base = str(proxy.make_url("/v1"))
    v2_a, v2_b = str(server_a.make_url("/v2")), str(server_b.make_url("/v2"))
    client = await aiohttp_client(web.Application())
    session = client.session
    ids_a, ids_b = await seed(session, v2_a), await seed(session, v2_b)

    sandbox_a.on = True
    seen_v1 = await scenario(load(original, f"v1_{name}"), v1_base, ids_a)
    sandbox_a.on = False
    sandbox_b.on = True
    seen_v2 = await scenario(load(rewritten, f"v2_{name}"), v2_b, ids_b)
    sandbox_b.on = False

    assert seen_v1 == seen_v2

    assert sandbox_b.ops, "the rewritten client made no v2 call"
    # refusals may differ in where they happen: the proxy refuses a body v2 would refuse before
    # forwarding it, the rewritten client has v2 refuse it; the accepted operations must be the same
    assert client_ops(sandbox_a.ops) == sandbox_b.ops
    assert sandbox_a.refused == [] or sandbox_a.refused == sandbox_b.refused
    assert await state(session, v2_a) == await state(session, v2_b)
    for sandbox in (sandbox_a, sandbox_b):
        assert not sandbox.app[VIOLATIONS]
