"""Metrics, the JSON access log and usage records: everything observed per request.

Labels are route templates and operation ids, never raw paths; the client is a
salted hash of its Authorization value, never the value.

Hot-path costs are kept to a dict lookup or a list append: metrics are plain
ints per label tuple (exposed by a Collector at scrape time), fingerprints per Authorization value, the timestamp
prefix per second, and log lines are buffered in memory and written in one
syscall per batch (at most `FLUSH_SECONDS` late, and always at shutdown) rather
than through `logging` and one unbuffered write per request.
"""
from __future__ import annotations

import asyncio
import hashlib
import logging
from bisect import bisect_left
import os
import secrets
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, BinaryIO, Callable, Sequence

import orjson
from aiohttp import hdrs
from multidict import istr
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily
from prometheus_client.utils import floatToGoString

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
FLUSH_SECONDS = 1.0
FLUSH_BYTES = 64 * 1024
_FINGERPRINT_CACHE = 4096

log = logging.getLogger("v1bridge.proxy")


# name, help, label names of each metric (the in-process Collector and the shared files use the same)
REQUESTS = ("v1bridge_requests", "Requests served, by v1 operation or route template and status",
            ("api", "operation", "route", "method", "status"))
EMULATIONS = ("v1bridge_emulations", "Emulations applied, by policy", ("policy",))
REQUEST_SECONDS = ("v1bridge_request_seconds",
                   "Time to answer a request, by api (v1 translated, v2 pass-through, ops)", ("api",))
UPSTREAM_SECONDS = ("v1bridge_upstream_seconds", "Latency of calls to the v2 upstream, by call kind", ("call",))
RECORD_FAILURES = ("v1bridge_record_write_failures",
                   "Writes of the access log or usage records that failed (the answer stood)", ("log",))
RECORD_LINES_LOST = ("v1bridge_record_lines_lost", "Access-log or usage lines that were not written", ("log",))
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
REQUEST_ID = istr("x-request-id")  # an istr: looked up without folding its case per request


