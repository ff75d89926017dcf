"""The answer pool's worker side (proxy/offload.py sends it the work): a large v2 answer checked and translated as
a stream, one list entry at a time, into the v1 output file.

1. `inspect` checks it: one pass of ijson's C parser over the file, events only, learns whether it is JSON, what
   the root and the list container are, whether every entry is an object, and the pagination block; the verdict
   is put to the very `_not_an_answer` of the in-loop path (over a skeleton of the same types), so a body that is
   not an answer is the same v1 502, word for word; the ids the include* lookups need are collected in a second
   pass when the plan has such lookups;
2. `translate_list`, `translate_billing` translate it: ijson yields one list entry at a time, each is filtered,
   translated with the same compiled translators and written with orjson to the v1 output file; billing
   aggregation and v1 grouping keep one bucket per group, never the records.

Why ijson: a well-kept iterative JSON parser whose C backend (yajl2_c) yields list entries at orjson's speed
without building the document; numbers are parsed as floats (use_float), so the values, and orjson's output of
them, are the in-loop path's. A lone surrogate escape, which ijson would read as '?', is found by a scan of the
bytes and is the in-loop 502. Known differences on bodies no v2 server sends: an integer beyond 64 bits is a 502
here (orjson reads it as a float), and so is a list key given twice in one object (orjson keeps the last).

A worker is spawned, and imports only this module's needs: never aiohttp, the schema checks or the app
(tests/proxy/test_serving_memory.py holds it to that): each worker's memory counts in the proxy's.
"""
from __future__ import annotations

import io
import mmap
import os
import re
import signal
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any, BinaryIO, Iterator

import ijson
import orjson
from multidict import CIMultiDict, CIMultiDictProxy

from mappings.converters import ResponseContext
from mappings.errors import UpstreamError, V1bridgeError
from mappings.records import Filter, group_records, passes, values_at
from proxy.forward import Plan
from proxy.malloc import return_large_blocks
from proxy.upstream_answer import UpstreamResponse, no_room, remove_file

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


# per worker process: (route table, backward translator, the checks), built by start_worker
_WORKER: Any = None


def start_worker(parent: int) -> None:
    """Worker start: the translators once, SIGINT left to the parent, large freed blocks given back (a worker
    lives as long as the proxy), and no orphan if the parent dies."""
    global _WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return_large_blocks()
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


def _spool_failed(exc: BaseException, out: str, job: Job, route, v1) -> tuple[str, Any]:
    """A spool that failed is removed, never left half-written; the failure becomes the v1 error sent (an
    interruption goes on up)."""
    remove_file(out)
    if isinstance(exc, (orjson.JSONEncodeError, *_INVALID)):  # what the check passed cannot fail here; if it did,
        return _error(_not_json(job, route, v1))             # no answer
    if isinstance(exc, V1bridgeError):
        return _error(exc)
    if isinstance(exc, OSError):
        return _error(no_room(exc))
    raise exc


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
            out = output_file()
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
    except BaseException as exc:
        return _spool_failed(exc, out, job, route, v1)


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
        out = output_file()
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
    except BaseException as exc:
        return _spool_failed(exc, out, job, route, v1)


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


def output_file() -> str:
    fd, path = tempfile.mkstemp(prefix="v1bridge-v1-", suffix=".json")
    os.close(fd)
    return path
