"""A v2 upstream that misbehaves on purpose, one way per path, at the TCP level.

aiohttp's own test server cannot reset a connection mid-body or accept and
then never answer, so this speaks raw HTTP/1.1 over asyncio streams.
Behaviour is chosen by the request path's last segment: /v2/pods/<fault>, or by `?fault=<fault>`.
"""
from __future__ import annotations

import asyncio
import contextlib

import orjson

POD = {
    "id": "pod-ok", "name": "ok", "status": "RUNNING", "actions": ["stop", "restart", "terminate"], "image": "img",
    "args": "", "disk": 50, "mounts": {}, "ports": [], "env": {}, "registry": None, "cloud": "SECURE",
    "dataCenterId": "EU-RO-1", "cudaVersion": None, "ssh": None, "template": None, "cost": 0.5, "locked": False,
    "runtime": None, "createdAt": "2026-11-20T00:00:00Z", "startedAt": None, "globalNetworking": {"enabled": False},
    "gpu": {"id": "NVIDIA A40", "count": 1},
}


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
                path, _, query = request_line.split()[1].decode().partition("?")
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