class Metrics:
    """One registry per app, so several apps (tests, workers) never share counters.

    The hot path only touches plain Python numbers: a dict of counters keyed by the label tuple and, per
    histogram, one list of bucket counts plus a sum (bisect over the bucket bounds). No prometheus_client
    child, lock or label validation per request. One event loop per process, so no lock is needed.

    One process (`shared_dir` None): a custom Collector turns the numbers into metric families at scrape time.
    Several processes (`--workers N`, gunicorn): each process also writes every changed value into its own
    files in `shared_dir`, in prometheus-client's multiprocess format (counter_<pid>.db, histogram_<pid>.db,
    written with the library's MmapedDict under its mmap keys), and a scrape, whichever process answers it,
    reads all of them with the library's MultiProcessCollector: one scrape covers every process, including
    workers that have exited (counters never go back).
    """

    def __init__(self, shared_dir: str | None = None) -> None:
        # auto_describe only for the in-process collector: with it, registering the multiprocess collector reads
        # every worker's file, and a file another worker has just created (still 0 bytes, before MmapedDict sizes
        # it) failed this worker's start (struct.error) now and then
        self.registry = CollectorRegistry(auto_describe=not shared_dir)
        self._requests: dict[tuple[str, str, str, str, str], list[Any]] = {}  # key -> [count, mmap key]
        self._emulations: dict[str, list[Any]] = {}
        self._request_latency: dict[str, list[Any]] = {}  # api -> [bucket counts..., sum]
        self._upstream_latency: dict[str, list[Any]] = {}  # call -> [bucket counts..., sum]
        self._shared_keys: dict[int, list[str]] = {}  # id(histogram slots) -> mmap keys, same order
        self._record_failures: dict[str, list[Any]] = {}  # log -> [failed writes, lines lost, mmap keys]
        self.shared_dir = shared_dir
        self._counter_file: Any = None
        self._histogram_file: Any = None
        if shared_dir:
            from prometheus_client.mmap_dict import MmapedDict
            from prometheus_client.multiprocess import MultiProcessCollector

            os.makedirs(shared_dir, exist_ok=True)
            pid = os.getpid()
            self._counter_file = MmapedDict(os.path.join(shared_dir, f"counter_{pid}.db"))
            self._histogram_file = MmapedDict(os.path.join(shared_dir, f"histogram_{pid}.db"))
            MultiProcessCollector(self.registry, path=shared_dir)
        else:
            self.registry.register(_Collector(self))

    @staticmethod
    def _counter_key(metric: tuple[str, str, tuple[str, ...]], values: tuple[str, ...]) -> str:
        from prometheus_client.mmap_dict import mmap_key

        name, doc, labels = metric
        return mmap_key(name, name + "_total", list(labels), list(values), doc)

    def _histogram_slots(self, metric: tuple[str, str, tuple[str, ...]], store: dict[str, list[Any]],
                         key: str) -> list[Any]:
        """One histogram series: its bucket counts and sum (and, shared, their mmap keys in _shared_keys)."""
        slots = store.get(key)
        if slots is None:
            slots = store[key] = [0] * (len(LATENCY_BUCKETS) + 1) + [0.0]
            if self._histogram_file is not None:
                from prometheus_client.mmap_dict import mmap_key

                name, doc, labels = metric
                keys = [mmap_key(name, name + "_bucket", [*labels, "le"], [key, bound], doc) for bound in _BOUNDS]
                keys.append(mmap_key(name, name + "_sum", list(labels), [key], doc))
                self._shared_keys[id(slots)] = keys
        return slots

    def _observe(self, metric: tuple[str, str, tuple[str, ...]], store: dict[str, list[Any]], key: str,
                 seconds: float) -> None:
        slots = self._histogram_slots(metric, store, key)
        index = bisect_left(LATENCY_BUCKETS, seconds)
        slots[index] += 1
        slots[-1] += seconds
        shared = self._histogram_file
        if shared is not None:
            keys = self._shared_keys[id(slots)]
            shared.write_value(keys[index], slots[index], 0.0)
            shared.write_value(keys[-1], slots[-1], 0.0)

    def request_counter(self, api: str, operation: str, route: str, method: str) -> Callable[[int, float], None]:
        """`count(status, seconds)` for the requests of one route and method: their counter per status and the
        api's latency histogram, looked up once here instead of by label tuple per request."""
        by_status: dict[int, list[Any]] = {}
        latency = self._histogram_slots(REQUEST_SECONDS, self._request_latency, api)
        shared = self._histogram_file
        shared_keys = self._shared_keys.get(id(latency))

        def count(status: int, seconds: float) -> None:
            slot = by_status.get(status)
            if slot is None:
                slot = by_status[status] = self._request_slot((api, operation, route, method, str(status)))
            slot[0] += 1
            index = bisect_left(LATENCY_BUCKETS, seconds)
            latency[index] += 1
            latency[-1] += seconds
            if shared is not None:
                self._counter_file.write_value(slot[1], slot[0], 0.0)
                shared.write_value(shared_keys[index], latency[index], 0.0)
                shared.write_value(shared_keys[-1], latency[-1], 0.0)

        return count

    def _request_slot(self, key: tuple[str, str, str, str, str]) -> list[Any]:
        slot = self._requests.get(key)
        if slot is None:
            slot = self._requests[key] = [0, self._counter_key(REQUESTS, key) if self._counter_file else None]
        return slot

    def count_emulation(self, policy: str) -> None:
        slot = self._emulations.get(policy)
        if slot is None:
            slot = self._emulations[policy] = [0, self._counter_key(EMULATIONS, (policy,)) if self._counter_file
                                               else None]
        slot[0] += 1
        if self._counter_file is not None:
            self._counter_file.write_value(slot[1], slot[0], 0.0)

    def count_record_failure(self, log_name: str, lines: int) -> None:
        """A batch of access-log or usage lines (or one request's observation) that could not be recorded."""
        slot = self._record_failures.get(log_name)
        if slot is None:
            keys = ((self._counter_key(RECORD_FAILURES, (log_name,)), self._counter_key(RECORD_LINES_LOST, (log_name,)))
                    if self._counter_file else None)
            slot = self._record_failures[log_name] = [0, 0, keys]
        slot[0] += 1
        slot[1] += lines
        if self._counter_file is not None:
            self._counter_file.write_value(slot[2][0], slot[0], 0.0)
            self._counter_file.write_value(slot[2][1], slot[1], 0.0)

    def observe_upstream(self, call: str, seconds: float) -> None:
        self._observe(UPSTREAM_SECONDS, self._upstream_latency, call or "other", seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)

    def close(self) -> None:
        for shared in (self._counter_file, self._histogram_file):
            if shared is not None:
                shared.close()
        self._counter_file = self._histogram_file = None


