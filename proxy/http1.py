"""The translated calls' HTTP/1.1 client: kept-alive pooled connections, each request written as one prepared
byte string, each answer parsed by llhttp (httptools, the parser uvicorn uses).

Why not aiohttp's ClientSession here: per call it builds a ClientRequest, a yarl URL, header multidicts, a
ClientResponse, a StreamReader, tracing signals and timer contexts: several times the CPU this client spends per
call (`bench/upstream_client.py --pin` measures both; figures in docs/bench.md). For a translating proxy that was
the largest piece of its own cost. A translated call needs none of what that machinery buys (redirects,
cookies, proxies, streaming to the caller): one buffered request, one buffered (or spooled) answer. The
pass-through (`/v2/...`, streamed both ways) stays on aiohttp.

What the wire sees is what aiohttp sent: the same Host, Accept-Encoding (gzip, deflate; answers decoded here),
Content-Length, the path and query quoted by yarl exactly as aiohttp quotes them (a path of plain characters is
sent as it is, which is what yarl would send). A kept-alive connection that closes before any byte of the answer
is re-sent once on a new connection for idempotent methods (RFC 9112 §9.3.1, as aiohttp does); POST and PATCH
are never re-sent.

Egress: the standard proxy variables (`HTTPS_PROXY` / `HTTP_PROXY`, `NO_PROXY`, read once per pool, as curl and
urllib read them) are honoured: an https upstream is reached through a `CONNECT` tunnel, an http one by sending the
absolute-form request target to the proxy. TLS is always verified, against the CA bundle given (`--upstream-ca`,
else `SSL_CERT_FILE` / `SSL_CERT_DIR`, else the system's) by `tls_context`.

Answers are bounded after decoding (`max_answer`): compressed bytes are inflated in pieces of at most
`DECODE_PIECE`, so a small gzip answer that inflates to gigabytes is refused at the bound, never held.
"""
from __future__ import annotations

import asyncio
import collections
import ipaddress
import os
import re
import base64
import socket
import ssl
import urllib.request
import zlib
from typing import Any, AsyncIterator, Iterator, Mapping

import aiohappyeyeballs
import httptools
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from mappings.errors import V1bridgeError

# RFC 9110 §9.2.2; a dropped kept-alive connection may re-send these
IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"})
ACCEPT_ENCODING = "gzip, deflate"
# a path of these characters, with no segment starting with a dot, is already what yarl would put on the wire
_PLAIN_PATH = re.compile(r"(?:/(?:[A-Za-z0-9_~\-][A-Za-z0-9_.~\-]*)?)*")
# query names and values of these characters are sent as they are (RFC 3986 unreserved), by yarl as by this
_UNRESERVED = re.compile(r"[A-Za-z0-9_.~\-]*")
# bounds on what the upstream may send before its body
MAX_HEAD = 64 * 1024
# seconds a resolved upstream address is used for new connections
DNS_TTL = 300.0
# a streamed (spooled) body stops reading the socket past this much unread data
STREAM_HIGH_WATER = 1024 * 1024
# compressed input is inflated into pieces of at most this many bytes (a gzip bomb never inflates in one call)
DECODE_PIECE = 256 * 1024
# an answer (decoded) larger than this is refused unless the pool is told otherwise
MAX_ANSWER = 256 * 1024 * 1024


class HTTPClientError(V1bridgeError):
    """A call that got no usable answer; `Upstream.call` words it for the caller."""


class ConnectFailed(HTTPClientError):
    """No connection could be made (refused, unreachable, name not found)."""


class ConnectTimedOut(HTTPClientError):
    """The upstream did not accept a connection within the connect timeout."""


class ClosedBeforeAnswer(HTTPClientError):
    """The connection closed after the request was sent and before any byte of an answer."""


class BrokenAnswer(HTTPClientError):
    """The answer started and did not finish: the connection closed or reset mid-answer."""


class MalformedAnswer(HTTPClientError):
    """Bytes that are not an HTTP/1.1 answer, or one the proxy did not ask for (an encoding it did not offer)."""


class AnswerTooLarge(HTTPClientError):
    """The answer's body, decoded, is larger than the pool's `max_answer`."""


