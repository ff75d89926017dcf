"""The translated calls' HTTP/1.1 client (proxy/http1.py) against raw servers that answer the way real ones
do: kept-alive, chunked, compressed, delimited by close, dropped, broken mid-body; and its request bytes."""
from __future__ import annotations

import asyncio
import gzip
import socket
import ssl
import struct
import zlib

import pytest
import trustme
from hypothesis import given, settings, strategies as st
from yarl import URL

from proxy import http1


class RawServer:
    """Reads each request head (and Content-Length body), records it, and plays the next scripted answer:
    bytes to write, "drop" (close without answering), or a callable(writer) for anything else."""

    def __init__(self, *script) -> None:
        self.script = list(script)
        self.requests: list[bytes] = []
        self.connections = 0
        self.server: asyncio.AbstractServer | None = None

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                body = await reader.readexactly(length) if length else b""
                self.requests.append(head + body)
                step = self.script.pop(0)
                if step == "drop":
                    writer.close()
                    return
                if callable(step):
                    await step(writer)
                    return
                writer.write(step)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    async def __aenter__(self) -> str:
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def __aexit__(self, *exc) -> None:
        self.server.close()


def ok(body: bytes, *headers: str) -> bytes:
    head = "".join(f"{h}\r\n" for h in headers)
    return f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n{head}\r\n".encode() + body


async def call(pool: http1.Pool, method: str = "GET", path: str = "/v2/pods", body: bytes | None = None,
               query=None) -> http1.Answer:
    answer, _ = await pool.exchange(method, pool.request(method, pool.target(path, query), {}, body))
    return answer


# ------------------------------------------------------------------ what goes on the wire


async def test_the_request_bytes_are_those_aiohttp_sent():
    async with (server := RawServer(ok(b"{}"), ok(b"{}"))) as base:
        pool = http1.Pool(base + "/", limit=4, connect_timeout=1)
        port = URL(base).port
        await pool.exchange("GET", pool.request("GET", pool.target("/v2/pods", [("name", "a b&c")]),
                                                {"Authorization": "Bearer k"}, None))
        await pool.exchange("POST", pool.request("POST", pool.target("/v2/pods/x y/actions", None),
                                                 {"Content-Type": "application/json"}, b'{"a":1}'))
        await pool.close()
    assert server.requests == [
        f"GET /v2/pods?name=a+b%26c HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept-Encoding: gzip, deflate\r\n"
        "Authorization: Bearer k\r\n\r\n".encode(),
        f"POST /v2/pods/x%20y/actions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept-Encoding: gzip, deflate\r\n"
        'Content-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}'.encode(),
    ]


def test_host_and_target_follow_the_base_url():
    assert http1.Pool("https://api.example.com/", limit=1, connect_timeout=1).authority == "api.example.com"
    assert http1.Pool("http://h:80", limit=1, connect_timeout=1).authority == "h"
    assert http1.Pool("http://[::1]:8443/api", limit=1, connect_timeout=1).authority == "[::1]:8443"
    assert http1.Pool("http://h/api/", limit=1, connect_timeout=1).target("/v2/pods", None) == "/api/v2/pods"
    with pytest.raises(ValueError):
        http1.Pool("ftp://h", limit=1, connect_timeout=1)


def test_a_header_value_with_a_line_break_is_refused():
    pool = http1.Pool("http://h", limit=1, connect_timeout=1)
    with pytest.raises(ValueError, match="line break"):
        pool.request("GET", "/v2/pods", {"x-request-id": "a\r\nX-Injected: 1"}, None)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="abcXYZ019._~-%/ é?#:@+", max_size=8), max_size=5))
def test_paths_are_quoted_exactly_as_yarl_quotes_them(segments):
    """The plain-path shortcut must never put on the wire what aiohttp (yarl) would not have."""
    pool = http1.Pool("http://h:1/base", limit=1, connect_timeout=1)
    path = "/v2/" + "/".join(segments)
    assert pool.target(path, None) == URL("http://h:1/base" + path).raw_path_qs


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet="abcXZ09._~-%&=+ é/?", max_size=6),
                          st.text(alphabet="abcXZ09._~-%&=+ é/?", max_size=8)), max_size=4),
       st.sampled_from(["/v2/pods", "/v2/pods/a b", "/v2/x/../y"]), st.booleans())
