"""Upstream connection drops: idempotent GETs are retried (bounded), anything else never is;
and `--workers 2`: two processes answering on one port."""
from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

from proxy.app import create_proxy_app
from tests.live_server import wait_listening
from proxy.config import ProxyConfig

REGISTRY = {"id": "r1", "name": "reg"}


class DroppingUpstream:
    """A raw HTTP/1.1 server that closes the first `drops` connections after reading the request head
    (no answer at all: the case a GET retry exists for), then answers every request with REGISTRY."""

    def __init__(self, drops: int) -> None:
        self.drops = drops
        self.attempts: Counter[tuple[str, str]] = Counter()
        self.server: asyncio.AbstractServer | None = None

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode().split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                length = next((int(x.split(":", 1)[1]) for x in lines if x.lower().startswith("content-length:")), 0)
                if length:
                    await reader.readexactly(length)
                self.attempts[(method, path)] += 1
                if self.drops > 0:
                    self.drops -= 1
                    writer.close()
                    return
                body = json.dumps(REGISTRY).encode()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                             + str(len(body)).encode() + b"\r\n\r\n" + body)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    async def start(self) -> str:
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()


@pytest.fixture
async def dropping():
    made: list[DroppingUpstream] = []

    async def make(drops: int, retries: int, aiohttp_client):
        upstream = DroppingUpstream(drops)
        made.append(upstream)
        config = ProxyConfig(upstream=await upstream.start(), get_retries=retries, access_log=False,
                             fingerprint_salt="s")
        return upstream, await aiohttp_client(create_proxy_app(config))

    yield make
    for upstream in made:
        await upstream.stop()


async def test_get_is_retried_after_a_dropped_connection(dropping, aiohttp_client):
    upstream, proxy = await dropping(1, 2, aiohttp_client)
    r = await proxy.get("/v1/containerregistryauth/r1", headers={"Authorization": "Bearer k"})
    assert r.status == 200
    assert await r.json() == REGISTRY
    assert upstream.attempts == Counter({("GET", "/v2/registries/r1"): 2})


async def test_get_retries_are_bounded(dropping, aiohttp_client):
    upstream, proxy = await dropping(100, 2, aiohttp_client)
    r = await proxy.get("/v1/containerregistryauth/r1", headers={"Authorization": "Bearer k"})
    assert r.status == 502
    assert (await r.json())["message"].startswith("the v2 upstream is unreachable")
    # 1 + get_retries attempts, each on a new connection: the transparent re-send of RFC 9112 section 9.3.1 is
    # only for a kept-alive connection (tests/proxy/test_http1.py), and none of these was
    assert upstream.attempts == Counter({("GET", "/v2/registries/r1"): 1 + 2})


async def test_no_proxy_retries_when_disabled(dropping, aiohttp_client):
    upstream, proxy = await dropping(100, 0, aiohttp_client)
    r = await proxy.get("/v1/containerregistryauth/r1", headers={"Authorization": "Bearer k"})
    assert r.status == 502
    assert upstream.attempts == Counter({("GET", "/v2/registries/r1"): 1})


@pytest.mark.parametrize("method,path,body", [
    ("POST", "/v1/containerregistryauth", {"name": "reg", "username": "u", "password": "p"}),
    ("PATCH", "/v1/pods/p1", {"name": "x"}),
    ("POST", "/v1/pods/p1/stop", None),
])
async def test_non_idempotent_calls_are_never_retried(dropping, aiohttp_client, method, path, body):
    """A create or change that may have happened must not happen twice; the client gets a 502 and decides."""
    upstream, proxy = await dropping(1, 2, aiohttp_client)
    r = await proxy.request(method, path, json=body, headers={"Authorization": "Bearer k"})
    assert r.status == 502
    assert sum(upstream.attempts.values()) == 1


# ------------------------------------------------------------------ workers


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(not hasattr(socket, "SO_REUSEPORT"), reason="SO_REUSEPORT needed")
def test_two_workers_answer_on_one_port(tmp_path: Path):
    """`v1bridge proxy --workers 2` (embedded shared sandbox): both worker processes serve the same port,
    and state written through one is read through the other (one sandbox behind both)."""
    port = _free_port()
    usage = tmp_path / "usage"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [sys.executable, "-m", "proxy.cli_proxy", "--port", str(port), "--workers", "2", "--keys", "k1",
         "--usage-dir", str(usage), "--no-access-log"],
        cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise AssertionError(f"proxy never answered: {proc.stderr.read().decode() if proc.poll() is not None else ''}")
                time.sleep(0.1)
        wait_listening(port, 2)

        def call(method: str, path: str, body: dict | None = None):
            req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                         data=json.dumps(body).encode() if body is not None else None,
                                         headers={"Authorization": "Bearer k1", "Content-Type": "application/json",
                                                  "Connection": "close"})
            with urllib.request.urlopen(req, timeout=5) as resp:
                return resp.status, json.loads(resp.read() or b"null")

        status, created = call("POST", "/v1/containerregistryauth", {"name": "reg", "username": "u", "password": "p"})
        assert status == 200
        # fresh connections: the kernel spreads them over both workers; each must see the shared state
        for _ in range(40):
            status, got = call("GET", f"/v1/containerregistryauth/{created['id']}")
            assert (status, got) == (200, created)
        # both processes served requests: each keeps its own usage file (one per process), flushed every second
        def counts() -> list[int]:
            return [len(f.read_text().splitlines()) for f in usage.glob("usage-*.jsonl")]

        deadline = time.monotonic() + 5
        while sum(counts()) < 41 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert sum(counts()) == 41
        assert len(counts()) == 2 and min(counts()) > 0, counts()
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
