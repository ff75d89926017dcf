"""The proxy's calls to the v2 upstream, with their fault policy.

Unreachable -> 502, too slow -> 504, both raised as UpstreamError so every caller
answers fast and in the client's shape. Only GETs are retried (1 + get_retries
attempts), and only when no response came back at all. Underneath, an idempotent
request (GET, DELETE) is re-sent when a kept-alive connection turns out closed
before any answer (RFC 9112 9.3.1); POST and PATCH are never re-sent
(tests/proxy/test_resilience.py). Translated calls go through `proxy/http1.py`'s
pool; the pass-through streams through aiohttp's session.
"""
from __future__ import annotations

import asyncio
import contextlib
import math
import os
import ssl
import tempfile
import time
from typing import Any, AsyncIterator, Callable

import aiohttp
import orjson
from multidict import CIMultiDict
from yarl import URL

from mappings.errors import ClientInputError, UpstreamError
from proxy import http1
from proxy.upstream_answer import Spool, UpstreamResponse, no_room, remove_file
from v1bridge import __version__

# Every call upstream names the proxy: the edge in front of the v2 service refuses some library-default
# User-Agents with 403 (Cloudflare error 1010, rule Q37 of the reference), which is not an auth failure.
USER_AGENT = f"v1bridge/{__version__}"

async def _read_spooling(pieces: AsyncIterator[bytes], over: int) -> tuple[bytes, Spool | None]:
    """The body in memory while under `over` bytes; past that, in a temporary file. The file is written in
    pieces of about `over` bytes by the default executor's threads, never by the event loop: a disk that stalls
    (the kernel throttles writers when dirty pages pile up) must not stall every other request."""
    loop = asyncio.get_running_loop()
    buffer = bytearray()
    out = None
    path = ""
    size = 0

    def open_spool() -> tuple[Any, str]:
        fd, name = tempfile.mkstemp(prefix="v1bridge-answer-", suffix=".json")
        return os.fdopen(fd, "wb"), name

    try:
        async for chunk in pieces:
            size += len(chunk)
            buffer += chunk
            if len(buffer) < over:
                continue
            piece, buffer = bytes(buffer), bytearray()
            try:
                if out is None:
                    out, path = await loop.run_in_executor(None, open_spool)
                await loop.run_in_executor(None, out.write, piece)
            except OSError as exc:
                raise no_room(exc) from None
        if out is not None:
            try:
                if buffer:
                    await loop.run_in_executor(None, out.write, bytes(buffer))
                await loop.run_in_executor(None, out.close)
            except OSError as exc:
                raise no_room(exc) from None
    except BaseException:
        if out is not None:
            with contextlib.suppress(OSError):
                out.close()
            remove_file(path)
        raise
    if out is None:
        return bytes(buffer), None
    return b"", Spool(path, size)


def redirected(method: str, path: str, status: int, location: str | None) -> UpstreamError:
    """A v2 answer that redirects: never followed (the caller's Authorization would go wherever it points) nor
    handed to a v1 client (whose library would follow it); the upstream's failure, named."""
    where = f" to {location[:300]!r}" if location else " without a Location"
    return UpstreamError(f"the v2 upstream answered {method} {path} with a redirect ({status}){where}; the proxy "
                         "follows no redirect and passes none on", status=502, upstream_status=status)