def tls_context(ca_file: str | None = None, env: Mapping[str, str] | None = None) -> ssl.SSLContext:
    """The verifying context of every upstream call: `ca_file` (`--upstream-ca`), else `SSL_CERT_FILE` /
    `SSL_CERT_DIR`, else the system's authorities. Verification is never switched off."""
    env = os.environ if env is None else env
    ca_file = ca_file or env.get("SSL_CERT_FILE") or None
    ca_dir = None if ca_file else env.get("SSL_CERT_DIR") or None
    return ssl.create_default_context(cafile=ca_file, capath=ca_dir)


class EgressProxy:
    """The forward proxy an upstream is reached through (from HTTPS_PROXY / HTTP_PROXY, minus NO_PROXY)."""

    __slots__ = ("url", "host", "port", "authorization")

    def __init__(self, url: str) -> None:
        parsed = URL(url if "://" in url else "http://" + url)
        if parsed.scheme != "http" or not parsed.raw_host:
            raise ValueError(f"the egress proxy must be an http:// URL, not {url!r}")
        self.url = str(parsed.with_user(None).with_path(""))
        self.host = parsed.raw_host
        self.port = parsed.port or 80
        self.authorization: str | None = None
        if parsed.user is not None:
            pair = f"{parsed.user}:{parsed.password or ''}".encode()
            self.authorization = "Basic " + base64.b64encode(pair).decode("ascii")

    def __repr__(self) -> str:  # never the credentials
        return f"EgressProxy({self.url})"


def egress_proxy(base: str, env: Mapping[str, str] | None = None) -> EgressProxy | None:
    """The forward proxy for `base` per the standard variables (lower case first, as curl reads them), or None
    (none set, the host listed in NO_PROXY, or a loopback host: the embedded sandbox, a local test upstream)."""
    env = os.environ if env is None else env
    url = URL(base)
    if _loopback(url.raw_host or ""):  # no egress proxy can reach this machine's loopback (Go's rule too)
        return None
    names = ("https_proxy", "HTTPS_PROXY") if url.scheme == "https" else ("http_proxy", "HTTP_PROXY")
    proxy = next((env[n] for n in names if env.get(n)), None)
    if proxy is None:
        return None
    no_proxy = env.get("no_proxy") or env.get("NO_PROXY") or ""
    if no_proxy and _bypassed(url.raw_host or "", url.port, no_proxy):
        return None
    return EgressProxy(proxy)


def _loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _bypassed(host: str, port: int | None, no_proxy: str) -> bool:
    """NO_PROXY as urllib reads it (`*`, host names and domain suffixes, optional :port)."""
    return bool(urllib.request.proxy_bypass_environment(f"{host}:{port}" if port else host, {"no": no_proxy}))


_NO_HEADERS: CIMultiDictProxy[str] = CIMultiDictProxy(CIMultiDict())


