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
import io
import mmap
import multiprocessing
import os
import re
import signal
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, BinaryIO, Iterator

import ijson
import orjson
from aiohttp import web
from multidict import CIMultiDict, CIMultiDictProxy

from mappings.converters import ResponseContext
from mappings.errors import UpstreamError, V1bridgeError
from mappings.records import Filter, group_records, passes, values_at
from proxy.forward import Plan
from proxy.failures import upstream_headers
from proxy.upstream import UpstreamResponse, no_room

_JSON = "application/json"
# the v1 output file is written through a buffer of this size
_WRITE_BUFFER = 1024 * 1024


@dataclass(frozen=True)
class Job:
    """What a worker needs to check or translate one v2 answer (or one page of it): the route by id, the body
    (bytes, or the path of its spool file), and the plan's response side."""

    op_id: str
    status: int
    content_type: str | None
    source: bytes | str
    call: str
    creates: bool
    includes: frozenset[str]
    filters: tuple[Filter, ...]
    grouping: str | None
    grouping_drop: frozenset[str]

    def plan(self, route) -> Plan:
        return Plan(route, {}, None, filters=list(self.filters), includes=set(self.includes), grouping=self.grouping,
                    grouping_drop=self.grouping_drop)


@dataclass(frozen=True)
class Found:
    """What `inspect` learnt: the root's type, where the entries are (an ijson prefix), whether more pages follow
    and the page's pagination block (as `{block: value}`), and the ids each per-item lookup needs."""

    root: str
    prefix: str
    more: bool
    page: dict[str, Any]
    ids: dict[str, list[str]]


@dataclass(frozen=True)
class _Checks:
    """The in-loop path's own checks, used by the worker as they are (failures.py, emulations/pages.py)."""

    _not_an_answer: Any
    checked_more: Any
    not_a_page: Any


# per worker process: (route table, backward translator, the checks), built by _start
_WORKER: Any = None


def _start(parent: int) -> None:
    """Worker start: the translators once, SIGINT left to the parent, and no orphan if the parent dies."""
    global _WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from mappings import default_mappings
    from proxy import failures
    from proxy.backward import Backward
    from proxy.emulations import pages
    from proxy.routes import RouteTable

    table = RouteTable(default_mappings())
    _WORKER = (table, Backward(table), _Checks(failures.not_an_answer, pages.checked_more, pages.not_a_page))

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="v1bridge-answer-parent-watch", daemon=True).start()


def _open(source: bytes | str) -> BinaryIO:
    return io.BytesIO(source) if isinstance(source, bytes) else open(source, "rb")


def _response(job: Job, body: bytes, parsed: Any) -> UpstreamResponse:
    headers = CIMultiDictProxy(CIMultiDict({"Content-Type": job.content_type} if job.content_type else {}))
    return UpstreamResponse(job.status, headers, body, parsed)


def _error(exc: V1bridgeError) -> tuple[str, Any]:
    return "error", (type(exc), exc.args, dict(exc.__dict__))


# ------------------------------------------------------------------ the check: one pass of parse events

_SCALAR = {"string": "", "integer": 0, "double": 0.0, "number": 0.0, "boolean": True, "null": None}
_OPEN = frozenset(("start_map", "start_array"))
_CLOSE = frozenset(("end_map", "end_array"))
_INVALID = (ijson.JSONError, ValueError, OverflowError)


class _Twice(Exception):
    """The list key appears twice in the root object."""


def _skip(events: Iterator[tuple[str, Any]], event: str) -> None:
    """Consume the rest of a value that began with `event`."""
    if event not in _OPEN:
        return
    depth = 1
    for event, _ in events:
        if event in _OPEN:
            depth += 1
        elif event in _CLOSE:
            depth -= 1
            if depth == 0:
                return


def _entries(events: Iterator[tuple[str, Any]]) -> list[Any]:
    """Consume an array (its start already read): [] if every entry is an object, else [0] (the in-loop check
    only asks whether they all are). The hot loop of the check: one set lookup for most events."""
    depth = 1
    objects = True
    for event, _ in events:
        if event in _OPEN:
            if depth == 1 and event == "start_array":
                objects = False
            depth += 1
        elif event in _CLOSE:
            depth -= 1
            if depth == 0:
                break
        elif depth == 1:  # a scalar entry
            objects = False
    return [] if objects else [0]


