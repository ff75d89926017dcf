"""A process that serves the proxy until it exits (the CLI, a `--workers` child, a gunicorn worker): its event loop,
its garbage collector's tuning, and where its metrics go when several processes serve one port."""
from __future__ import annotations

import asyncio
import gc
import glob
import os
import tempfile
from typing import Mapping

from aiohttp import web

from proxy.telemetry import MULTIPROC_ENV


# A request allocates a few hundred tracked objects (aiohttp's request, response, client call, the plan, the
# records), nearly all freed by reference counting when it ends. With the default first-generation threshold
# (700) the collector ran every few requests and walked every in-flight request's objects each time (13% of the
# proxy's CPU per request with gc off vs on, GET /v1/pods/{id}); at 20,000 it runs about every hundred requests.
# Only cyclic garbage waits longer for it: at most that many objects (a few MB).
GC_THRESHOLD = 20_000


async def _freeze_gc(app: web.Application) -> None:
    """Start-up objects (mappings, schemas, route table) live as long as the process: move them out of the
    collector's reach so full collections under load stay short (they showed as 40 ms pauses in the p99),
    and collect young objects every GC_THRESHOLD allocations instead of every 700."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])


def event_loop(name: str = "asyncio") -> asyncio.AbstractEventLoop:
    """The event loop of a serving process (`--loop`). asyncio's by default: uvloop (libuv) costs about 9% fewer
    instructions per request, but once the process is saturated it serves connections unfairly: at 150-400
    connections p99 of 2-3 s against a p50 of 50-120 ms, where asyncio's loop keeps p99 within 2-4x p50. A bare
    aiohttp server and a bare asyncio.Protocol server show the same, so it is the loop's (README, "Overload")."""
    if name == "uvloop":
        import uvloop

        return uvloop.new_event_loop()
    return asyncio.new_event_loop()


def serving_for_life(app: web.Application) -> web.Application:
    """For a process that serves this one app until it exits (the CLI, a `--workers` child, a gunicorn worker).
    Never in create_proxy_app: frozen objects are never collected, so a process that builds and drops apps
    (a test run, an embedding program) would keep every one of them, and all its garbage, for good."""
    app.on_startup.append(_freeze_gc)
    return app


def gunicorn_metrics_dir(env: Mapping[str, str]) -> str:
    """Under gunicorn every worker builds its own app: PROMETHEUS_MULTIPROC_DIR when the operator set it
    (prometheus-client's convention: an empty directory per start), else one directory per gunicorn master
    (the workers' parent) under the temp directory."""
    return env.get(MULTIPROC_ENV) or os.path.join(tempfile.gettempdir(), f"v1bridge-metrics-{os.getppid()}")


def shared_metrics_dir(env: Mapping[str, str]) -> tuple[str, bool]:
    """`--workers N`: the directory all workers write their metrics to, and whether this process made it (and
    removes it at exit). PROMETHEUS_MULTIPROC_DIR is used when set, emptied of earlier runs' *.db files first
    (a counter file left from an earlier start would be added to this one's)."""
    given = env.get(MULTIPROC_ENV)
    if given:
        os.makedirs(given, exist_ok=True)
        for stale in glob.glob(os.path.join(given, "*.db")):
            os.unlink(stale)
        return given, False
    return tempfile.mkdtemp(prefix="v1bridge-metrics-"), True
