"""A v2 upstream that misbehaves on purpose, one way per path, at the TCP level.

aiohttp's own test server cannot reset a connection mid-body or accept and
then never answer, so this speaks raw HTTP/1.1 over asyncio streams.
Behaviour is chosen by the request path's last segment: /v2/pods/<fault>, or by `?fault=<fault>`; or, for a
whole proxy, by a first segment before /v2 (`--upstream http://host:port/<scenario>`): then every request of that
proxy meets the scenario (`SCENARIOS`: redirects, list pages that are not pages, slow pages, compressed answers,
failing lookups).
"""
from __future__ import annotations

import asyncio
import contextlib
import gzip

import orjson

POD = {
    "id": "pod-ok", "name": "ok", "status": "RUNNING", "actions": ["stop", "restart", "terminate"], "image": "img",
    "args": "", "disk": 50, "mounts": {}, "ports": [], "env": {}, "registry": None, "cloud": "SECURE",
    "dataCenterId": "EU-RO-1", "cudaVersion": None, "ssh": None, "template": None, "cost": 0.5, "locked": False,
    "runtime": None, "createdAt": "2026-11-20T00:00:00Z", "startedAt": None, "globalNetworking": {"enabled": False},
    "gpu": {"id": "NVIDIA A40", "count": 1},
}


# the scenario's answers: (list pages are /v2/pods; a later page carries `cursor=<n>`)
ELSEWHERE = "http://other-host.invalid/v2/pods?limit=1000"
PAGE_DELAY = 0.4  # slow-pages: each page takes this long
SLOW_PAGES = 10
LIST_PAGES = 5  # pages: this many pages of PAGE_PODS pods
PAGE_PODS = 200
HELD_PAGES = 10  # held-pages: this many pages of HELD_PODS pods (about 10 MB of v1 JSON, past any socket buffer)
HELD_PODS = 2_000
BOMB_DECODED = 64 * 1024 * 1024  # gzip-bomb: this many bytes once decoded (about 64 KiB on the wire)
GZIP_PODS = 30_000  # gzip-list: this many pods (about 20 MB decoded, well under 1 MiB compressed)
GPU_ENDPOINT = {"id": "ep1", "name": "e", "computeType": "GPU", "gpu": {"pools": ["AMPERE_48"], "count": 1},
                "scaling": {"type": "QUEUE_DELAY", "queueDelay": 4}, "workers": {"min": 0, "max": 3}}


def _pods_page(pods: list, more: bool = False, cursor: str | None = None) -> dict:
    return {"pods": pods, "pagination": {"hasNextPage": more, "nextCursor": cursor}}


def _gzipped(body: bytes) -> bytes:
    return gzip.compress(body, compresslevel=9)