class Deadlines:
    """The total time of upstream calls, bounded with one loop timer per deadline instead of one per call.

    aiohttp's `ClientTimeout(total=...)` makes a timeout handle, a loop timer (pushed on the loop's heap, then
    cancelled) and a timer context per call. Here a call joins the group of calls ending at the same moment
    (rounded up to the whole second, as aiohttp rounds totals of 5 s and more; exact below 5 s): one timer per
    group, so at thousands of calls per second a 30 s total keeps ~30 timers, not thousands. When a group's timer
    fires, each call still in it is cancelled (as asyncio.timeout does) and `expired` turns that cancellation
    into a timeout. A call leaves its group before its task can await anything else, so a cancellation from
    here always lands inside the call it bounds.
    """

    __slots__ = ("_groups", "_expired")

    def __init__(self) -> None:
        self._groups: dict[float, set[asyncio.Task[Any]]] = {}
        self._expired: dict[asyncio.Task[Any], None] = {}

    def enter(self, seconds: float, round_up: bool = True) -> tuple[asyncio.Task[Any], set[asyncio.Task[Any]], int]:
        """Bound the current task's call to `seconds`: (task, its group, the task's cancellations before).
        `round_up` False: a hard end (a request's deadline), grouped by rounding down instead."""
        loop = asyncio.get_running_loop()
        task = asyncio.current_task(loop)
        assert task is not None
        when = loop.time() + seconds
        if seconds >= 5:
            when = math.ceil(when) if round_up else math.floor(when)
        group = self._groups.get(when)
        if group is None:
            group = self._groups[when] = set()
            loop.call_at(when, self._expire, when)
        group.add(task)
        return task, group, task.cancelling()

    def _expire(self, when: float) -> None:
        for task in self._groups.pop(when, ()):
            self._expired[task] = None
            task.cancel()

    def expired(self, task: asyncio.Task[Any], cancelling: int) -> bool:
        """Was this CancelledError the deadline's (and nothing else cancelled the task meanwhile)?"""
        if task not in self._expired:
            return False
        del self._expired[task]
        return task.uncancel() <= cancelling


