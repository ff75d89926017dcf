"""aiohttp's own 400 for a request it cannot parse repeats no request byte (mappings/redact.py), and the
private hook it relies on is still what aiohttp calls: these tests fail if aiohttp changes it."""
from __future__ import annotations

import asyncio
import inspect
import logging

import orjson
import pytest
from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from proxy.app import create_proxy_app
from proxy.config import ProxyConfig
from mappings import redact
from sandbox import create_sandbox_app
from sandbox.config import SandboxConfig

KEY = b"sk-v1bridge-Secret-0123456789abcdef"
# the malformed key lines aiohttp's parser refuses, and the fixed phrase each is answered with
REFUSED = {
    "trailing-cr": (b"Authorization: Bearer " + KEY + b"\r", "Missing expected LF after header value"),
    "control-byte": (b"Authorization: Bearer " + KEY + b"\x01", "Invalid header value char"),
    "nul": (b"Authorization: Bearer " + KEY + b"\x00", "Invalid header value char"),
    "over-8-kib": (b"Authorization: Bearer " + KEY + b"A" * 9000, "a header or request line is too long"),
    "bare-lf": (b"Authorization: Bearer " + KEY + b"\n", "Missing expected CR after header value"),
    "space-before-colon": (b"Authorization : Bearer " + KEY, "Invalid header token"),
    "obs-fold": (b"Authorization: Bearer\r\n " + KEY, "Unexpected whitespace after header value"),
}


def test_the_private_hook_is_what_aiohttp_calls_for_a_parse_error():
    """RequestHandler.handle_error(request, status, exc, message) is replaced, and aiohttp's parse-error handler
    still reaches it through self.handle_error (the one private dependency, named here)."""
    redact.install()
    assert tuple(inspect.signature(redact._ORIGINAL).parameters) == redact.SIGNATURE
    assert RequestHandler.handle_error is redact._handle_error
    assert "self.handle_error(" in inspect.getsource(RequestHandler._make_error_handler)
    assert "_make_error_handler(" in inspect.getsource(RequestHandler.start)


async def _raw(port: int, path: str, line: bytes) -> tuple[bytes, bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: a\r\n".encode() + line + b"\r\nConnection: close\r\n\r\n")
    await writer.drain()
    data = await reader.read()
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return head, body


@pytest.mark.parametrize("server", ["proxy", "sandbox"])
async def test_a_malformed_authorization_line_is_answered_without_a_byte_of_it(aiohttp_server, server, caplog):
    """Each refused key line: 400, problem+json with v1's message too, the parser's fixed phrase, no key byte in
    the answer or in any log record."""
    if server == "proxy":
        app = create_proxy_app(ProxyConfig(keys=["k"], fingerprint_salt="s"))
    else:
        app = create_sandbox_app(SandboxConfig(keys=["k"]))
    live = await aiohttp_server(app)
    caplog.set_level(logging.DEBUG)
    for name, (line, phrase) in REFUSED.items():
        for path in ("/v1/pods", "/v2/pods"):
            head, body = await _raw(live.port, path, line)
            assert head.split(b"\r\n")[0].split(b" ", 1)[1] == b"400 Bad Request", name
            assert b"Content-Type: application/problem+json" in head, name
            detail = f"the request could not be read as HTTP ({phrase}); it was not processed"
            assert orjson.loads(body) == {"title": "Bad Request", "status": 400, "detail": detail,
                                          "message": detail}, name
            assert KEY[:12] not in head + body, name
    logged = "\n".join(r.getMessage() + str(r.exc_info or "") for r in caplog.records)
    assert "Error handling request" in logged
    assert KEY[:12].decode() not in logged


async def test_other_errors_keep_aiohttps_answer(aiohttp_server):
    """Only parse errors change: a handler's unexpected exception is still aiohttp's plain 500, with no detail."""
    redact.install()

    async def boom(request: web.Request) -> web.Response:
        raise RuntimeError("inner detail")

    app = web.Application()
    app.router.add_get("/boom", boom)
    live = await aiohttp_server(app)
    head, body = await _raw(live.port, "/boom", b"X-A: b")
    assert head.split(b"\r\n")[0].endswith(b"500 Internal Server Error")
    assert body == b"500 Internal Server Error\n\nServer got itself in trouble"
