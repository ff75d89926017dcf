"""Large v2 answers with bounded memory: spooled to a file, checked and translated as a stream in a small process
pool, and sent to the client from a file.

A GET answer of `ProxyConfig.large_answer` bytes or more never sits in the proxy's memory: `Upstream.call` reads it
in 256 KiB chunks into a temporary file (`upstream.Spool`). A worker of the answer pool (spawned, started at the
first large answer) then

1. checks it (`inspect`): one pass of ijson's C parser over the file, events only, learns whether it is JSON, what
   the root and the list container are, whether every entry is an object, and the pagination block; the verdict
   is put to the very `_not_an_answer` of the in-loop path (over a skeleton of the same types), so a body that is
   not an answer is the same v1 502, word for word; the ids the include* lookups need are collected in a second
   pass when the plan has such lookups;
2. translates it (`translate_list`, `translate_billing`): ijson yields one list entry at a time, each is filtered,
   translated with the same compiled translators and written with orjson to the v1 output file; billing
   aggregation and v1 grouping keep one bucket per group, never the records.

The loop does the lookups between the two (the worker sends back the ids), walks the later pages of a paginated
list (each page spooled if large, appended to the same output file), and answers only when the output file is
complete: the status is known before the first byte, and an answer that turns out malformed half-way is a 502,
never a half list. The v1 bytes go out from the file (aiohttp streams a file body in chunks), so the proxy holds one
chunk per answer. Memory per request: the proxy one chunk of the upstream read (plus at most `large_answer` bytes
waiting for the spool's writer thread) and one of the client write, a worker one v2 entry and one v1 entry at a
time (or one bucket per group); measured by bench/large_answer.py.

Why ijson: a well-kept iterative JSON parser whose C backend (yajl2_c) yields list entries at orjson's speed
without building the document; numbers are parsed as floats (use_float), so the values, and orjson's output of
them, are the in-loop path's. A lone surrogate escape, which ijson would read as '?', is found by a scan of the
bytes and is the in-loop 502. Known differences on bodies no v2 server sends: an integer beyond 64 bits is a 502
here (orjson reads it as a float), and so is a list key given twice in one object (orjson keeps the last).

A single object of that size (a GET of one resource) is read whole in the worker, not in the loop; one with
lookups is read into the loop as before.
"""
from __future__ import annotations

import asyncio
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, BinaryIO, Callable

from aiohttp import web

from mappings.errors import V1bridgeError
from proxy.answer_worker import (Found, Job, finish_list, inspect, output_file, start_worker, translate_billing,
                                 translate_list, translate_whole)
from proxy.failures import upstream_headers
from proxy.forward import Plan
from proxy.upstream_answer import UpstreamResponse, no_room, remove_file

_JSON = "application/json"


def raise_from(error: tuple[type[V1bridgeError], tuple[Any, ...], dict[str, Any]]) -> None:
    cls, args, state = error
    exc = cls.__new__(cls)
    Exception.__init__(exc, *args)
    exc.__dict__.update(state)
    raise exc


def job_for(plan: Plan, resp: UpstreamResponse, call: str, creates: bool) -> Job:
    source: bytes | str = resp.spool.path if resp.spool is not None else resp.body
    return Job(plan.route.op_id, resp.status, resp.headers.get("Content-Type"), source, call, creates,
               frozenset(plan.includes), tuple(plan.filters), plan.grouping, plan.grouping_drop)


# ------------------------------------------------------------------ the loop's side


