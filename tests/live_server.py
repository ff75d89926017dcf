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
