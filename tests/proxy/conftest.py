"""Proxy fixtures: the sandbox as upstream, with every request it receives recorded."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
import pytest
from aiohttp import web

from proxy.app import create_proxy_app
from proxy.config import ProxyConfig


@dataclass
class Seen:
    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]
    body: Any


class Recorder(list):
    """What the upstream received, in order; `fail` makes matching requests answer a problem instead."""

    def __init__(self) -> None:
        super().__init__()
        self.faults: list[tuple[Any, int, str]] = []

    def fail(self, predicate, status: int, detail: str) -> None:
        self.faults.append((predicate, status, detail))

    def calls(self, *, skip_lookups: bool = False) -> list[tuple[str, str, Any]]:
        return [(s.method, s.path, s.body) for s in self]

    def last(self) -> Seen:
        return self[-1]


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def recording_sandbox_app(sandbox_app: web.Application, recorder: Recorder) -> web.Application:
    @web.middleware
    async def record(request: web.Request, handler):
        raw = await request.read()
        try:
            body = orjson.loads(raw) if raw else None
        except orjson.JSONDecodeError:
            body = raw
        seen = Seen(request.method, request.path, list(request.query.items()), dict(request.headers), body)
        recorder.append(seen)
        for predicate, status, detail in recorder.faults:
            if predicate(seen):
                problem = {"title": "injected", "status": status, "detail": detail}
                return web.Response(status=status, body=orjson.dumps(problem), content_type="application/problem+json")
        return await handler(request)

    sandbox_app.middlewares.insert(0, record)
    return sandbox_app


@pytest.fixture
async def upstream(aiohttp_server, recording_sandbox_app):
    return await aiohttp_server(recording_sandbox_app)


@pytest.fixture
def proxy_config(upstream, tmp_path) -> ProxyConfig:
    return ProxyConfig(
        upstream=str(upstream.make_url("")).rstrip("/"),
        usage_dir=str(tmp_path / "usage"),
        fingerprint_salt="test-salt",
        access_log=False,
        reset_wait_seconds=1.0,
    )


@pytest.fixture
async def proxy(aiohttp_client, proxy_config):
    """A test client on the proxy, in front of the recording sandbox."""
    return await aiohttp_client(create_proxy_app(proxy_config))


@pytest.fixture
def auth(sandbox_keys) -> dict[str, str]:
    return {"Authorization": f"Bearer {sandbox_keys[0]}"}