def test_queries_are_encoded_exactly_as_yarl_encodes_them(items, path, as_dict):
    """The plain-query shortcut (a limit, a cursor) must never put on the wire what aiohttp would not have."""
    pool = http1.Pool("http://h:1", limit=1, connect_timeout=1)
    query = dict(items) if as_dict else items
    expected = URL("http://h:1" + path)
    if query:
        expected = expected.extend_query(query)
    assert pool.target(path, query) == expected.raw_path_qs


# ------------------------------------------------------------------ answers as servers send them


async def test_chunked_gzip_deflate_and_close_delimited_answers_are_read_whole():
    gz = gzip.compress(b'{"a":1}')
    raw_deflate = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    raw = raw_deflate.compress(b'{"c":3}') + raw_deflate.flush()

    async def until_close(writer):
        writer.write(b'HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{"d":')
        await writer.drain()
        writer.write(b"4}")
        writer.close()

    async with RawServer(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"b\r\n4\r\n\":2}\r\n0\r\n\r\n",
                         ok(gz, "Content-Encoding: gzip"), ok(zlib.compress(b'{"e":5}'), "Content-Encoding: deflate"),
                         ok(raw, "Content-Encoding: deflate"), until_close) as base:
        pool = http1.Pool(base, limit=1, connect_timeout=1)
        bodies = [(await call(pool)).body for _ in range(5)]
        await pool.close()
    assert bodies == [b'{"b":2}', b'{"a":1}', b'{"e":5}', b'{"c":3}', b'{"d":4}']


async def test_headers_keep_their_case_and_repeats():
    async with RawServer(ok(b"{}", "X-Request-Id: r1", "RateLimit: a", "RateLimit: b")) as base:
        pool = http1.Pool(base, limit=1, connect_timeout=1)
        answer = await call(pool)
        await pool.close()
    assert (answer.status, list(answer.headers.items())) == (
        200, [("Content-Length", "2"), ("X-Request-Id", "r1"), ("RateLimit", "a"), ("RateLimit", "b")])


async def test_an_interim_100_answer_is_skipped():
    async with RawServer(b"HTTP/1.1 100 Continue\r\n\r\n" + ok(b"[1]")) as base:
        pool = http1.Pool(base, limit=1, connect_timeout=1)
        answer = await call(pool, "POST", body=b"{}")
        await pool.close()
    assert (answer.status, answer.body) == (200, b"[1]")


async def test_an_encoding_not_offered_is_a_malformed_answer():
    async with RawServer(ok(b"xx", "Content-Encoding: br")) as base:
        pool = http1.Pool(base, limit=1, connect_timeout=1)
        with pytest.raises(http1.MalformedAnswer, match="'br', which the proxy did not offer"):
            await call(pool)
        await pool.close()


async def test_garbage_is_a_malformed_answer():
    async with RawServer(b"SPDY/3 200 nope\r\n\r\n") as base:
        pool = http1.Pool(base, limit=1, connect_timeout=1)
        with pytest.raises(http1.MalformedAnswer, match="not HTTP/1.1"):
            await call(pool)
        await pool.close()


async def test_an_answer_cut_mid_body_is_broken_not_short():
    async def cut(writer):
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"partial\":")
        await writer.drain()
        writer.close()

    async with RawServer(cut) as base:
        pool = http1.Pool(base, limit=1, connect_timeout=1)
        with pytest.raises(http1.BrokenAnswer, match="^connection closed$"):
            await call(pool)
        await pool.close()
    assert pool.open == 0


async def test_a_close_delimited_answer_cut_by_a_reset_is_broken_not_short():
    async def reset(writer):
        writer.write(b'HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{"partial":')
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()

    async with RawServer(reset) as base:
        pool = http1.Pool(base, limit=1, connect_timeout=1)
        with pytest.raises(http1.BrokenAnswer, match="^connection reset$"):
            await call(pool)
        await pool.close()


# ------------------------------------------------------------------ kept-alive connections


async def test_a_get_on_a_kept_alive_connection_the_server_closed_is_sent_again_on_a_new_one():
    async with (server := RawServer(ok(b"[1]"), "drop", ok(b"[2]"))) as base:
        pool = http1.Pool(base, limit=4, connect_timeout=1)
        first, second = (await call(pool)).body, (await call(pool)).body
        await pool.close()
    assert (first, second, len(server.requests), server.connections) == (b"[1]", b"[2]", 3, 2)