class AnswerPool:
    """The processes large answers are translated in, for one proxy process: started at the first call, made anew
    after a worker died, stopped with the app (Answer.close)."""

    def __init__(self, processes: int) -> None:
        self.processes = processes
        self._executor: ProcessPoolExecutor | None = None

    @property
    def started(self) -> bool:
        return self._executor is not None

    async def run(self, fn, *args) -> Any:  # type: ignore[no-untyped-def]
        """`fn(*args)` in a worker: its value, or its V1bridgeError raised here."""
        if self._executor is None:
            self._executor = new_pool(self.processes)
        try:
            kind, value = await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)
        except BrokenProcessPool:  # a worker died (killed, out of memory): a new pool for the next call
            self._executor = None
            raise V1bridgeError("the proxy could not translate the v2 answer (its translating process ended)",
                                status=503, headers={"Retry-After": "1"}) from None
        if kind == "error":
            raise_from(value)
        return value

    def close(self) -> None:
        """Queued work is dropped, running translations end on their own."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)


async def _run(service, fn, *args) -> Any:  # service: answer.Answer
    return await service.answer_pool().run(fn, *args)


async def _release(resp: UpstreamResponse) -> None:
    """Remove a spool file off the loop (freeing a large file's blocks may wait on the disk)."""
    spool, resp.spool = resp.spool, None
    if spool is not None:
        await asyncio.get_running_loop().run_in_executor(None, spool.close)


async def _file_answer(path: str, status: int, headers: dict[str, str]) -> web.Response:
    """The v1 answer from its complete output file: opened and unlinked by an executor thread (a metadata change
    may wait on a busy disk; the loop never does), then read by aiohttp in chunks, in its executor, as it sends
    (Content-Length known; opened by descriptor, so no file name or Content-Disposition is sent)."""
    def open_unlinked() -> BinaryIO:
        f = os.fdopen(os.open(path, os.O_RDONLY), "rb")
        remove_file(path)
        return f

    f = await asyncio.get_running_loop().run_in_executor(None, open_unlinked)
    return web.Response(status=status, body=f, content_type=_JSON, headers=headers)


def _id_lookups(plan: Plan) -> tuple[tuple[str, str], ...]:
    return tuple((name, spec.ids_from) for name, spec in plan.lookups if spec.ids_from)


async def answer(service, call, plan: Plan, resp: UpstreamResponse) -> web.StreamResponse | None:
    """The v1 answer to a spooled (large) v2 answer, or None after reading it into memory for the in-loop path
    (an answer shape this module does not stream: a raw body, an object with lookups or a follow-up)."""
    route = plan.route
    assert plan.request is not None and resp.spool is not None
    step = f"{plan.request.method} {plan.request.path}"
    shape = route.op.shape
    try:
        if route.op.response is None or shape in ("empty", "raw") or (
                shape not in ("list", "billing") and (plan.lookups or plan.follow_up is not None)):
            await asyncio.get_running_loop().run_in_executor(None, resp.load)
            return None
        job = job_for(plan, resp, step, route.creates)
        if shape not in ("list", "billing"):
            body = await _run(service, translate_whole, job)
            return web.Response(status=service.v1_status(call, plan, resp), body=body, content_type=_JSON,
                                headers=upstream_headers(resp))
        found: Found = await _run(service, inspect, job, _id_lookups(plan), 1)
        if shape == "billing":
            lookups, _ = await service.lookups.for_answer(call, plan, None, ids=found.ids)
            out, _size = await _run(service, translate_billing, job, found, lookups)
            return await _file_answer(out, service.v1_status(call, plan, resp), upstream_headers(resp))
        track = any(spec.extends_list for _, spec in plan.lookups)
        return await pages(service, call, plan, resp, job, found, 1, None, (0, set() if track else None), {}, [],
                           set())
    finally:
        if resp.spool is not None:
            await _release(resp)


async def pages(service, call, plan: Plan, resp: UpstreamResponse, job: Job, found: Found, page: int,
                out: str | None, state: tuple[int, set[Any] | None], cache: dict[str, Any],
                extra: list[dict[str, Any]], cursors: set[str]) -> web.StreamResponse:
    """A v1 list from this page and every later one, each appended to the output file `out` as it is translated
    (the in-loop pager's rules: a failed or malformed page is a 502, never a partial list)."""
    route = plan.route
    assert plan.request is not None
    lookups: dict[str, Any] = {}
    try:
        while True:
            if plan.lookups:
                lookups, more_extra = await service.lookups.for_answer(call, plan, None, cache, ids=found.ids)
                extra.extend(more_extra)
            out, state = await _run(service, translate_list, job, found, lookups, out, state)
            if not found.more:
                break
            cursor = service.pages.next_cursor(found.page, page, cursors, route.label)
            page += 1
            if resp.spool is not None:
                await _release(resp)
            resp = await service.pages.page_response(call, plan.request.method, plan.request.path,
                                                     plan.request.query, cursor, page, route.op_id, route.label,
                                                     service.config.large_answer)
            job = job_for(plan, resp, f"{plan.request.method} {plan.request.path} (page {page})", False)
            found = await _run(service, inspect, job, _id_lookups(plan), page)
        await _run(service, finish_list, route.op_id, tuple(plan.filters), frozenset(plan.includes), lookups, extra,
                   out, state)
    except BaseException:
        if out is not None:
            remove_file(out)
        raise
    finally:
        if resp.spool is not None:
            await _release(resp)
    # one page: the status rule of a single answer; several: the v1 list's own status (the in-loop pager's)
    status = service.v1_status(call, plan, resp) if page == 1 else route.op.v1_status
    assert out is not None
    return await _file_answer(out, status, upstream_headers(resp))


async def continue_pages(service, call, plan: Plan, resp: UpstreamResponse, page: int, chunks: list[bytes],
                         release: Callable[[], None], seen: set[Any] | None, cache: dict[str, Any],
                         extra: list[dict[str, Any]], cursors: set[str]) -> web.StreamResponse:
    """The in-loop pager met a large (spooled) later page: what it built so far goes to the output file (chunk by
    chunk: a joined copy would double it), `release` gives its memory back to the budget once it is there (or
    failed), and this page and the rest are translated here."""
    assert plan.request is not None

    def spill() -> str:
        name = output_file()
        try:
            with open(name, "wb") as sink:
                sink.write(b"[")
                for n, chunk in enumerate(chunks):
                    sink.write(b"," if n else b"")
                    sink.write(chunk)
        except BaseException:
            remove_file(name)
            raise
        return name

    written = 1 if chunks else 0
    try:
        out = await asyncio.get_running_loop().run_in_executor(None, spill)
    except OSError as exc:
        await _release(resp)
        raise no_room(exc) from None
    finally:
        chunks.clear()  # on disk now (or failed): the in-loop pager's list no longer holds them
        release()
    try:
        job = job_for(plan, resp, f"{plan.request.method} {plan.request.path} (page {page})", False)
        found = await _run(service, inspect, job, _id_lookups(plan), page)
    except BaseException:
        remove_file(out)
        if resp.spool is not None:
            await _release(resp)
        raise
    return await pages(service, call, plan, resp, job, found, page, out, (written, seen), cache, extra, cursors)


def new_pool(processes: int) -> ProcessPoolExecutor:
    """Spawned, not forked: the proxy process has threads (the event loop's executor, the parent watch)."""
    return ProcessPoolExecutor(max_workers=processes, mp_context=multiprocessing.get_context("spawn"),
                               initializer=start_worker, initargs=(os.getpid(),))


__all__ = ["AnswerPool", "answer", "continue_pages", "job_for", "new_pool", "pages", "raise_from"]
