"""The one pooled connection to the v2 upstream, with its fault policy.

Unreachable -> 502, too slow -> 504, both raised as UpstreamError so every caller
answers fast and in the client's shape. Only GETs are retried (1 + get_retries
attempts), and only when no response came back at all. Underneath, aiohttp
re-sends an idempotent request (GET, DELETE) once when a kept-alive connection
drops before any answer (RFC 9112 9.3.1); POST and PATCH are never re-sent
(tests/proxy/test_resilience.py).
"""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import aiohttp
import orjson
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from mappings.errors import UpstreamError
from v1bridge import __version__

# Every call upstream names the proxy: the edge in front of the v2 service refuses some library-default
# User-Agents with 403 (Cloudflare error 1010, rule Q37 of the reference), which is not an auth failure.
USER_AGENT = f"v1bridge/{__version__}"

# RFC 9110 §7.6.1 plus the old proxy ones; removed on every hop, both ways.
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
    }
)
# Recomputed by the proxy whenever it rewrites a body.
BODY_HEADERS = frozenset({"content-length", "content-encoding", "content-type"})


def hop_filter(headers: CIMultiDictProxy[str] | CIMultiDict[str], drop: frozenset[str] = frozenset()) -> CIMultiDict[str]:
    """Copy of `headers` without hop-by-hop ones (and those the Connection header names)."""
    skip = HOP_BY_HOP | drop
    if "Connection" in headers:
        skip = skip | {t.strip().lower() for v in headers.getall("Connection") for t in v.split(",") if t.strip()}
    return CIMultiDict([(name, value) for name, value in headers.items() if name.lower() not in skip])


_UNPARSED = object()


@dataclass
class UpstreamResponse:
    status: int
    headers: CIMultiDictProxy[str]
    body: bytes
    _parsed: Any = field(default=_UNPARSED, repr=False, compare=False)

    def json(self) -> Any:
        """The body as JSON (None when empty or not JSON), parsed once per response: the answer check and the
        translation read the same value (a 20-pod list is ~20 KB, about 65 µs to parse)."""
        parsed = self._parsed
        if parsed is _UNPARSED:
            parsed = None
            if self.body:
                try:
                    parsed = orjson.loads(self.body)
                except orjson.JSONDecodeError:
                    parsed = None
            self._parsed = parsed
        return parsed

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


class Upstream:
    """Translated calls (buffered JSON) and pass-through calls (streamed) over one session."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        base: str,
        *,
        connect_timeout: float,
        total_timeout: float,
        get_retries: int,
        stream_idle_timeout: float = 60.0,
        observe: Callable[[str, float], None] | None = None,
    ) -> None:
        self.session = session
        self.base = base.rstrip("/")
        # connect=None: the wait for a free pooled connection is bounded by `total`, the TCP handshake by
        # `sock_connect` (so a full pool is not reported as an upstream that refuses connections)
        self.timeout = aiohttp.ClientTimeout(total=total_timeout, connect=None, sock_connect=connect_timeout)
        # streams may last for hours; the response head is bounded by `total_timeout` (open_stream), each later
        # read by `stream_idle_timeout`, and a body of announced length by `total_timeout` as a whole (_passthrough)
        self.stream_timeout = aiohttp.ClientTimeout(total=None, connect=None, sock_connect=connect_timeout,
                                                    sock_read=stream_idle_timeout)
        self.stream_idle_timeout = stream_idle_timeout
        self.total_timeout = total_timeout
        self.connect_timeout = connect_timeout
        self.get_retries = get_retries
        self.observe = observe or (lambda label, seconds: None)

    async def call(
        self,
        method: str,
        path: str,
        *,
        authorization: str | None,
        query: list[tuple[str, str]] | dict[str, str] | None = None,
        body: Any = None,
        label: str = "",
        request_id: str | None = None,
    ) -> UpstreamResponse:
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        if authorization is not None:
            headers["Authorization"] = authorization
        if request_id:
            headers["x-request-id"] = request_id
        data = None
        if body is not None:
            data = orjson.dumps(body)
            headers["Content-Type"] = "application/json"
        attempts = 1 + (self.get_retries if method == "GET" else 0)
        url = self.base + path
        for attempt in range(attempts):
            started = time.perf_counter()
            try:
                async with self.session.request(
                    method, url, params=query or None, data=data, headers=headers, timeout=self.timeout
                ) as resp:
                    raw = await resp.read()
                    self.observe(label, time.perf_counter() - started)
                    return UpstreamResponse(resp.status, resp.headers, raw)
            except aiohttp.ConnectionTimeoutError:
                self.observe(label, time.perf_counter() - started)
                raise UpstreamError(f"the v2 upstream did not accept a connection within {self.connect_timeout:g}s", status=504) from None
            except (asyncio.TimeoutError, aiohttp.ServerTimeoutError):
                self.observe(label, time.perf_counter() - started)
                raise UpstreamError(f"the v2 upstream did not answer within {self.total_timeout:g}s", status=504) from None
            except aiohttp.ClientPayloadError:
                self.observe(label, time.perf_counter() - started)
                raise UpstreamError("the v2 upstream broke off its answer mid-body (ClientPayloadError)", status=502) from None
            except (aiohttp.ClientConnectorError, aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as exc:
                self.observe(label, time.perf_counter() - started)
                if attempt + 1 < attempts:
                    await asyncio.sleep(0.05 * (attempt + 1))
                    continue
                raise UpstreamError(f"the v2 upstream is unreachable ({type(exc).__name__})", status=502) from None
            except aiohttp.ClientError as exc:
                self.observe(label, time.perf_counter() - started)
                raise UpstreamError(f"the v2 upstream failed ({type(exc).__name__})", status=502) from None
        raise UpstreamError("the v2 upstream is unreachable", status=502)  # pragma: no cover - loop always returns or raises

    async def open_stream(self, method: str, path_qs: str, headers: CIMultiDict[str], data: Any) -> aiohttp.ClientResponse:
        """Start a pass-through request; the caller streams and releases the response."""
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self.total_timeout):
                resp = await self.session.request(
                    method,
                    URL(self.base + path_qs, encoded=True),
                    headers=headers,
                    data=data,
                    timeout=self.stream_timeout,
                    auto_decompress=False,
                    allow_redirects=False,
                    skip_auto_headers=("Accept-Encoding", "User-Agent", "Content-Type"),
                )
        except aiohttp.ConnectionTimeoutError:
            raise UpstreamError(f"the v2 upstream did not accept a connection within {self.connect_timeout:g}s", status=504) from None
        except (asyncio.TimeoutError, aiohttp.ServerTimeoutError):
            raise UpstreamError(f"the v2 upstream did not answer within {self.total_timeout:g}s", status=504) from None
        except aiohttp.ClientError as exc:
            raise UpstreamError(f"the v2 upstream is unreachable ({type(exc).__name__})", status=502) from None
        finally:
            self.observe("passthrough", time.perf_counter() - started)
        return resp
