"""Metrics, the JSON access log and usage records: everything observed per request.

Labels are route templates and operation ids, never raw paths; the client is a
salted hash of its Authorization value, never the value.

Hot-path costs are kept to a dict lookup or a list append: metric children are
cached per label tuple, fingerprints per Authorization value, the timestamp
prefix per second, and log lines are buffered in memory and written in one
syscall per batch (at most `FLUSH_SECONDS` late, and always at shutdown) rather
than through `logging` and one unbuffered write per request.
"""
from __future__ import annotations

import asyncio
import hashlib
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any, BinaryIO, Callable

import orjson
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
FLUSH_SECONDS = 1.0
FLUSH_BYTES = 64 * 1024
_FINGERPRINT_CACHE = 4096


class Metrics:
    """One registry per app, so several apps (tests, workers) never share counters."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "v1bridge_requests",
            "Requests served, by v1 operation or route template and status",
            ["api", "operation", "route", "method", "status"],
            registry=self.registry,
        )
        self.upstream_latency = Histogram(
            "v1bridge_upstream_seconds",
            "Latency of calls to the v2 upstream, by call kind",
            ["call"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.emulations = Counter(
            "v1bridge_emulations",
            "Emulations applied, by policy",
            ["policy"],
            registry=self.registry,
        )
        self.request_latency = Histogram(
            "v1bridge_request_seconds",
            "Time to answer a request, by api (v1 translated, v2 pass-through, ops)",
            ["api"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        # labels() hashes, validates and locks on every call; the children never change once made
        self._children: dict[tuple[Any, ...], Any] = {}

    def _child(self, metric: Any, labels: tuple[str, ...]) -> Any:
        key = (id(metric), *labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

    def count_request(self, api: str, operation: str, route: str, method: str, status: int, seconds: float) -> None:
        self._child(self.requests, (api, operation, route, method, str(status))).inc()
        self._child(self.request_latency, (api,)).observe(seconds)

    def count_emulation(self, policy: str) -> None:
        self._child(self.emulations, (policy,)).inc()

    def observe_upstream(self, call: str, seconds: float) -> None:
        self._child(self.upstream_latency, (call or "other",)).observe(seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)


class Fingerprints:
    """Salted SHA-256 of Authorization values, memoised (bounded) so a busy client costs one hash."""

    def __init__(self, salt: str, size: int = _FINGERPRINT_CACHE) -> None:
        self.salt = salt
        self.size = size
        self._cache: dict[str, str] = {}

    def __call__(self, authorization: str | None) -> str:
        if not authorization:
            return "anonymous"
        found = self._cache.get(authorization)
        if found is None:
            if len(self._cache) >= self.size:
                self._cache.clear()
            found = self._cache[authorization] = fingerprint(authorization, self.salt)
        return found


def fingerprint(authorization: str | None, salt: str) -> str:
    if not authorization:
        return "anonymous"
    return hashlib.sha256((salt + "\x00" + authorization).encode()).hexdigest()[:16]


_second: list[Any] = [-1, ""]


def now_iso() -> str:
    """ISO 8601 UTC with milliseconds; the date-time part is formatted once per second."""
    now = time.time()
    whole = int(now)
    if whole != _second[0]:
        _second[0], _second[1] = whole, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
    return f"{_second[1]}.{int((now - whole) * 1000):03d}Z"


class LineBuffer:
    """JSON lines collected in memory and written in batches: by size, every FLUSH_SECONDS, and at close."""

    def __init__(self, sink: Callable[[bytes], None] | None = None) -> None:
        self._sink = sink
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
        self._lines.clear()
        self._size = 0
        self._sink(data)

    def start(self) -> None:
        """Flush periodically on the running loop (call from the serving process)."""
        loop = asyncio.get_running_loop()

        def tick() -> None:
            self.flush()
            self._timer = loop.call_later(FLUSH_SECONDS, tick)

        self._timer = loop.call_later(FLUSH_SECONDS, tick)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.flush()


class UsageLog:
    """JSON Lines, one file per process (docs/CONTRACTS.md); opened lazily in the serving process."""

    def __init__(self, directory: str | None) -> None:
        self.directory = Path(directory) if directory else None
        self.proxy = f"{socket.gethostname()}:{os.getpid()}"
        self._handle: BinaryIO | None = None
        self._buffer = LineBuffer(self._write)

    @property
    def path(self) -> Path | None:
        if self.directory is None:
            return None
        return self.directory / f"usage-{socket.gethostname()}-{os.getpid()}.jsonl"

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

    def write(self, record: dict[str, Any]) -> None:
        if self._handle is None:
            return
        record["proxy"] = self.proxy
        self._buffer.add(orjson.dumps(record) + b"\n")


class AccessLog:
    """Bare JSON objects on stderr, one per line, written in batches (never a blocking write per request)."""

    def __init__(self, enabled: bool, stream: Any = None) -> None:
        self.enabled = enabled
        self._stream = stream
        self._buffer = LineBuffer(self._write)

    def _write(self, data: bytes) -> None:
        stream = self._stream or sys.stderr
        raw = getattr(stream, "buffer", None)
        try:
            if raw is not None:
                raw.write(data)
                raw.flush()
            else:
                stream.write(data.decode())
                stream.flush()
        except (OSError, ValueError):  # stderr closed or gone: losing log lines must not fail requests
            pass

    def write(self, record: dict[str, Any]) -> None:
        self._buffer.add(orjson.dumps(record) + b"\n")

    def start(self) -> None:
        if self.enabled:
            self._buffer.start()

    def flush(self) -> None:
        self._buffer.flush()

    def close(self) -> None:
        self._buffer.stop()