class Answer:
    """A whole answer: status, headers (as the upstream wrote them), the body decoded from its Content-Encoding."""

    __slots__ = ("status", "headers", "body")

    def __init__(self, status: int, headers: CIMultiDictProxy[str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body


def _decoder(encoding: str | None) -> Any:
    """A zlib decompressor for the answer's Content-Encoding (None: identity)."""
    if not encoding or encoding.strip().lower() == "identity":
        return None
    name = encoding.strip().lower()
    if name in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if name == "deflate":
        return _Deflate()
    raise MalformedAnswer(f"the v2 upstream answered with Content-Encoding {encoding!r}, which the proxy did not offer")


class _Deflate:
    """`deflate` as servers send it: zlib-wrapped (RFC 9110) or raw (older servers), told by the first byte."""

    __slots__ = ("_z",)

    def __init__(self) -> None:
        self._z: Any = None

    def decompress(self, data: bytes, max_length: int = 0) -> bytes:
        if self._z is None:
            if not data:
                return b""
            self._z = zlib.decompressobj(zlib.MAX_WBITS if data[0] & 0x0F == 8 else -zlib.MAX_WBITS)
        return self._z.decompress(data, max_length)

    @property
    def unconsumed_tail(self) -> bytes:
        return self._z.unconsumed_tail if self._z is not None else b""


def _inflate(decoder: Any, data: bytes) -> Iterator[bytes]:
    """`data` decoded, in pieces of at most DECODE_PIECE bytes (zlib's max_length: input that would inflate past
    it waits in unconsumed_tail)."""
    try:
        while True:
            piece = decoder.decompress(data, DECODE_PIECE)
            if piece:
                yield piece
            data = decoder.unconsumed_tail
            if not data and len(piece) < DECODE_PIECE:
                return
    except zlib.error as exc:
        raise MalformedAnswer(f"the v2 upstream's compressed answer does not decompress ({exc})") from None


class Connection(asyncio.Protocol):
    """One kept-alive connection and the exchange in flight on it."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.waiter: asyncio.Future[None] | None = None
        self.failure: HTTPClientError | None = None
        self.busy = False  # an exchange is in flight
        self.started = False  # a byte of the current answer arrived
        self.headed = False  # its head is complete
        self.complete = False  # the whole answer arrived
        self.head_only = False  # an answer to HEAD: no body follows the head
        self.interim = False  # a 1xx answer before the real one
        self.status = 0
        self.raw_headers: list[tuple[bytes, bytes]] = []
        self.headers: CIMultiDictProxy[str] = _NO_HEADERS
        self.head_size = 0
        self.chunks: list[bytes] = []
        self.unread = 0
        self.streaming = False  # the body is read piece by piece (spooled): bound what waits unread
        self.paused = False
        self.closed = False
        self.reusable = True
        self.uses = 0
        self.idle_since = 0.0
        self.counted_out = False  # the pool no longer counts it as open

    # ------------------------------------------------------------ transport events

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass

    def data_received(self, data: bytes) -> None:
        if not self.busy or self.complete:
            # bytes nobody asked for (a pipelined or stray answer): the connection can no longer be trusted
            self.reusable = False
            self.transport.close()  # type: ignore[union-attr]
            return
        self.started = True
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._fail(MalformedAnswer("the v2 upstream switched protocols"))
        except httptools.HttpParserError as exc:
            self._fail(MalformedAnswer(f"the v2 upstream sent an answer that is not HTTP/1.1 ({exc})"))
        except HTTPClientError as exc:
            self._fail(exc)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.reusable = False
        if self.busy and not self.complete:
            if self.headed and not self.head_only and not self._length_known() and exc is None:
                # an answer delimited by the end of the connection (RFC 9112 §6.3 item 8); a reset is no end
                self.on_message_complete()
            elif not self.started:
                self._fail(ClosedBeforeAnswer("it closed the connection without answering"))
            else:
                self._fail(BrokenAnswer("connection reset" if isinstance(exc, ConnectionResetError) else "connection closed"))
        self.pool.lost(self)

    def pause_writing(self) -> None:  # the request is one write; the transport buffers it
        pass

    def resume_writing(self) -> None:
        pass

    # ------------------------------------------------------------ parser events (httptools)

    def on_header(self, name: bytes, value: bytes) -> None:
        self.head_size += len(name) + len(value)
        if self.head_size > MAX_HEAD:
            raise MalformedAnswer(f"the v2 upstream's answer head is larger than {MAX_HEAD} bytes")
        self.raw_headers.append((name, value))

    def on_headers_complete(self) -> None:
        status = self.parser.get_status_code()
        if 100 <= status < 200:
            self.interim = True
            self.raw_headers = []
            return
        self.status = status
        # decoded as aiohttp's parser decodes them (UTF-8, undecodable bytes kept as surrogates)
        self.headers = CIMultiDictProxy(CIMultiDict([(n.decode("utf-8", "surrogateescape"),
                                                      v.decode("utf-8", "surrogateescape"))
                                                     for n, v in self.raw_headers]))
        self.headed = True
        if self.head_only:
            self.reusable = False  # llhttp would wait for a body a HEAD answer never has
            self.on_message_complete()
        else:
            self._wake()

    def on_body(self, body: bytes) -> None:
        self.chunks.append(body)
        self.unread += len(body)
        if self.streaming:
            if self.unread >= STREAM_HIGH_WATER and not self.paused:
                self.paused = True
                self.transport.pause_reading()  # type: ignore[union-attr]
        elif self.unread > self.pool.max_answer:  # a buffered answer is bounded before it is decoded, too
            raise self._too_large()
        self._wake()

    def on_message_complete(self) -> None:
        if self.interim:
            self.interim = False
            self.head_size = 0
            return
        if self.complete:
            return
        self.complete = True
        if self.reusable and not self.parser.should_keep_alive():
            self.reusable = False
        self._wake()

    # ------------------------------------------------------------ the exchange

    def _length_known(self) -> bool:
        headers = self.headers
        return "Content-Length" in headers or "chunked" in headers.get("Transfer-Encoding", "").lower()

    def _wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _fail(self, failure: HTTPClientError) -> None:
        self.reusable = False
        if self.failure is None:
            self.failure = failure
        if self.transport is not None:
            self.transport.close()
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def begin(self, request: bytes, head_only: bool) -> None:
        self.busy = True
        self.streaming = False
        self.started = self.headed = self.complete = self.interim = False
        self.head_only = head_only
        self.status = 0
        self.raw_headers = []
        self.headers = _NO_HEADERS
        self.head_size = 0
        self.chunks = []
        self.unread = 0
        self.failure = None
        self.uses += 1
        self.transport.write(request)  # type: ignore[union-attr]

    async def wait(self) -> None:
        """Until the parser has something new (head, body, end) or the exchange failed."""
        if self.failure is not None:
            raise self.failure
        self.waiter = self.pool.loop.create_future()
        try:
            await self.waiter
        finally:
            self.waiter = None
        if self.failure is not None:
            raise self.failure

    async def head(self) -> None:
        while not self.headed:
            await self.wait()

    def content_length(self) -> int | None:
        value = self.headers.get("Content-Length")
        return int(value) if value is not None and value.isdigit() else None

    def _too_large(self) -> AnswerTooLarge:
        return AnswerTooLarge(f"the v2 upstream's answer is larger than {self.pool.max_answer} bytes "
                              "(decoded; the proxy's --max-answer)")

    async def body(self) -> bytes:
        while not self.complete:
            await self.wait()
        chunks = self.chunks
        data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        self.chunks = []
        self.unread = 0
        encoding = self.headers.get("Content-Encoding")
        if encoding is not None:
            decoder = _decoder(encoding)
            if decoder is not None:
                limit = self.pool.max_answer
                pieces = []
                size = 0
                for piece in _inflate(decoder, data):
                    size += len(piece)
                    if size > limit:
                        raise self._too_large()
                    pieces.append(piece)
                data = b"".join(pieces)
        return data

    async def stream(self) -> AsyncIterator[bytes]:
        """The body in pieces as they arrive (decoded, each at most DECODE_PIECE bytes when compressed), reading
        paused while STREAM_HIGH_WATER is unread; past `max_answer` decoded bytes, AnswerTooLarge."""
        decoder = _decoder(self.headers.get("Content-Encoding"))
        limit = self.pool.max_answer
        size = 0
        while True:
            if self.chunks:
                data = b"".join(self.chunks)
                self.chunks = []
                self.unread = 0
                if self.paused and not self.closed:
                    self.paused = False
                    self.transport.resume_reading()  # type: ignore[union-attr]
                if decoder is None:
                    size += len(data)
                    if size > limit:
                        raise self._too_large()
                    yield data
                    continue
                for piece in _inflate(decoder, data):
                    size += len(piece)
                    if size > limit:
                        raise self._too_large()
                    yield piece
                continue
            if self.complete:
                return
            await self.wait()

    def finish(self) -> None:
        """The exchange is over: keep the connection for the next call, or close it."""
        self.busy = False
        self.waiter = None
        if self.complete and self.reusable and not self.closed and not self.chunks:
            self.pool.release(self)
        else:
            self.pool.discard(self)


class Pool:
    """Kept-alive connections to one upstream, at most `limit` open; callers past that wait their turn (FIFO)."""

    def __init__(self, base: str, *, limit: int, connect_timeout: float, keepalive: float = 15.0,
                 ssl_context: ssl.SSLContext | None = None, max_answer: int = MAX_ANSWER,
                 egress: EgressProxy | None | str = "environment") -> None:
        url = URL(base)
        if url.scheme not in ("http", "https") or not url.raw_host:
            raise ValueError(f"the upstream must be an http(s) URL, not {base!r}")
        self.base = base.rstrip("/")
        self.host = url.raw_host
        self.port = url.port or (443 if url.scheme == "https" else 80)
        self.ssl: ssl.SSLContext | None = None
        if url.scheme == "https":
            self.ssl = ssl_context or tls_context()
        host = f"[{self.host}]" if ":" in self.host else self.host
        self.authority = host if url.is_default_port() else f"{host}:{url.port}"
        self.max_answer = max_answer
        # through a forward proxy: a CONNECT tunnel to host:port (https), or absolute-form targets (http)
        self.egress = egress_proxy(base) if egress == "environment" else egress
        via = self.egress
        self.tunnel = f"{host}:{self.port}" if via is not None and self.ssl is not None else None
        self.absolute = f"http://{self.authority}" if via is not None and self.ssl is None else ""
        self.proxy_head = (f"Proxy-Authorization: {via.authorization}\r\n"
                           if via is not None and via.authorization and self.ssl is None else "")
        self.dial = (via.host, via.port) if via is not None else (self.host, self.port)
        self.prefix = url.raw_path.rstrip("/")
        self.limit = max(1, limit)
        self.connect_timeout = connect_timeout
        self.keepalive = keepalive
        self.idle: list[Connection] = []
        self.open = 0  # connections open or being opened
        self.waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._address_infos: list[Any] = []
        self._addresses_until = float("-inf")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing = False

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        return loop

    # ------------------------------------------------------------ the request line and head

    def target(self, path: str, query: Any) -> str:
        """The request target as aiohttp would send it for `base + path` with `params=query`."""
        full = self.prefix + path
        if _PLAIN_PATH.fullmatch(full):
            if not query:
                return full
            parts = []
            for name, value in query.items() if isinstance(query, dict) else query:
                if type(value) is not str or not _UNRESERVED.fullmatch(name) or not _UNRESERVED.fullmatch(value):
                    break
                parts.append(f"{name}={value}")
            else:  # names and values yarl leaves as they are (a limit, a cursor, an id)
                return f"{full}?{'&'.join(parts)}"
        url = URL(self.base + path)
        if query:
            url = url.extend_query(query)
        return url.raw_path_qs

    def request(self, method: str, target: str, headers: dict[str, str], body: bytes | None) -> bytes:
        lines = [f"{method} {self.absolute}{target} HTTP/1.1\r\nHost: {self.authority}\r\n"
                 f"Accept-Encoding: {ACCEPT_ENCODING}\r\n{self.proxy_head}"]
        for name, value in headers.items():
            if "\n" in value or "\r" in value:
                raise ValueError(f"header {name} holds a line break")
            lines.append(f"{name}: {value}\r\n")
        if body is not None:
            lines.append(f"Content-Length: {len(body)}\r\n\r\n")
            head = "".join(lines).encode("utf-8", "surrogateescape")
            return head + body
        if method in ("POST", "PUT", "PATCH"):
            lines.append("Content-Length: 0\r\n")
        lines.append("\r\n")
        return "".join(lines).encode("utf-8", "surrogateescape")

    # ------------------------------------------------------------ connections

    async def acquire(self) -> Connection:
        loop = self.loop
        while True:
            while self.idle:
                conn = self.idle.pop()
                if conn.closed:
                    continue
                if loop.time() - conn.idle_since > self.keepalive:
                    self.discard(conn)
                    continue
                return conn
            if self.open < self.limit:
                self.open += 1
                try:
                    return await self._connect()
                except BaseException:
                    self.open -= 1
                    self._wake_one()
                    raise
            waiter = loop.create_future()
            self.waiters.append(waiter)
            try:
                await waiter
            except BaseException:
                if waiter in self.waiters:
                    self.waiters.remove(waiter)
                elif waiter.done() and not waiter.cancelled():
                    self._wake_one()  # pass on the turn this caller was given
                raise

    async def _addresses(self) -> list[Any]:
        """The upstream's addresses, resolved at most every DNS_TTL seconds (as aiohttp's connector cached them)."""
        loop = self.loop
        if self._addresses_until < loop.time():
            self._address_infos = await loop.getaddrinfo(*self.dial, type=socket.SOCK_STREAM)
            self._addresses_until = loop.time() + DNS_TTL
        return self._address_infos

    async def _connect(self) -> Connection:
        loop = self.loop
        try:
            async with asyncio.timeout(self.connect_timeout):
                # Happy Eyeballs (RFC 8305, aiohttp's own library): a dual-stack name whose IPv6 route is broken
                # connects over IPv4 after 0.25 s instead of waiting out the connect timeout on the first address
                sock = await aiohappyeyeballs.start_connection(await self._addresses(), happy_eyeballs_delay=0.25,
                                                               interleave=1)
                if self.tunnel is not None:
                    try:
                        await self._connect_tunnel(sock)
                    except BaseException:
                        sock.close()
                        raise
                _, conn = await loop.create_connection(lambda: Connection(self), sock=sock, ssl=self.ssl,
                                                       server_hostname=self.host if self.ssl else None)
        except TimeoutError:
            raise ConnectTimedOut(f"no connection within {self.connect_timeout:g}s") from None
        except ssl.SSLError as exc:
            raise ConnectFailed(f"TLS: {exc.reason or exc}") from None
        except socket.gaierror as exc:
            raise ConnectFailed(f"{self.dial[0]}: {exc.strerror}") from None
        except OSError as exc:  # asyncio words it "Connect call failed (address)"; the errno says why
            raise ConnectFailed(os.strerror(exc.errno) if exc.errno else str(exc)) from None
        return conn  # type: ignore[return-value]

    async def _connect_tunnel(self, sock: socket.socket) -> None:
        """CONNECT host:port through the egress proxy on `sock`; on a 2xx the socket is the tunnel (TLS follows)."""
        loop = self.loop
        via = self.egress
        assert via is not None and self.tunnel is not None
        auth = f"Proxy-Authorization: {via.authorization}\r\n" if via.authorization else ""
        await loop.sock_sendall(sock, f"CONNECT {self.tunnel} HTTP/1.1\r\nHost: {self.tunnel}\r\n{auth}\r\n"
                                .encode("ascii"))
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = await loop.sock_recv(sock, 4096)
            if not chunk:
                raise ConnectFailed(f"the egress proxy {via.url} closed the connection during CONNECT {self.tunnel}")
            head += chunk
            if len(head) > MAX_HEAD:
                raise ConnectFailed(f"the egress proxy {via.url} sent an oversized answer to CONNECT")
        line, _, _ = head.partition(b"\r\n")
        parts = line.split(None, 2)
        status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
        if not 200 <= status < 300:
            said = line.decode("latin-1")[:200]
            raise ConnectFailed(f"the egress proxy {via.url} refused CONNECT {self.tunnel} ({said})")
        if not head.endswith(b"\r\n\r\n"):  # the upstream speaks only after the TLS client hello
            raise ConnectFailed(f"the egress proxy {via.url} sent bytes after its answer to CONNECT")

    def _wake_one(self) -> None:
        while self.waiters:
            waiter = self.waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    def release(self, conn: Connection) -> None:
        if self._closing:
            self.discard(conn)
            return
        conn.idle_since = self.loop.time()
        self.idle.append(conn)
        self._wake_one()

    def discard(self, conn: Connection) -> None:
        conn.reusable = False
        if conn.transport is not None and not conn.closed:
            conn.transport.close()  # connection_lost follows
        self.lost(conn)

    def lost(self, conn: Connection) -> None:
        """Count a closed (or closing) connection out, once, and give its turn to a waiting caller."""
        if conn.counted_out:
            return
        conn.counted_out = True
        if not conn.busy and conn in self.idle:
            self.idle.remove(conn)
        self.open -= 1
        self._wake_one()

    async def close(self) -> None:
        self._closing = True
        idle, self.idle = self.idle, []
        for conn in idle:
            self.discard(conn)
        for waiter in self.waiters:
            if not waiter.done():
                waiter.cancel()
        self.waiters.clear()

    # ------------------------------------------------------------ one exchange

    async def exchange(self, method: str, request: bytes, *, spool_over: int = 0,
                       spool: Any = None) -> tuple[Answer, Any]:
        """Send `request` and read its answer: (the answer, None), or for a 2xx of `spool_over` bytes or more
        (or of unannounced length) (the answer with an empty body, `await spool(pieces, spool_over)`)."""
        resend = method in IDEMPOTENT
        while True:  # re-sent only on a kept-alive connection closed before any answer (RFC 9112 §9.3.1)
            conn = await self.acquire()
            reused = conn.uses > 0
            try:
                conn.begin(request, head_only=method == "HEAD")
                await conn.head()
                status = conn.status
                # spooled: a 2xx of spool_over bytes or more, of unannounced length, or compressed (its decoded
                # size is known only once decoded: it is decoded into the spool piece by piece)
                if spool_over and 200 <= status < 300 and ((conn.content_length() or spool_over) >= spool_over
                                                           or "Content-Encoding" in conn.headers):
                    conn.streaming = True
                    kept = await spool(conn.stream(), spool_over)
                    return Answer(status, conn.headers, b""), kept
                body = await conn.body()
                return Answer(status, conn.headers, body), None
            except ClosedBeforeAnswer:
                if resend and reused:
                    continue  # a kept-alive connection the server had closed: each such one is dropped, so this ends
                raise
            finally:
                conn.finish()
