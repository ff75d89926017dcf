"""`/v2/...` passed through untouched, both ways, streamed (a v2 caller of the proxy reaches v2 as it is)."""
from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import aiohttp
from aiohttp import web

from mappings.errors import ClientInputError, UpstreamError
from proxy.app_keys import CONFIG, PASSTHROUGH, UPSTREAM
from proxy.config import ProxyConfig
from proxy.upstream import USER_AGENT
from proxy.upstream_answer import hop_filter

log = logging.getLogger("v1bridge.proxy")


_STREAM_DROP_REQUEST = frozenset({"host"})


async def passthrough(request: web.Request) -> web.StreamResponse:
    """/v2/... as is, both ways, streamed chunk by chunk (logs, SSE); only hop-by-hop headers removed.

    Only a v2 route (proxy/confine.py) is forwarded: the raw path is checked before the upstream is contacted. A
    `Location` to another origin is not passed on (502); one to the upstream's own origin is made relative.
    A body of unknown length (chunked) is read first, up to --max-body, so an over-limit one is a 413 with nothing
    sent. Once the answer has started, a failure can no longer be told in a status: the client connection is
    aborted (never a second response inside the first)."""
    refusal = request.app[PASSTHROUGH].check(request.method, request.raw_path)
    if refusal is not None:
        raise ClientInputError(refusal.detail, status=refusal.status,
                               headers={"Allow": refusal.allow} if refusal.allow else None)
    config = request.app[CONFIG]
    length = request.content_length
    if length is not None and length > config.max_body:
        raise ClientInputError(f"the request body is larger than {config.max_body} bytes", status=413)
    headers = hop_filter(request.headers, _STREAM_DROP_REQUEST)
    if not headers.get("User-Agent"):  # a v2 caller's own User-Agent passes untouched; none at all gets ours
        headers["User-Agent"] = USER_AGENT
    data: Any = None
    if request.body_exists:
        data = request.content if length is not None else await read_bounded(request, config)
    upstream = request.app[UPSTREAM]
    started = time.monotonic()
    resp = await upstream.open_stream(request.method, request.raw_path, headers, data)
    try:
        location = resp.headers.get("Location")
        if location is not None:  # a redirect's target, as the client may see it (never another origin)
            location = upstream.stream_location(location)
            if location is None:
                raise UpstreamError(f"the v2 upstream answered {resp.status} with a Location on another origin; "
                                    "it is not passed on (the client would follow it with its credentials)")
        out = web.StreamResponse(status=resp.status, reason=resp.reason)
        for name, value in hop_filter(resp.headers).items():
            out.headers.add(name, location if location is not None and name.lower() == "location" else value)
        announced = resp.headers.get("Content-Length")
        if announced is None:
            out.headers.popall("Content-Length", None)
        await out.prepare(request)
        sent = 0
        try:
            # an answer of announced length is bounded as a whole (a slow drip is cut); a stream per read (idle)
            async with asyncio.timeout(max(0.0, upstream.total_timeout - (time.monotonic() - started))
                                       if announced is not None else None):
                async for chunk in resp.content.iter_any():
                    await out.write(chunk)
                    sent += len(chunk)
        except (aiohttp.ClientError, TimeoutError) as exc:
            reason = ("took longer than the timeout" if isinstance(exc, TimeoutError)
                      else f"broke off ({type(exc).__name__})")
            log.warning("v2 pass-through %s %s: the upstream answer %s after %d bytes; the client connection "
                        "was aborted", request.method, request.path, reason, sent)
            if request.transport is not None:
                request.transport.abort()
            raise UpstreamBodyBroken() from None
        await out.write_eof()
        return out
    finally:
        resp.release()


class UpstreamBodyBroken(ConnectionResetError):
    """The upstream failed after the answer had started: the client connection is aborted; recorded as a 502."""

    status = 502


async def read_bounded(request: web.Request, config: ProxyConfig) -> bytes:
    """A body of unknown length, whole, before anything goes upstream: 413 past max_body, 408 if too slow."""
    limit = config.max_body
    parts: list[bytes] = []
    seen = 0
    try:
        async with asyncio.timeout(config.client_timeout):
            async for chunk in request.content.iter_any():
                seen += len(chunk)
                if seen > limit:
                    raise ClientInputError(f"the request body is larger than {limit} bytes", status=413)
                parts.append(chunk)
    except TimeoutError:
        raise ClientInputError(f"the request body did not arrive within {config.client_timeout:g}s",
                               status=408) from None
    return b"".join(parts)