class Upstream:
    """Translated calls (buffered JSON, through `http1.Pool`) and pass-through calls (streamed, aiohttp)."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        base: str,
        *,
        connect_timeout: float,
        total_timeout: float,
        get_retries: int,
        connections: int = 100,
        stream_idle_timeout: float = 60.0,
        observe: Callable[[str, float], None] | None = None,
        ssl_context: ssl.SSLContext | None = None,
        max_answer: int = http1.MAX_ANSWER,
    ) -> None:
        self.session = session
        self.base = base.rstrip("/")
        # The whole call (the wait for a free pooled connection, sending, the answer and its body) is bounded by
        # `total_timeout` through `Deadlines` (one loop timer per second of deadlines, not one per call); the TCP
        # handshake by `connect_timeout` (so a full pool is not reported as an upstream that refuses connections)
        self.pool = http1.Pool(self.base, limit=connections, connect_timeout=connect_timeout,
                               ssl_context=ssl_context, max_answer=max_answer)
        # the pass-through goes the same way: through the same egress proxy (CONNECT for https), same CA bundle
        egress = self.pool.egress
        self.stream_proxy = egress.url if egress is not None else None
        self.stream_proxy_headers = ({"Proxy-Authorization": egress.authorization}
                                     if egress is not None and egress.authorization else None)
        self.deadlines = Deadlines()
        self._headers = {"Accept": "application/json", "User-Agent": USER_AGENT}  # copied per call
        # streams may last for hours; the response head is bounded by `total_timeout` (open_stream), each later
        # read by `stream_idle_timeout`, and a body of announced length by `total_timeout` as a whole (proxy/passthrough.py)
        self.stream_timeout = aiohttp.ClientTimeout(total=None, connect=None, sock_connect=connect_timeout,
                                                    sock_read=stream_idle_timeout)
        self.stream_idle_timeout = stream_idle_timeout
        self.total_timeout = total_timeout
        self.connect_timeout = connect_timeout
        self.get_retries = get_retries
        self.observe = observe or (lambda label, seconds: None)

    async def close(self) -> None:
        await self.pool.close()

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
        spool_over: int = 0,
        ends: float | None = None,
    ) -> UpstreamResponse:
        """One buffered call. `spool_over`: a 2xx body of that many bytes or more goes to a temporary file
        (`UpstreamResponse.spool`) instead of memory. `ends`: the caller's deadline (time.monotonic()): the call
        is not started past it and is cut at it (504), whichever of it and `total_timeout` comes first. A redirect
        is never followed nor handed on: the caller's credentials stay with the configured upstream (502)."""
        headers = self._headers.copy()
        if authorization is not None:
            headers["Authorization"] = authorization
        if request_id:
            headers["x-request-id"] = request_id
        data = None
        if body is not None:
            data = orjson.dumps(body)
            headers["Content-Type"] = "application/json"
        pool = self.pool
        try:
            request = pool.request(method, pool.target(path, query), headers, data)
        except ValueError as exc:  # a header value with a line break, a path yarl refuses
            raise ClientInputError(f"the request cannot be sent to the v2 upstream ({exc})") from None
        attempts = 1 + (self.get_retries if method == "GET" else 0)
        deadlines = self.deadlines
        for attempt in range(attempts):
            seconds = self.total_timeout
            by_deadline = False
            if ends is not None:
                left = ends - time.monotonic()
                if left <= 0:
                    raise UpstreamError(f"the request reached its deadline; {method} {path} was not sent", status=504)
                if left < seconds:
                    seconds, by_deadline = left, True
            started = time.perf_counter()
            task, group, cancelling = deadlines.enter(seconds, not by_deadline)
            try:
                try:
                    answer, spooled = await pool.exchange(method, request, spool_over=spool_over, spool=_read_spooling)
                except asyncio.CancelledError:
                    if deadlines.expired(task, cancelling):
                        raise asyncio.TimeoutError from None
                    raise
                finally:
                    group.discard(task)
            except http1.ConnectTimedOut:
                self.observe(label, time.perf_counter() - started)
                raise UpstreamError(f"the v2 upstream did not accept a connection within {self.connect_timeout:g}s", status=504) from None
            except asyncio.TimeoutError:
                self.observe(label, time.perf_counter() - started)
                if by_deadline:
                    raise UpstreamError(f"the request reached its deadline while the v2 upstream answered {method} "
                                        f"{path}", status=504) from None
                raise UpstreamError(f"the v2 upstream did not answer within {self.total_timeout:g}s", status=504) from None
            except http1.BrokenAnswer as exc:
                self.observe(label, time.perf_counter() - started)
                raise UpstreamError(f"the v2 upstream broke off its answer mid-body ({exc})", status=502) from None
            except (http1.ConnectFailed, http1.ClosedBeforeAnswer) as exc:
                self.observe(label, time.perf_counter() - started)
                if attempt + 1 < attempts:
                    await asyncio.sleep(0.05 * (attempt + 1))
                    continue
                raise UpstreamError(f"the v2 upstream is unreachable ({exc})", status=502) from None
            except (http1.MalformedAnswer, http1.AnswerTooLarge) as exc:
                self.observe(label, time.perf_counter() - started)
                raise UpstreamError(str(exc), status=502) from None
            self.observe(label, time.perf_counter() - started)
            status = answer.status
            if 300 <= status < 400:
                raise redirected(method, path, status, answer.headers.get("Location"))
            if spooled is not None:
                raw, spool = spooled
                return UpstreamResponse(status, answer.headers, raw, spool=spool)
            return UpstreamResponse(status, answer.headers, answer.body)
        raise UpstreamError("the v2 upstream is unreachable", status=502)  # pragma: no cover - loop always returns or raises

    def stream_location(self, location: str) -> str | None:
        """A /v2 redirect's Location as the client may see it: a relative one as sent; one to the upstream's own
        origin made relative to it (the client stays on the proxy); None for another origin, which is not passed
        on (the client's library would follow it with the client's credentials)."""
        try:
            url = URL(location)
        except ValueError:
            return None
        if not url.is_absolute():
            return location
        base = URL(self.base)
        scheme = url.scheme or base.scheme
        if (scheme, url.raw_host, url.port if url.scheme else url.port or base.port) != \
                (base.scheme, base.raw_host, base.port):
            return None
        prefix = base.raw_path.rstrip("/")
        path = url.raw_path
        if prefix and not (path == prefix or path.startswith(prefix + "/")):
            return None
        relative = path[len(prefix):] or "/"
        return relative + (f"?{url.raw_query_string}" if url.raw_query_string else "")

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
                    proxy=self.stream_proxy,
                    proxy_headers=self.stream_proxy_headers,
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
