"""Metrics, the JSON access log and usage records: everything observed per request.

Labels are route templates and operation ids, never raw paths; the client is a
salted hash of its Authorization value, never the value.
"""
from __future__ import annotations

import hashlib
import logging
import os
import socket
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

access_logger = logging.getLogger("v1bridge.access")

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


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

    def observe_upstream(self, call: str, seconds: float) -> None:
        self.upstream_latency.labels(call or "other").observe(seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)


def fingerprint(authorization: str | None, salt: str) -> str:
    if not authorization:
        return "anonymous"
    return hashlib.sha256((salt + "\x00" + authorization).encode()).hexdigest()[:16]


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class UsageLog:
    """JSON Lines, one file per process (docs/CONTRACTS.md); opened lazily in the serving process."""

    def __init__(self, directory: str | None) -> None:
        self.directory = Path(directory) if directory else None
        self.proxy = f"{socket.gethostname()}:{os.getpid()}"
        self._handle: Any = None
        self._lock = threading.Lock()

    @property
    def path(self) -> Path | None:
        if self.directory is None:
            return None
        return self.directory / f"usage-{socket.gethostname()}-{os.getpid()}.jsonl"

    def open(self) -> None:
        if self.directory is None:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        self.proxy = f"{socket.gethostname()}:{os.getpid()}"
        self._handle = open(self.path, "ab", buffering=0)  # noqa: SIM115 - kept for the process lifetime

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def write(self, record: dict[str, Any]) -> None:
        if self._handle is None:
            return
        record["proxy"] = self.proxy
        line = orjson.dumps(record) + b"\n"
        with self._lock:
            self._handle.write(line)


def configure_access_log(enabled: bool) -> None:
    """Access lines go to stderr as bare JSON objects, one per line."""
    if not enabled or access_logger.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    access_logger.addHandler(handler)
    access_logger.setLevel(logging.INFO)
    access_logger.propagate = False
