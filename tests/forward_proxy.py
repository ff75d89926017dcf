"""A forward (egress) proxy on loopback for tests: `CONNECT host:port` tunnels (https upstreams) and absolute-form
requests (http upstreams), as corporate egress proxies serve them. It records what it was asked, and the
Proxy-Authorization each ask carried; `refuse` answers every CONNECT 403. Host names are resolved by the proxy
(as an egress proxy does: the client may not resolve them at all), through `hosts` first."""
from __future__ import annotations

import asyncio
import contextlib

from yarl import URL


class ForwardProxy:
    def __init__(self, refuse: bool = False, hosts: dict[str, str] | None = None) -> None:
        self.refuse = refuse
        self.hosts = hosts or {}
        self.asked: list[str] = []  # "CONNECT host:port" or "GET http://host:port/path"
        self.credentials: list[str | None] = []
        self.url = ""
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task] = set()

    async def __aenter__(self) -> "ForwardProxy":
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"
        return self

    async def __aexit__(self, *exc) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        self._tasks.add(task)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            method, target, _ = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
            fields = {line.split(":", 1)[0].strip().lower(): line.split(":", 1)[1].strip()
                      for line in head.decode("latin-1").split("\r\n")[1:] if ":" in line}
            self.asked.append(f"{method} {target}")
            self.credentials.append(fields.get("proxy-authorization"))
            if method == "CONNECT":
                if self.refuse:
                    writer.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                    await writer.drain()
                    return
                host, port = target.rsplit(":", 1)
                host = host.strip("[]")
                up_reader, up_writer = await asyncio.open_connection(self.hosts.get(host, host), int(port))
                writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
                await writer.drain()
            else:  # absolute-form: the first request goes on as sent (an HTTP/1.1 origin accepts absolute-form)
                url = URL(target)
                up_reader, up_writer = await asyncio.open_connection(self.hosts.get(url.host, url.host), url.port)
                up_writer.write(head)
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()
            self._tasks.discard(task)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()