@pytest.mark.parametrize("method", ["POST", "PATCH"])
async def test_a_change_on_a_kept_alive_connection_the_server_closed_is_never_sent_again(method):
    async with (server := RawServer(ok(b"[1]"), "drop", ok(b"[2]"))) as base:
        pool = http1.Pool(base, limit=4, connect_timeout=1)
        await call(pool)
        with pytest.raises(http1.ClosedBeforeAnswer):
            await call(pool, method, body=b"{}")
        await pool.close()
    assert len(server.requests) == 2


async def test_a_get_on_a_new_connection_that_drops_is_not_sent_again_here():
    """Retries of GETs on new connections are `Upstream.call`'s (get_retries), counted there."""
    async with (server := RawServer("drop")) as base:
        pool = http1.Pool(base, limit=4, connect_timeout=1)
        with pytest.raises(http1.ClosedBeforeAnswer):
            await call(pool)
        await pool.close()
    assert len(server.requests) == 1


async def test_connections_are_reused_and_bounded_by_the_limit():
    async def slow(writer):
        await asyncio.sleep(0.05)
        writer.write(ok(b"{}", "Connection: close"))
        await writer.drain()
        writer.close()

    async with (server := RawServer(*[slow] * 6, *[ok(b"{}")] * 4)) as base:
        pool = http1.Pool(base, limit=2, connect_timeout=1)
        peak = 0

        async def watch():
            nonlocal peak
            while True:
                peak = max(peak, pool.open)
                await asyncio.sleep(0.005)

        watcher = asyncio.create_task(watch())
        answers = await asyncio.gather(*[call(pool) for _ in range(6)])
        watcher.cancel()
        for _ in range(4):  # one after the other: one kept-alive connection serves them all
            await call(pool)
        await pool.close()
    assert [a.status for a in answers] == [200] * 6
    assert (peak, server.connections) == (2, 7)


async def test_a_call_cancelled_mid_answer_closes_its_connection_and_frees_its_place():
    async def never(writer):
        await asyncio.sleep(10)

    async with RawServer(never, ok(b"{}")) as base:
        pool = http1.Pool(base, limit=1, connect_timeout=1)
        task = asyncio.create_task(call(pool))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert (pool.open, pool.idle) == (0, [])
        assert (await asyncio.wait_for(call(pool), 2)).status == 200
        await pool.close()


async def test_a_refused_connection_is_a_connect_failure():
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    pool = http1.Pool(f"http://127.0.0.1:{port}", limit=1, connect_timeout=1)
    with pytest.raises(http1.ConnectFailed, match="refused"):
        await call(pool)
    assert pool.open == 0


# ------------------------------------------------------------------ TLS (the production upstream is https)


async def test_an_https_upstream_is_verified_and_named():
    ca = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost").configure_cert(server_context)
    trusting = ssl.create_default_context()
    ca.configure_trust(trusting)
    server = RawServer(ok(b'{"tls":true}'), ok(b"{}"))
    listening = await asyncio.start_server(server.handle, "localhost", 0, ssl=server_context)
    port = listening.sockets[0].getsockname()[1]
    try:
        pool = http1.Pool(f"https://localhost:{port}", limit=1, connect_timeout=2, ssl_context=trusting)
        answer = await call(pool)
        await pool.close()
        assert (answer.status, answer.body, server.requests[0].split(b"\r\n")[1]) == (
            200, b'{"tls":true}', f"Host: localhost:{port}".encode())
        untrusting = http1.Pool(f"https://localhost:{port}", limit=1, connect_timeout=2)
        with pytest.raises(http1.ConnectFailed, match="TLS: CERTIFICATE_VERIFY_FAILED"):
            await call(untrusting)
    finally:
        listening.close()


async def test_an_address_that_never_answers_does_not_hold_up_the_next_one(monkeypatch, full_backlog_url):
    """Happy Eyeballs: the first address (a listener whose backlog is full: the handshake never completes) is
    passed over after 0.25 s, well within the 5 s connect timeout, and the call goes to the next address."""
    async with RawServer(ok(b"{}")) as base:
        pool = http1.Pool(base, limit=1, connect_timeout=5)
        infos = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", URL(full_backlog_url).port)),
                 (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", URL(base).port))]

        async def addresses():
            return infos

        monkeypatch.setattr(pool, "_addresses", addresses)
        loop = asyncio.get_running_loop()
        started = loop.time()
        answer = await call(pool)
        took = loop.time() - started
        await pool.close()
    assert answer.status == 200 and took < 2
