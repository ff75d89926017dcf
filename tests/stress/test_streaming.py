"""Streaming honesty: a /v2 answer whose upstream body fails after it started is cut (the client connection is
aborted, never a second response inside the first), slow bodies are bounded, over-limit bodies are refused first."""
from __future__ import annotations

import asyncio
import time

import orjson
import pytest

from proxy.app import create_proxy_app
from tests.stress.conftest import TOTAL_TIMEOUT, fast_config
from tests.stress.faulty_upstream import POD

AUTH = "Authorization: Bearer stress-key"
SLACK = 0.6


async def read_to_eof(port: int, request: bytes, limit: float = 10.0) -> tuple[bytes, float]:
    """Everything the proxy sends on one connection until it closes it, and how long that took."""
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        await writer.drain()
        chunks = []
        async with asyncio.timeout(limit):
            while True:
                try:
                    chunk = await reader.read(65536)
                except ConnectionResetError:
                    break
                if not chunk:
                    break
                chunks.append(chunk)
        return b"".join(chunks), time.perf_counter() - started
    finally:
        writer.close()


def get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: a\r\n{AUTH}\r\n\r\n".encode()  # keep-alive: only an abort ends it early


@pytest.fixture
async def stream_proxy(aiohttp_client, faulty_url, tmp_path):
    return await aiohttp_client(create_proxy_app(fast_config(faulty_url, tmp_path, stream_idle_timeout=0.3)))


@pytest.mark.parametrize("fault", ["reset", "truncated"])
async def test_passthrough_body_broken_mid_way_aborts_the_client_connection(stream_proxy, fault):
    """Head and half the body arrived, then the upstream died: the client gets exactly those bytes and a closed
    connection at once -- one status line, fewer body bytes than announced, no `500` appended, no 75 s hang."""
    answer, elapsed = await read_to_eof(stream_proxy.server.port, get(f"/v2/pods/{fault}"))
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 ")
    assert answer.count(b"HTTP/1.1 ") == 1
    announced = len(orjson.dumps(POD))
    assert f"Content-Length: {announced}".encode() in head
    assert 0 < len(body) < announced and orjson.dumps(POD).startswith(body)
    assert elapsed < 1.0


async def test_passthrough_chunked_stream_broken_mid_chunk_is_cut_without_a_last_chunk(stream_proxy):
    """A stream (chunked SSE) that breaks: the client has the events so far and no terminating chunk."""
    answer, elapsed = await read_to_eof(stream_proxy.server.port, get("/v2/pods/p1/logs?fault=chunkbreak"))
    assert answer.count(b"HTTP/1.1 ") == 1
    assert b"data: one\n\n" in answer
    assert not answer.endswith(b"0\r\n\r\n")  # a clean end would tell the client the stream was complete
    assert elapsed < 1.0


async def test_passthrough_slow_drip_is_cut_at_the_total_timeout(stream_proxy):
    """An announced body that drips a byte every 50 ms: cut once the total timeout has passed, not served for 20 s."""
    answer, elapsed = await read_to_eof(stream_proxy.server.port, get("/v2/pods/drip"))
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 ") and answer.count(b"HTTP/1.1 ") == 1
    assert len(body) < len(orjson.dumps(POD))
    assert TOTAL_TIMEOUT * 0.9 <= elapsed < TOTAL_TIMEOUT + SLACK


async def test_passthrough_idle_stream_is_cut_after_the_idle_timeout(stream_proxy):
    """A stream silent after its first event: cut after stream_idle_timeout (0.3 s here), the event delivered."""
    answer, elapsed = await read_to_eof(stream_proxy.server.port, get("/v2/pods/p1/logs?fault=idle"))
    assert b"data: one\n\n" in answer and answer.count(b"HTTP/1.1 ") == 1
    assert not answer.endswith(b"0\r\n\r\n")
    assert 0.25 <= elapsed < 0.3 + SLACK


async def test_chunked_over_limit_body_to_v2_is_413_before_anything_goes_upstream(aiohttp_client, sabotaged_upstream,
                                                                               saboteur, tmp_path, auth):
    """1.5 MB sent chunked (no Content-Length) with --max-body 1 MiB: a 413 problem, and the upstream saw nothing."""
    proxy = await aiohttp_client(create_proxy_app(fast_config(str(sabotaged_upstream.make_url("")), tmp_path)))

    async def chunks():
        for _ in range(15):
            yield b"x" * 100_000

    r = await proxy.post("/v2/pods", data=chunks(), headers={**auth, "Content-Type": "application/json"})
    assert (r.status, await r.json()) == (413, {"title": "Request Entity Too Large", "status": 413,
                                                "detail": "the request body is larger than 1048576 bytes"})
    assert saboteur.seen == []
    # under the limit, chunked still works: read whole, forwarded with its length
    body = orjson.dumps({"name": "c", "imageName": "img", "gpuTypeIds": ["NVIDIA A40"]})

    async def small():
        yield body[:10]
        yield body[10:]

    r = await proxy.post("/v2/pods", data=small(), headers={**auth, "Content-Type": "application/json"})
    assert [(s.method, s.path, s.raw_body) for s in saboteur.seen] == [("POST", "/v2/pods", body)]
    assert saboteur.seen[0].headers["Content-Length"] == str(len(body))
