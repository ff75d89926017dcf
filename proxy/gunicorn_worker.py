"""gunicorn worker classes for the proxy: aiohttp's own, with gunicorn's `--backlog` kept.

    gunicorn 'proxy.app:gunicorn_app' --worker-class proxy.gunicorn_worker.GunicornWorker --backlog 2048 ...

gunicorn's master listens with `--backlog` (default 2048), but each aiohttp worker (3.14) then starts a site on the
shared socket with aiohttp's default backlog, and starting a site listens again: the socket ends up queuing 128
connections, whatever `--backlog` says (aio-libs/aiohttp#5283, open). In a burst of connections the kernel then
drops the SYNs past 128 and those clients retry after 1 s. These workers listen once more with `--backlog` as
soon as aiohttp reports its sites started (`booted`), which Linux applies to the listening socket in place.
"""
from __future__ import annotations

from aiohttp.worker import GunicornUVLoopWebWorker, GunicornWebWorker


class _KeepsGunicornBacklog:
    """`booted` turns true once aiohttp's sites listen (gunicorn's arbiter reads it): the moment to restore
    gunicorn's backlog on every socket the worker serves."""

    @property
    def booted(self) -> bool:
        return self.__dict__.get("_booted", False)

    @booted.setter
    def booted(self, value: bool) -> None:
        self.__dict__["_booted"] = value
        if value:
            for sock in self.sockets:  # type: ignore[attr-defined]
                sock.listen(self.cfg.backlog)  # type: ignore[attr-defined]


class GunicornUVLoopWorker(_KeepsGunicornBacklog, GunicornUVLoopWebWorker):
    """aiohttp.GunicornUVLoopWebWorker (uvloop, as `v1bridge proxy --loop uvloop` runs) with gunicorn's `--backlog`."""


class GunicornWorker(_KeepsGunicornBacklog, GunicornWebWorker):
    """aiohttp.GunicornWebWorker (asyncio's own loop, as `v1bridge proxy` runs by default) with gunicorn's `--backlog`."""
