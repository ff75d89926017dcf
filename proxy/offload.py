"""Large v2 answers translated in a small process pool, so the event loop never parses, translates or serialises
tens of megabytes itself (one big billing call used to stall /healthz for seconds; a thread did not help: orjson
holds the GIL while it parses or dumps).

Above `ProxyConfig.large_answer` bytes, a plain answer (no lookups, follow-up, steps) is handed over as raw
bytes; the worker checks it is an answer, parses, translates with the same compiled translators (built once per
worker process from the mappings) and returns the v1 bytes. The event loop only awaits. An error inside the
worker comes back as the same V1bridgeError the in-loop path raises (the 502 for a 2xx that is not an answer).
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

import orjson
from multidict import CIMultiDict, CIMultiDictProxy

from mappings.errors import V1bridgeError
from proxy.forward import Filter, Plan
from proxy.upstream import UpstreamResponse


@dataclass(frozen=True)
class Job:
    """What a worker needs to answer one v1 call: the route by id, the v2 answer, and the plan's response side."""

    op_id: str
    status: int
    content_type: str | None
    body: bytes
    call: str
    creates: bool
    includes: frozenset[str]
    filters: tuple[Filter, ...]
    grouping: str | None
    grouping_drop: frozenset[str]


# per worker process: (route table, backward translator), built by _start
_WORKER: Any = None


def _start(parent: int) -> None:
    """Worker start: the translators once, SIGINT left to the parent, and no orphan if the parent dies."""
    global _WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from mappings import default_mappings
    from proxy.backward import Backward
    from proxy.routes import RouteTable

    table = RouteTable(default_mappings())
    _WORKER = (table, Backward(table))

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="v1bridge-answer-parent-watch", daemon=True).start()


def translate_answer(job: Job) -> tuple[str, Any]:
    """("ok", v1 bytes), ("more", None) for a paginated list with more pages (the loop pages it), or
    ("error", (class, args, state)) for a V1bridgeError, rebuilt as is by `raise_from`."""
    from proxy.emulations.pages import more_pages
    from proxy.failures import not_an_answer

    table, backward = _WORKER
    route = table[job.op_id]
    headers = CIMultiDictProxy(CIMultiDict({"Content-Type": job.content_type} if job.content_type else {}))
    resp = UpstreamResponse(job.status, headers, job.body)
    try:
        problem = not_an_answer(route, resp, job.call, creates=job.creates)
        if problem is not None:
            raise problem
        data = resp.json()
        if route.paginated and more_pages(backward.m.conventions.pagination, data):
            return "more", None
        plan = Plan(route, {}, None, filters=list(job.filters), includes=set(job.includes), grouping=job.grouping,
                    grouping_drop=job.grouping_drop)
        out = backward.translate(plan, data, backward.context(plan, {}))
        return "ok", orjson.dumps(out)
    except V1bridgeError as exc:
        return "error", (type(exc), exc.args, dict(exc.__dict__))


def raise_from(error: tuple[type[V1bridgeError], tuple[Any, ...], dict[str, Any]]) -> None:
    cls, args, state = error
    exc = cls.__new__(cls)
    Exception.__init__(exc, *args)
    exc.__dict__.update(state)
    raise exc


def job_for(plan: Plan, resp: UpstreamResponse, call: str, creates: bool) -> Job:
    return Job(plan.route.op_id, resp.status, resp.headers.get("Content-Type"), resp.body, call, creates,
               frozenset(plan.includes), tuple(plan.filters), plan.grouping, plan.grouping_drop)


__all__ = ["BrokenProcessPool", "Job", "ProcessPoolExecutor", "job_for", "new_pool", "raise_from",
           "translate_answer"]


def new_pool(processes: int) -> ProcessPoolExecutor:
    """Spawned, not forked: the proxy process has threads (the event loop's executor, the parent watch)."""
    return ProcessPoolExecutor(max_workers=processes, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start, initargs=(os.getpid(),))