_BOUNDS = [*(floatToGoString(b) for b in LATENCY_BUCKETS), "+Inf"]


def _histogram(metric: tuple[str, str, tuple[str, ...]], store: dict[str, list[Any]]) -> HistogramMetricFamily:
    name, doc, labels = metric
    family = HistogramMetricFamily(name, doc, labels=list(labels))
    for key, slots in list(store.items()):
        counts = slots[:-1]
        total = 0
        buckets = []
        for bound, count in zip(_BOUNDS, counts):
            total += count
            buckets.append((bound, total))
        family.add_metric([key], buckets, slots[-1])
    return family


class _Collector:
    """The Metrics counters as prometheus metric families, built at scrape time (one process)."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def describe(self) -> list[Any]:
        return []

    def collect(self):
        m = self.metrics
        requests = CounterMetricFamily(REQUESTS[0], REQUESTS[1], labels=list(REQUESTS[2]))
        for key, slot in list(m._requests.items()):
            requests.add_metric(list(key), slot[0])
        yield requests
        yield _histogram(UPSTREAM_SECONDS, m._upstream_latency)
        emulations = CounterMetricFamily(EMULATIONS[0], EMULATIONS[1], labels=list(EMULATIONS[2]))
        for policy, slot in list(m._emulations.items()):
            emulations.add_metric([policy], slot[0])
        yield emulations
        yield _histogram(REQUEST_SECONDS, m._request_latency)
        failures = CounterMetricFamily(RECORD_FAILURES[0], RECORD_FAILURES[1], labels=list(RECORD_FAILURES[2]))
        lost = CounterMetricFamily(RECORD_LINES_LOST[0], RECORD_LINES_LOST[1], labels=list(RECORD_LINES_LOST[2]))
        for name, slot in list(m._record_failures.items()):
            failures.add_metric([name], slot[0])
            lost.add_metric([name], slot[1])
        yield failures
        yield lost


class Fingerprints(dict):
    """Authorization value -> the JSON string of its salted SHA-256 fingerprint (as a record carries it),
    memoised (bounded) so a busy client costs one hash."""

    def __init__(self, salt: str, size: int = _FINGERPRINT_CACHE) -> None:
        super().__init__()
        self.salt = salt
        self.size = size

    def __missing__(self, authorization: str | None) -> bytes:
        if len(self) >= self.size:
            self.clear()
        found = self[authorization] = json_value(fingerprint(authorization, self.salt))
        return found


def fingerprint(authorization: str | None, salt: str) -> str:
    if not authorization:
        return "anonymous"
    # surrogateescape: a header with a raw non-UTF-8 byte (aiohttp decodes those as surrogates) still hashes
    return hashlib.sha256((salt + "\x00" + authorization).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def printable(value: Any) -> Any:
    """A header value as it can be written to a JSON line: raw bytes that are not UTF-8 become \\xNN escapes."""
    if isinstance(value, str):
        try:
            value.encode()
        except UnicodeEncodeError:
            return value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        return value
    if isinstance(value, list):
        return [printable(v) for v in value]
    if isinstance(value, dict):
        return {printable(k): printable(v) for k, v in value.items()}
    return value


_second: list[Any] = [-1, b""]  # the second of the last stamp, its date-time part
_stamp: list[Any] = [-1, b""]  # the millisecond of the last stamp, the stamp
# b'.000Z"' to b'.999Z"': a format spec (`:03d`) per request costs about as much as the rest of the stamp ten times
_MILLIS = tuple(b'.%03dZ"' % ms for ms in range(1000))
_time_ns = time.time_ns


def json_now() -> bytes:
    """Now as the JSON string of an ISO 8601 UTC stamp with milliseconds: made once per millisecond, its
    date-time part once per second (integer nanoseconds: no float conversions)."""
    ms = _time_ns() // 1_000_000
    if ms != _stamp[0]:
        whole, millis = divmod(ms, 1000)
        if whole != _second[0]:
            _second[0], _second[1] = whole, b'"' + time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)).encode()
        _stamp[0], _stamp[1] = ms, _second[1] + _MILLIS[millis]
    return _stamp[1]


# the digits after the point of a whole number of microseconds in ms, as a JSON float writes them: .0, .5, .25, .125
_FRACTIONS = tuple(b"." + ((b"%03d" % us).rstrip(b"0") or b"0") for us in range(1000))
_WHOLE_MS = tuple(b"%d" % ms for ms in range(1000))


def duration_ms(microseconds: int) -> bytes:
    """A duration in ms with 3 decimals as the JSON number `orjson.dumps(microseconds / 1000)` writes (tables, no
    float formatting: a float's repr costs several times the rest of a record)."""
    whole = microseconds // 1000
    head = _WHOLE_MS[whole] if whole < 1000 else b"%d" % whole
    return head + _FRACTIONS[microseconds - whole * 1000]


def json_value(value: Any) -> bytes:
    """One JSON value; one carrying undecodable bytes (a raw header) is escaped rather than refused."""
    try:
        return orjson.dumps(value)
    except TypeError:  # orjson.JSONEncodeError: str with surrogates (raw bytes from a header)
        return orjson.dumps(printable(value), default=repr)


class JsonValues(dict):
    """value -> its JSON bytes, memoised (bounded): the header values a record repeats (User-Agent, request id)."""

    def __init__(self, size: int = _FINGERPRINT_CACHE) -> None:
        super().__init__({None: b"null"})
        self.size = size

    def __missing__(self, value: str) -> bytes:
        if len(self) >= self.size:
            self.clear()
            self[None] = b"null"
        found = self[value] = json_value(value)
        return found


VALUE = object()  # a field of a line pattern whose value each record brings (as JSON bytes)


def line_pattern(fields: list[tuple[str, Any]]) -> bytes:
    """A JSON object line as a bytes %-pattern: keys and constant values serialised once, a `%s` for each
    field whose value is VALUE. `pattern % (json bytes, ...)` is the line orjson writes for the dict of the same
    fields in the same order."""
    parts = []
    for key, value in fields:
        name = json_value(key).replace(b"%", b"%%")
        parts.append(name + b":" + (b"%s" if value is VALUE else json_value(value).replace(b"%", b"%%")))
    return b"{" + b",".join(parts) + b"}\n"


class LineBuffer:
    """JSON lines collected in memory and written in batches: by size, every FLUSH_SECONDS, and at close.

    A write that fails (disk full, stream closed) never reaches the request that triggered it: the batch is
    dropped, counted through `failed(lines)` and logged once (and once more when writing works again); the
    periodic flush keeps running whatever happens.
    """

    def __init__(self, sink: Callable[[bytes], None] | None = None, name: str = "log",
                 failed: Callable[[int], None] | None = None) -> None:
        self._sink = sink
        self._name = name
        self._failed = failed
        self._failing = False
        self._lines: list[bytes] = []
        self._size = 0
        self._timer: asyncio.TimerHandle | None = None

    def add(self, line: bytes) -> None:
        self._lines.append(line)
        self._size += len(line)
        if self._size >= FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        if not self._lines or self._sink is None:
            return
        data = b"".join(self._lines)
        count = len(self._lines)
        self._lines.clear()
        self._size = 0
        try:
            self._sink(data)
        except Exception as exc:  # noqa: BLE001 - whatever the sink raises, the answer already stands
            if self._failed is not None:
                self._failed(count)
            if not self._failing:
                self._failing = True
                log.error("v1bridge: %s lines could not be written (%s: %s); further failures are counted in "
                          "v1bridge_record_write_failures_total{log=%r}, not logged", self._name,
                          type(exc).__name__, exc, self._name)
            return
        if self._failing:
            self._failing = False
            log.warning("v1bridge: %s lines are written again", self._name)

    def start(self) -> None:
        """Flush periodically on the running loop (call from the serving process)."""
        loop = asyncio.get_running_loop()

        def tick() -> None:
            try:
                self.flush()
            finally:  # the loop outlives any error
                self._timer = loop.call_later(FLUSH_SECONDS, tick)

        self._timer = loop.call_later(FLUSH_SECONDS, tick)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.flush()


SALT_FILE = "fingerprint-salt"


def stored_salt(directory: str | Path) -> str:
    """The salt in `directory/SALT_FILE`, created once if missing. Created atomically and safely with concurrent
    workers: written whole to a private temporary file (mode 0600), then hard-linked into place; a process whose
    link finds the file already there uses the one that won. Never logged."""
    path = os.path.join(directory, SALT_FILE)
    try:
        return _read_salt(path)
    except FileNotFoundError:
        pass
    os.makedirs(directory, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=f".{SALT_FILE}-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_hex(16).encode("ascii") + b"\n")
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another worker's salt is in place: use it
    finally:
        os.unlink(temporary)
    return _read_salt(path)


def _read_salt(path: str) -> str:
    with open(path, "rb") as f:
        salt = f.read().strip().decode("ascii", "replace")
    if not salt:
        raise ValueError(f"{path} is empty; remove it to have a new fingerprint salt made")
    return salt


class UsageLog:
    """JSON Lines, one file per process (docs/CONTRACTS.md); opened lazily in the serving process."""

    def __init__(self, directory: str | None, metrics: Metrics | None = None) -> None:
        self.directory = Path(directory) if directory else None
        self.proxy = f"{socket.gethostname()}:{os.getpid()}"
        self._handle: BinaryIO | None = None
        failed = (lambda lines: metrics.count_record_failure("usage", lines)) if metrics else None
        self._buffer = LineBuffer(self._write, "usage", failed)
        self.add = self._buffer.add  # one record, a JSON line ending with this process's "proxy" (`proxy`)

    @property
    def path(self) -> Path | None:
        if self.directory is None:
            return None
        return self.directory / f"usage-{socket.gethostname()}-{os.getpid()}.jsonl"

    def salt(self) -> str:
        """The fingerprint salt kept with these records (`SALT_FILE`), made by the first process that needs it:
        every worker and every restart writing here fingerprints a key alike. Without a directory, a salt for
        this process only."""
        if self.directory is None:
            return secrets.token_hex(16)
        return stored_salt(self.directory)

    @property
    def enabled(self) -> bool:
        return self._handle is not None

    def open(self) -> None:
        if self.directory is None:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        self.proxy = f"{socket.gethostname()}:{os.getpid()}"
        self._handle = open(self.path, "ab", buffering=0)  # noqa: SIM115 - kept for the process lifetime
        self._buffer.start()

    def _write(self, data: bytes) -> None:
        if self._handle is not None:
            self._handle.write(data)  # O_APPEND, one write per batch: whole lines, never interleaved

    def flush(self) -> None:
        self._buffer.flush()

    def close(self) -> None:
        self._buffer.stop()
        if self._handle is not None:
            self._handle.close()
            self._handle = None



class AccessLog:
    """Bare JSON objects on stderr, one per line, written in batches (never a blocking write per request)."""

    def __init__(self, enabled: bool, stream: Any = None, metrics: Metrics | None = None) -> None:
        self.enabled = enabled
        self._stream = stream
        failed = (lambda lines: metrics.count_record_failure("access", lines)) if metrics else None
        self._buffer = LineBuffer(self._write, "access", failed)
        self.add = self._buffer.add  # one line (the buffer's own method: no call in between)

    def _write(self, data: bytes) -> None:
        stream = self._stream or sys.stderr
        raw = getattr(stream, "buffer", None)
        if raw is not None:
            raw.write(data)
            raw.flush()
        else:
            stream.write(data.decode())
            stream.flush()


    def start(self) -> None:
        if self.enabled:
            self._buffer.start()

    def flush(self) -> None:
        self._buffer.flush()

    def close(self) -> None:
        self._buffer.stop()


class RouteRecords:
    """What the requests of one route and method leave behind, prepared at the first of them: the metrics
    counter, and the access-log and usage patterns with their constant fields already serialised."""

    __slots__ = ("count", "access", "usage")

    def __init__(self, count: Callable[[int, float], None], access: bytes | None, usage: bytes | None) -> None:
        self.count = count
        self.access = access
        self.usage = usage


class Recorder:
    """Metrics, the access-log line and (v1 and GraphQL) the usage record of every request that is not an ops probe.

    A line is its route's pattern (line_pattern) filled with the request's values as JSON bytes: the stamp, the
    status, the duration, and memoised client fingerprints, User-Agents, request ids and rule lists. The same
    bytes as orjson writes for the record dict (tests/proxy/test_telemetry.py), at a fraction of the cost.
    """

    def __init__(self, metrics: Metrics, usage: UsageLog, access: AccessLog, salt: str | None,
                 policy_headers: dict[str, str]) -> None:
        """`salt`: the configured fingerprint salt; None: the one kept with the usage records (`UsageLog.salt`)."""
        self.metrics = metrics
        self.usage = usage
        self.access = access
        self.policy_headers = policy_headers
        self.clients = Fingerprints(salt or usage.salt())
        self.agents = JsonValues()
        self.request_ids = JsonValues()
        self._statuses: dict[int, bytes] = {}
        self._rules: dict[tuple[str, ...], bytes] = {(): b"[]"}
        self._routes: dict[tuple[str, str, str], RouteRecords] = {}

    def route(self, api: str, operation: str | None, label: str, method: str) -> RouteRecords:
        """The prepared records of one route and method (made at its first request, after the logs opened)."""
        key = (api, label, method)
        found = self._routes.get(key)
        if found is None:
            if len(self._routes) >= _FINGERPRINT_CACHE:  # methods are the client's to choose: bounded
                self._routes.clear()
            count = self.metrics.request_counter(api, operation or "", label, method)
            access = usage = None
            if api != "ops" and self.access.enabled:
                access = line_pattern([("time", VALUE), ("api", api), ("method", method), ("route", label),
                                       ("operation", operation), ("status", VALUE), ("duration_ms", VALUE),
                                       ("client", VALUE), ("emulations", VALUE), ("request_id", VALUE),
                                       ("delivered", VALUE), ("outcome", VALUE)])
            if api in ("v1", "graphql") and self.usage.enabled:  # who still calls the retiring APIs
                usage = line_pattern([("time", VALUE), ("operation", operation), ("route", label), ("method", method),
                                      ("status", VALUE), ("client", VALUE), ("user_agent", VALUE),
                                      ("emulations", VALUE), ("rules", VALUE), ("ignored", VALUE),
                                      ("duration_ms", VALUE), ("delivered", VALUE), ("outcome", VALUE),
                                      ("proxy", self.usage.proxy)])
            found = self._routes[key] = RouteRecords(count, access, usage)
        return found

    def record(self, records: RouteRecords, status: int, nanoseconds: int, headers: Any, authorization: str | None,
               emulations: Sequence[str], rules: Sequence[str], delivered: bool, outcome: str | None,
               ignored: Sequence[str] = ()) -> None:
        """One request: counted, and its lines added (`headers`: the request's; `ignored`: the v1 inputs not
        honoured, X-V1bridge-Ignored)."""
        records.count(status, nanoseconds / 1e9)
        if emulations:
            for policy in emulations:
                self.metrics.count_emulation(policy)
        access, usage = records.access, records.usage
        if access is None and usage is None:
            return
        stamp = json_now()
        code = self._statuses.get(status)
        if code is None:
            code = self._statuses[status] = b"%d" % status
        took = duration_ms(nanoseconds // 1000)
        client = self.clients[authorization or None]
        sent = b"true" if delivered else b"false"
        told = b"null" if outcome is None else json_value(outcome)
        if access is not None:
            names = json_value([self.policy_headers[p] for p in emulations if p in self.policy_headers]) \
                if emulations else b"[]"
            self.access.add(access % (stamp, code, took, client, names, self.request_ids[headers.get(REQUEST_ID)],
                                      sent, told))
        if usage is not None:
            key = tuple(rules)
            listed = self._rules.get(key)
            if listed is None:
                if len(self._rules) >= _FINGERPRINT_CACHE:
                    self._rules.clear()
                listed = self._rules[key] = json_value(rules)
            self.usage.add(usage % (stamp, code, client, self.agents[headers.get(hdrs.USER_AGENT)],
                                    json_value(emulations) if emulations else b"[]", listed,
                                    json_value(list(ignored)) if ignored else b"[]", took, sent, told))
