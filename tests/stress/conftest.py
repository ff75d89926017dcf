"""Stress fixtures: a misbehaving raw-TCP upstream in its own process, and a sandbox that can be sabotaged call by call."""
from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import orjson
import pytest
from aiohttp import web

from proxy.app import create_proxy_app
from proxy.config import ProxyConfig

ROOT = Path(__file__).resolve().parents[2]
# short on purpose: every fault must be answered in about this long, and the suite stays fast
CONNECT_TIMEOUT = 0.3
TOTAL_TIMEOUT = 0.5
SALT = "stress-salt"


def fast_config(upstream: str, tmp_path: Path, **extra: Any) -> ProxyConfig:
    settings: dict[str, Any] = dict(
        upstream=upstream.rstrip("/"),
        connect_timeout=CONNECT_TIMEOUT,
        total_timeout=TOTAL_TIMEOUT,
        usage_dir=str(tmp_path / "usage"),
        fingerprint_salt=SALT,
        access_log=False,
        reset_wait_seconds=1.0,
    )
    return ProxyConfig(**{**settings, **extra})


@pytest.fixture(scope="module")
def faulty_url() -> str:
    """The FaultyUpstream, out of process: its sockets and tasks never count as the proxy's."""
    proc = subprocess.Popen([sys.executable, "-m", "tests.stress.faulty_upstream", "5"], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()  # type: ignore[union-attr]
        assert url.startswith("http://127.0.0.1:"), url
        yield url
    finally:
        proc.kill()
        proc.wait(5)


@pytest.fixture
def closed_port_url() -> str:
    """A loopback port nobody listens on: connections are refused at once."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# ------------------------------------------------------------------ sabotage


@dataclass
class Seen:
    method: str
    path: str
    raw_path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]
    raw_body: bytes
    body: Any
    host: str


@dataclass
class Saboteur:
    """Records every request the sandbox receives; rules make chosen ones fail.

    A rule is (predicate(Seen, n) -> bool, action); n counts requests from 1.
    Actions: ("problem", status, detail[, headers]), ("hang",) until the proxy hangs up, ("drop",) the connection,
    ("delay", seconds) then the next matching rule or the real handler, ("raw", status, content_type, body).
    """

    seen: list[Seen] = field(default_factory=list)
    rules: list[tuple[Callable[[Seen, int], bool], tuple]] = field(default_factory=list)

    def on(self, predicate: Callable[[Seen, int], bool], *action: Any) -> None:
        self.rules.append((predicate, action))

    def clear(self) -> None:
        self.seen.clear()
        self.rules.clear()

    def calls(self) -> list[tuple[str, str, Any]]:
        return [(s.method, s.path, s.body) for s in self.seen]


def is_action(seen: Seen, action: str) -> bool:
    return seen.method == "POST" and seen.path.endswith("/action") and isinstance(seen.body, dict) \
        and seen.body.get("action") == action


@pytest.fixture
def saboteur() -> Saboteur:
    return Saboteur()


@pytest.fixture
def sabotaged_app(sandbox_app: web.Application, saboteur: Saboteur) -> web.Application:
    @web.middleware
    async def sabotage(request: web.Request, handler):
        raw = await request.read()
        try:
            body = orjson.loads(raw) if raw else None
        except orjson.JSONDecodeError:
            body = raw
        seen = Seen(request.method, request.path, request.raw_path, list(request.query.items()),
                    dict(request.headers), raw, body, request.host)
        saboteur.seen.append(seen)
        for predicate, action in saboteur.rules:
            if not predicate(seen, len(saboteur.seen)):
                continue
            if action[0] == "delay":  # answer late (the real handler, or the next matching rule)
                await asyncio.sleep(action[1])
                continue
            if action[0] == "raw":  # any status, media type and bytes
                return web.Response(status=action[1], body=action[3], content_type=action[2])
            if action[0] == "problem":
                problem = {"title": "injected", "status": action[1], "detail": action[2]}
                return web.Response(status=action[1], body=orjson.dumps(problem),
                                    content_type="application/problem+json",
                                    headers=action[3] if len(action) > 3 else None)
            if action[0] == "hang":
                while request.transport is not None and not request.transport.is_closing():
                    await asyncio.sleep(0.02)
                raise ConnectionResetError("the proxy hung up")
            if action[0] == "drop":
                assert request.transport is not None
                request.transport.abort()
                raise ConnectionResetError("dropped on purpose")
        return await handler(request)

    sandbox_app.middlewares.insert(0, sabotage)
    return sandbox_app


@pytest.fixture
async def sabotaged_upstream(aiohttp_server, sabotaged_app):
    return await aiohttp_server(sabotaged_app)


@pytest.fixture
async def proxy(aiohttp_client, sabotaged_upstream, tmp_path):
    """The translating proxy (short timeouts) in front of the sabotaged sandbox."""
    config = fast_config(str(sabotaged_upstream.make_url("")), tmp_path)
    return await aiohttp_client(create_proxy_app(config))


@pytest.fixture
def auth(sandbox_keys) -> dict[str, str]:
    return {"Authorization": f"Bearer {sandbox_keys[0]}"}


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))