def _build(events: Iterator[tuple[str, Any]], event: str, value: Any) -> Any:
    """A small value (the pagination block) built whole from its events."""
    builder = ijson.ObjectBuilder()
    builder.event(event, value)
    if event in _OPEN:
        depth = 1
        for event, value in events:
            builder.event(event, value)
            if event in _OPEN:
                depth += 1
            elif event in _CLOSE:
                depth -= 1
                if depth == 0:
                    break
    return builder.value


def _value(events: Iterator[tuple[str, Any]], event: str) -> Any:
    """A skeleton of the value that began with `event`: its type, and for an array whether its entries are objects."""
    if event == "start_array":
        return _entries(events)
    _skip(events, event)
    return {} if event == "start_map" else _SCALAR[event]


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
# an escaped surrogate that is not half of a pair (the escape's backslash itself not escaped)
_LONE_SURROGATE = re.compile(
    rb"(?<!\\)(?:\\\\)*\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<!\\)(?:\\\\)*(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def _lone_surrogate(f: BinaryIO) -> bool:
    """Does the body escape a lone UTF-16 surrogate? orjson refuses it as not JSON; ijson would read it as '?'.
    A fast scan for any surrogate escape first; only a body with one is searched as a whole (mapped, not read)."""
    tail = b""
    while chunk := f.read(1024 * 1024):
        if _SURROGATE_ESCAPE.search(tail + chunk):
            break
        tail = chunk[-5:]
    else:
        return False
    f.seek(0)
    if isinstance(f, io.BytesIO):
        return _LONE_SURROGATE.search(f.getbuffer()) is not None
    with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as whole:
        return _LONE_SURROGATE.search(whole) is not None


_ABSENT = object()  # no pagination block in the body


def skeleton(f: BinaryIO, key: str | None, block: str) -> tuple[Any, Any]:
    """(a value of the body's shape, the pagination block or _ABSENT): what the in-loop check looks at, read from the
    body's parse events without building it. Raises _INVALID errors for a body that is not JSON, _Twice."""
    events = iter(ijson.basic_parse(f, use_float=True))
    event, value = next(events)
    page: Any = _ABSENT
    if event == "start_map":
        shape: Any = {}
        for event, value in events:
            if event == "end_map":
                break
            name = value  # a map_key at the root
            event, value = next(events)
            if name == key:
                if key in shape:
                    raise _Twice(key)
                shape[key] = _value(events, event)
            elif name == block:
                page = _build(events, event, value)
            else:
                _skip(events, event)
    elif event == "start_array":
        shape = _entries(events)
    else:
        shape = _SCALAR[event]
    for _ in events:  # the rest must be nothing (ijson raises on trailing bytes or a truncated body)
        pass
    return shape, page


def _blank(f: BinaryIO) -> bool:
    while chunk := f.read(65536):
        if chunk.strip():
            return False
    return True


def inspect(job: Job, lookup_ids: tuple[tuple[str, str], ...] = (), page: int = 1) -> tuple[str, Any]:
    """("ok", Found) or ("error", ...): the in-loop check of a list or billing answer, from the parse events.
    A later page (page > 1) must be a JSON object (the in-loop pager's own check)."""
    table, backward, v1 = _WORKER
    route = table[job.op_id]
    key = route.list_key or route.records_key
    pagination = backward.m.conventions.pagination
    try:
        with _open(job.source) as f:
            if _blank(f):
                shape, block, body = None, _ABSENT, b""
            else:
                f.seek(0)
                try:
                    if _lone_surrogate(f):
                        raise ValueError("a lone surrogate escape")
                    f.seek(0)
                    shape, block = skeleton(f, key, pagination.block)
                except _INVALID:
                    shape, block = None, _ABSENT
                body = b"{}"
        if page > 1 and not isinstance(shape, dict):
            raise v1.not_a_page(route.label, page)
        problem = v1._not_an_answer(route, _response(job, body, shape), job.call, creates=job.creates)
        if problem is not None:
            raise problem
        page_data = {pagination.block: block} if block is not _ABSENT else {}
        # a paginated list's page is checked as the in-loop pager checks it (its block, from the parse events)
        more = route.paginated and v1.checked_more(pagination, page_data if isinstance(shape, dict) else shape,
                                                   page, route.label)
        prefix = f"{key}.item" if isinstance(shape, dict) else "item"
        ids: dict[str, list[str]] = {}
        if lookup_ids:
            found: dict[str, dict[str, None]] = {name: {} for name, _ in lookup_ids}
            with _open(job.source) as f:
                for item in ijson.items(f, prefix, use_float=True):
                    for name, path in lookup_ids:
                        found[name].update((str(v), None) for v in values_at(item, path))
            ids = {name: list(values) for name, values in found.items()}
        return "ok", Found(type(shape).__name__, prefix, bool(more), page_data, ids)
    except _Twice as twice:
        return _error(UpstreamError(f"the v2 upstream answered {job.status} to {job.call} ({route.op_id}) with "
                                    f"{str(twice)!r} twice in one object"))
    except V1bridgeError as exc:
        return _error(exc)


# ------------------------------------------------------------------ the translation: one entry at a time


def _not_json(job: Job, route, v1) -> V1bridgeError:
    """A body ijson read but orjson would not (a lone surrogate escape): the in-loop path's 502 for it."""
    return v1._not_an_answer(route, _response(job, b"{}", None), job.call, creates=job.creates)


def _items(job: Job, found: Found) -> Iterator[dict[str, Any]]:
    with _open(job.source) as f:
        yield from ijson.items(f, found.prefix, use_float=True)


def translate_list(job: Job, found: Found, lookups: dict[str, Any], out: str | None,
                   state: tuple[int, set[Any] | None]) -> tuple[str, Any]:
    """Append one page's v1 entries to the output file `out` (made when None): ("ok", (out, state)).
    state = (entries written, ids seen or None): the ListBuilder's bookkeeping across pages."""
    table, backward, v1 = _WORKER
    route = table[job.op_id]
    plan = job.plan(route)
    ctx = ResponseContext(includes=job.includes, lookups=lookups)
    translate = backward.translators.responses[route.op.response].translate
    filters = plan.filters
    written, seen = state
    if out is None:
        try:
            out = _output_file()
        except OSError as exc:
            return _error(no_room(exc))
    try:
        with open(out, "ab", buffering=_WRITE_BUFFER) as sink:
            if written == 0 and sink.tell() == 0:
                sink.write(b"[")
            for item in _items(job, found):
                if filters and not passes(item, filters):
                    continue
                if seen is not None:
                    seen.add(item.get("id"))
                v1_item = orjson.dumps(translate(item, ctx))
                sink.write(b"," + v1_item if written else v1_item)
                written += 1
        return "ok", (out, (written, seen))
    except (orjson.JSONEncodeError, *_INVALID):  # what the check passed cannot fail here; if it did, no answer
        _remove(out)
        return _error(_not_json(job, route, v1))
    except V1bridgeError as exc:
        _remove(out)
        return _error(exc)
    except OSError as exc:
        _remove(out)
        return _error(no_room(exc))
    except BaseException:
        _remove(out)
        raise


def finish_list(op_id: str, filters: tuple[Filter, ...], includes: frozenset[str], lookups: dict[str, Any],
                extra: list[dict[str, Any]], out: str, state: tuple[int, set[Any] | None]) -> tuple[str, Any]:
    """The entries a lookup adds after the last page (catalog templates, each once), and the closing bracket:
    ("ok", size of the output file)."""
    table, backward, v1 = _WORKER
    route = table[op_id]
    translate = backward.translators.responses[route.op.response].translate
    ctx = ResponseContext(includes=includes, lookups=lookups)
    written, seen = state
    seen = set() if seen is None else seen
    try:
        with open(out, "ab", buffering=_WRITE_BUFFER) as sink:
            if written == 0 and sink.tell() == 0:
                sink.write(b"[")
            for item in extra:
                if item.get("id") not in seen and passes(item, list(filters)):
                    seen.add(item.get("id"))
                    v1_item = orjson.dumps(translate(item, ctx))
                    sink.write(b"," + v1_item if written else v1_item)
                    written += 1
            sink.write(b"]")
        return "ok", os.path.getsize(out)
    except OSError as exc:
        return _error(no_room(exc))


def translate_billing(job: Job, found: Found, lookups: dict[str, Any]) -> tuple[str, Any]:
    """A billing answer's v1 records to a new output file: ("ok", (path, size)). Aggregation and grouping keep
    one bucket per group; records without either are written as they are translated."""
    table, backward, v1 = _WORKER
    route = table[job.op_id]
    plan = job.plan(route)
    ctx = ResponseContext(includes=job.includes, lookups=lookups)
    compiled = backward.translators.responses[route.op.response]
    try:
        out = _output_file()
    except OSError as exc:
        return _error(no_room(exc))
    try:
        items = _items(job, found)
        if compiled.spec.aggregate is not None:
            records: Iterator[dict[str, Any]] = iter(compiled.translate_records(items, ctx))
        else:
            records = (compiled.translate(item, ctx) for item in items)
        post = [f for f in plan.filters if f.after_translation]
        if post:
            records = (r for r in records if passes(r, post))
        if plan.grouping:
            records = iter(group_records(records, plan.grouping_drop))
        with open(out, "wb", buffering=_WRITE_BUFFER) as sink:
            sink.write(b"[")
            first = True
            for record in records:
                sink.write(orjson.dumps(record) if first else b"," + orjson.dumps(record))
                first = False
            sink.write(b"]")
        return "ok", (out, os.path.getsize(out))
    except (orjson.JSONEncodeError, *_INVALID):  # what the check passed cannot fail here; if it did, no answer
        _remove(out)
        return _error(_not_json(job, route, v1))
    except V1bridgeError as exc:
        _remove(out)
        return _error(exc)
    except OSError as exc:
        _remove(out)
        return _error(no_room(exc))
    except BaseException:
        _remove(out)
        raise


def translate_whole(job: Job) -> tuple[str, Any]:
    """A single large object (no lookups): read whole here, in the worker, never in the loop. ("ok", v1 bytes)."""
    table, backward, v1 = _WORKER
    route = table[job.op_id]
    with _open(job.source) as f:
        resp = UpstreamResponse(job.status, _response(job, b"", None).headers, f.read())
    try:
        problem = v1._not_an_answer(route, resp, job.call, creates=job.creates)
        if problem is not None:
            raise problem
        plan = job.plan(route)
        out = backward.translate(plan, resp.json(), backward.context(plan, {}))
        return "ok", orjson.dumps(out)
    except V1bridgeError as exc:
        return _error(exc)


def _output_file() -> str:
    fd, path = tempfile.mkstemp(prefix="v1bridge-v1-", suffix=".json")
    os.close(fd)
    return path


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


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
        _remove(path)
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
            _remove(out)
        raise
    finally:
        if resp.spool is not None:
            await _release(resp)
    # one page: the status rule of a single answer; several: the v1 list's own status (the in-loop pager's)
    status = service.v1_status(call, plan, resp) if page == 1 else route.op.v1_status
    assert out is not None
    return await _file_answer(out, status, upstream_headers(resp))


async def continue_pages(service, call, plan: Plan, resp: UpstreamResponse, page: int, chunks: list[bytes],
                         seen: set[Any] | None, cache: dict[str, Any], extra: list[dict[str, Any]],
                         cursors: set[str]) -> web.StreamResponse:
    """The in-loop pager met a large (spooled) later page: what it built so far goes to the output file, and this
    page and the rest are translated here."""
    assert plan.request is not None
    def start() -> str:
        name = _output_file()
        try:
            with open(name, "wb") as sink:
                sink.write(b"[" + b",".join(chunks))
        except BaseException:
            _remove(name)
            raise
        return name

    try:
        out = await asyncio.get_running_loop().run_in_executor(None, start)
    except OSError as exc:
        await _release(resp)
        raise no_room(exc) from None
    written = 1 if chunks else 0
    chunks.clear()  # on disk now: the in-loop pager's list no longer holds them
    try:
        job = job_for(plan, resp, f"{plan.request.method} {plan.request.path} (page {page})", False)
        found = await _run(service, inspect, job, _id_lookups(plan), page)
    except BaseException:
        _remove(out)
        if resp.spool is not None:
            await _release(resp)
        raise
    return await pages(service, call, plan, resp, job, found, page, out, (written, seen), cache, extra, cursors)


def new_pool(processes: int) -> ProcessPoolExecutor:
    """Spawned, not forked: the proxy process has threads (the event loop's executor, the parent watch)."""
    return ProcessPoolExecutor(max_workers=processes, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start, initargs=(os.getpid(),))


__all__ = ["AnswerPool", "Found", "Job", "ProcessPoolExecutor", "answer", "continue_pages", "finish_list", "inspect", "job_for", "new_pool", "pages",
           "raise_from", "translate_billing", "translate_list", "translate_whole"]
