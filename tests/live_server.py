"""An aiohttp app on a real port, served from its own event-loop thread.

Schemathesis and synchronous HTTP clients block, so the server cannot share
the test's event loop.
"""
from __future__ import annotations

import asyncio
import socket
import threading

from aiohttp import web


class LiveServer:
    def __init__(self, app: web.Application) -> None:
        self.app = app
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.loop = asyncio.new_event_loop()
        self.runner = web.AppRunner(app, access_log=None)
        ready = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(self.loop)
            self.loop.run_until_complete(self.runner.setup())
            self.loop.run_until_complete(web.TCPSite(self.runner, "127.0.0.1", self.port).start())
            ready.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        if not ready.wait(10):
            raise RuntimeError("the live server did not start within 10 s")
        self.url = f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def wait_listening(port: int, count: int, timeout: float = 60.0) -> None:
    """Wait until `count` sockets listen on `port` (each `--workers` process binds its own, SO_REUSEPORT): the
    first worker answers before the others are up, and until they are, the kernel gives it every connection."""
    import time
    from pathlib import Path

    hexport = f":{port:04X}"
    deadline = time.monotonic() + timeout
    while True:
        found = 0
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            path = Path(table)
            if path.exists():
                rows = [line.split() for line in path.read_text().splitlines()[1:]]
                found += sum(1 for r in rows if r[1].endswith(hexport) and r[3] == "0A")
        if found >= count or not Path("/proc/net/tcp").exists():
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{found} of {count} workers listening on {port}")
        time.sleep(0.1)