def _bomb() -> bytes:
    """A valid pod list whose one pod's name is BOMB_DECODED bytes of 'a', compressed: ~0.1% of its decoded size."""
    head = b'{"pods":[{"id":"p1","name":"'
    tail = b'"}],"pagination":{"hasNextPage":false,"nextCursor":null}}'
    compressor = gzip.GzipFile(fileobj=(buffer := __import__("io").BytesIO()), mode="wb", compresslevel=9)
    compressor.write(head)
    block = b"a" * (1024 * 1024)
    for _ in range(BOMB_DECODED // len(block)):
        compressor.write(block)
    compressor.write(tail)
    compressor.close()
    return buffer.getvalue()


_CACHE: dict[str, bytes] = {}


def _once(name: str, make) -> bytes:
    if name not in _CACHE:
        _CACHE[name] = make()
    return _CACHE[name]


def _response(status: int, body: bytes, content_type: str = "application/json", extra: str = "") -> bytes:
    head = (
        f"HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n{extra}"
        "Connection: keep-alive\r\n\r\n"
    )
    return head.encode() + body


class FaultyUpstream:
    """Start with `await up.start()`; `up.url` is the v2 host root; `up.hits` counts requests by fault."""

    def __init__(self, slow_seconds: float = 5.0) -> None:
        self.slow_seconds = slow_seconds
        self.hits: dict[str, int] = {}
        self.calls: list[str] = []  # scenario requests, as "METHOD /scenario/v2/...?query"
        self._server: asyncio.base_events.Server | None = None
        self._hanging: set[asyncio.Task] = set()
        self.url = ""

    async def start(self) -> "FaultyUpstream":
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for task in list(self._hanging):
                task.cancel()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._hanging.add(task)
        try:
            while True:
                request_line = await reader.readline()
                if not request_line:
                    return
                length = 0
                while True:
                    line = await reader.readline()
                    if line in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = line.decode("latin-1").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                if length:
                    await reader.readexactly(length)
                method = request_line.split()[0].decode()
                path, _, query = request_line.split()[1].decode().partition("?")
                scenario, _, rest = path.lstrip("/").partition("/")
                if scenario == "_hits":  # GET /_hits/<scenario>: how many requests that scenario has had
                    writer.write(_response(200, orjson.dumps({"hits": self.hits.get(rest, 0)})))
                    await writer.drain()
                    continue
                if scenario != "v2" and rest.startswith("v2/"):
                    self.hits[scenario] = self.hits.get(scenario, 0) + 1
                    self.calls.append(f"{method} {path}" + (f"?{query}" if query else ""))
                    if not await self._scenario(scenario, method, "/" + rest, query, writer):
                        return
                    continue
                fault = path.rstrip("/").rsplit("/", 1)[-1]
                if query.startswith("fault="):  # for routes whose last segment is fixed (/v2/pods/{id}/logs)
                    fault = query[len("fault="):]
                self.hits[fault] = self.hits.get(fault, 0) + 1
                if not await self._answer(fault, reader, writer):
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        except asyncio.CancelledError:
            return
        finally:
            with contextlib.suppress(Exception):
                writer.close()
            if task is not None:
                self._hanging.discard(task)

    @staticmethod
    async def _client_gone(reader: asyncio.StreamReader, seconds: float) -> bool:
        """Wait `seconds`, or less if the client closes first (True then), so no server task outlives its client."""
        try:
            data = await asyncio.wait_for(reader.read(1), seconds)
        except asyncio.TimeoutError:
            return False
        return not data

    async def _scenario(self, scenario: str, method: str, path: str, query: str,
                        writer: asyncio.StreamWriter) -> bool:
        """A whole proxy's upstream misbehaving one way (the first path segment names it)."""
        params = dict(p.partition("=")[::2] for p in query.split("&") if p)
        if scenario.startswith("redirect-") and scenario[-3:].isdigit():  # redirect-301 ... 308: another origin
            status = int(scenario.rsplit("-", 1)[1])
            writer.write(_response(status, b"", "text/plain", f"Location: {ELSEWHERE}\r\n"))
        elif scenario == "redirect-relative":  # a redirect within the upstream (relative Location)
            writer.write(_response(302, b"", "text/plain", "Location: /v2/pods?limit=5\r\n"))
        elif scenario == "redirect-same":  # a redirect to the upstream's own origin, absolute
            location = f"{self.url}/redirect-same/v2/pods?limit=5"
            writer.write(_response(302, b"", "text/plain", f"Location: {location}\r\n"))
        elif scenario == "bare-array":  # a JSON array where the page object belongs
            writer.write(_response(200, orjson.dumps([POD, {**POD, "id": "pod-2"}])))
        elif scenario == "no-pagination":
            writer.write(_response(200, orjson.dumps({"pods": [POD]})))
        elif scenario == "null-pagination":
            writer.write(_response(200, orjson.dumps({"pods": [POD], "pagination": None})))
        elif scenario == "string-pagination":
            writer.write(_response(200, orjson.dumps({"pods": [POD], "pagination": "next"})))
        elif scenario == "string-more":  # hasNextPage "true": more follow, or not?
            writer.write(_response(200, orjson.dumps({"pods": [POD], "pagination": {"hasNextPage": "true",
                                                                                     "nextCursor": "2"}})))
        elif scenario == "later-page-bare":  # page 1 fine, page 2 a bare array
            body = [POD] if "cursor" in params else _pods_page([POD], True, "2")
            writer.write(_response(200, orjson.dumps(body)))
        elif scenario == "slow-pages":  # SLOW_PAGES pages, each PAGE_DELAY late
            await asyncio.sleep(PAGE_DELAY)
            page = int(params.get("cursor", "1"))
            more = page < SLOW_PAGES
            body = _pods_page([{**POD, "id": f"pod-{page}"}], more, str(page + 1) if more else None)
            writer.write(_response(200, orjson.dumps(body)))
        elif scenario == "pages":  # LIST_PAGES pages of PAGE_PODS pods, answered at once
            page = int(params.get("cursor", "1"))
            more = page < LIST_PAGES
            pods = [{**POD, "id": f"pod-{page}-{i}", "name": f"n{i}"} for i in range(PAGE_PODS)]
            writer.write(_response(200, orjson.dumps(_pods_page(pods, more, str(page + 1) if more else None))))
        elif scenario == "held-pages":  # HELD_PAGES pages of HELD_PODS pods, each page under 1 MiB
            page = int(params.get("cursor", "1"))
            more = page < HELD_PAGES
            pods = [{**POD, "id": f"pod-{page}-{i}", "name": f"n{i}"} for i in range(HELD_PODS)]
            writer.write(_response(200, orjson.dumps(_pods_page(pods, more, str(page + 1) if more else None))))
        elif scenario == "gzip-bomb":
            writer.write(_response(200, _once("bomb", _bomb), extra="Content-Encoding: gzip\r\n"))
        elif scenario == "gzip-list":  # a large list, small on the wire
            body = _once("gzip-list", lambda: _gzipped(orjson.dumps(_pods_page(
                [{**POD, "id": f"pod-{i}", "name": f"n{i}"} for i in range(GZIP_PODS)]))))
            writer.write(_response(200, body, extra="Content-Encoding: gzip\r\n"))
        elif scenario.startswith("current-"):  # the GET of an endpoint's current state fails one way
            how = scenario[len("current-"):]
            if method == "GET":
                if how in ("404", "403", "500"):
                    problem = {"title": "x", "status": int(how), "detail": f"injected {how}"}
                    writer.write(_response(int(how), orjson.dumps(problem), "application/problem+json"))
                elif how == "list":
                    writer.write(_response(200, b"[]"))
                elif how == "html":
                    writer.write(_response(200, b"<html>maintenance</html>", "text/html"))
                else:  # "gpu": a GPU endpoint (no cpu entry)
                    writer.write(_response(200, orjson.dumps(GPU_ENDPOINT)))
            else:
                writer.write(_response(200, orjson.dumps(GPU_ENDPOINT)))
        else:
            writer.write(_response(404, orjson.dumps({"title": "no such scenario", "status": 404,
                                                      "detail": scenario}), "application/problem+json"))
        await writer.drain()
        return True

    async def _answer(self, fault: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Write the misbehaviour; False closes the connection afterwards."""
        if fault == "hang":  # accepts, reads the request, never answers (until the client hangs up)
            await self._client_gone(reader, 3600)
            return False
        if fault == "close":  # reads the request, then closes without a word
            return False
        if fault == "slow":
            if await self._client_gone(reader, self.slow_seconds):
                return False
            writer.write(_response(200, orjson.dumps(POD)))
        elif fault == "reset":  # headers promise a body, then the connection dies
            body = orjson.dumps(POD)
            writer.write(_response(200, body)[: -len(body) // 2])
            await writer.drain()
            transport = writer.transport
            sock = transport.get_extra_info("socket")
            if sock is not None:
                import socket
                import struct

                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            transport.abort()
            return False
        elif fault == "drip":  # a whole answer announced, then one byte every 50 ms (until the client hangs up)
            body = orjson.dumps(POD)
            head = _response(200, body)[: -len(body)]
            writer.write(head)
            await writer.drain()
            for byte in body:
                if await self._client_gone(reader, 0.05):
                    return False
                writer.write(bytes([byte]))
                await writer.drain()
            return True
        elif fault == "chunkbreak":  # a chunked answer (a stream) that stops mid-chunk and closes
            writer.write(b"HTTP/1.1 200 X\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                         b"b\r\ndata: one\n\n\r\n20\r\ndata: tw")
            await writer.drain()
            return False
        elif fault == "idle":  # a stream that sends one event, then stays silent (until the client hangs up)
            writer.write(b"HTTP/1.1 200 X\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                         b"b\r\ndata: one\n\n\r\n")
            await writer.drain()
            await self._client_gone(reader, 3600)
            return False
        elif fault == "truncated":  # valid headers, half a JSON body, clean close
            body = orjson.dumps(POD)
            writer.write(_response(200, body)[: -len(body) // 2])
            await writer.drain()
            return False
        elif fault == "notjson":
            writer.write(_response(200, b"<html>upstream error page</html>", "text/html"))
        elif fault == "badjson":
            writer.write(_response(200, b'{"id": "pod-ok", "name": ', "application/json"))
        elif fault == "error500":
            problem = {"title": "Internal Server Error", "status": 500, "detail": "database unavailable"}
            writer.write(_response(500, orjson.dumps(problem), "application/problem+json"))
        elif fault == "error503":
            writer.write(_response(503, b"Service Unavailable", "text/plain"))
        elif fault == "oddproblem":  # a problem object of an unexpected shape
            writer.write(_response(422, orjson.dumps({"errors": {"image": ["bad"]}, "status": "422"}), "application/problem+json"))
        elif fault == "wrongshape":  # JSON, but not a pod
            writer.write(_response(200, orjson.dumps(["not", "a", "pod"])))
        else:
            writer.write(_response(200, orjson.dumps({**POD, "id": fault})))
        await writer.drain()
        return True


def main() -> None:
    """Run in its own process (`python -m tests.stress.faulty_upstream`): prints the URL, serves until killed.

    Out of process, its sockets and tasks never count in the proxy's leak figures.
    """
    import sys

    async def serve() -> None:
        up = await FaultyUpstream(slow_seconds=float(sys.argv[1]) if len(sys.argv) > 1 else 5.0).start()
        print(up.url, flush=True)
        await asyncio.Event().wait()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
