"""Proxy settings: one frozen object built by the CLI, the gunicorn factory or a test."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Mapping

from proxy import embedded

ENV_SALT = "V1BRIDGE_FINGERPRINT_SALT"
EVENT_LOOPS = ("asyncio", "uvloop")  # `--loop`: proxy.serving.event_loop


def default_salt() -> str | None:
    """The salt from the environment; None: the one kept with the usage records (telemetry.stored_salt), or
    without a usage directory a random one per process."""
    return os.environ.get(ENV_SALT) or None


@dataclass
class ProxyConfig:
    """Everything one proxy process needs.

    `upstream` is the v2 host root (the proxy appends /v2/...); None embeds
    the sandbox on an ephemeral loopback port. `strict` names policies that
    answer 501 instead of emulating ("all" for every one).
    """

    upstream: str | None = None
    host: str = "127.0.0.1"
    port: int = 8080
    workers: int = 1
    strict: frozenset[str] = frozenset()
    # policies whose data default is strict but should emulate here
    emulate: frozenset[str] = frozenset()
    connect_timeout: float = 3.0
    total_timeout: float = 30.0
    max_body: int = 1024 * 1024
    usage_dir: str | None = None
    fingerprint_salt: str | None = field(default_factory=default_salt, repr=False)  # never in a log line
    # embedded sandbox only
    keys: list[str] = field(default_factory=list)
    db_path: str | None = None
    sandbox_transition_seconds: float = 0.0
    # GET retries on connection failures (idempotent only)
    get_retries: int = 2
    # open connections to the upstream, per process; further calls wait for one (bounded by total_timeout)
    upstream_connections: int = 100
    # a /v2 stream (logs, SSE) may stay silent this long between two chunks before it is cut
    stream_idle_timeout: float = 60.0
    # reset emulation: how long start may keep answering 409 while the stop settles
    reset_wait_seconds: float = 60.0
    # ... and how many times it is re-sent at most
    step_retries: int = 8
    # one v1 request's overall deadline: no emulation step (walk create, reset stop/start, follow-up PATCH,
    # retry) starts after it; well under the 30-60 s clients commonly wait
    request_deadline: float = 20.0
    # per-item reads of an include* expansion in flight at once, per request
    lookup_concurrency: int = 16
    # JSON nesting a v1 body may have (v1 bodies are 3 deep; validators recurse)
    max_body_depth: int = 32
    # how long a client may take to send its whole request body (slow-client guard, 408 after)
    client_timeout: float = 30.0
    # v2 answers of this many bytes and more are translated in a worker process, off the event loop (0: never)
    large_answer: int = 1024 * 1024
    # memory (bytes) for v1 lists built page by page, all requests of the process together; a list past it goes
    # on from files (answer.Budget; 0: no bound)
    answer_memory: int = 64 * 1024 * 1024
    # a v2 answer larger than this once decoded (gzip, deflate) is refused (502)
    max_answer: int = 256 * 1024 * 1024
    # CA bundle that verifies an https upstream (default: SSL_CERT_FILE / SSL_CERT_DIR, else the system's)
    upstream_ca: str | None = None
    # ... in a pool of this many processes per proxy process, started at the first large answer
    answer_processes: int = 2
    # how long catalog lookups are reused
    catalog_ttl: float = 60.0
    access_log: bool = True
    # overload: requests (v1 and v2) answered at once by this process; past it a 503 with Retry-After (0: no limit).
    # High enough that a slow upstream (requests waiting, not computing) is not throttled by it.
    max_inflight: int = 1024
    # connections the kernel completes and queues for accept() on each listening socket (Linux caps it at
    # net.core.somaxconn). aiohttp's default, 128, overflowed in a burst of 400 connections: the kernel dropped the
    # SYNs past it and those clients retried after 1 s (the p99 of about 1 s in the overload runs). gunicorn's
    # and uvicorn's default.
    backlog: int = 2048
    # the serving process's event loop, "asyncio" or "uvloop" (app.event_loop says why asyncio's is the default)
    event_loop: str = "asyncio"
    # several processes: the directory where each writes its metrics for one scrape to cover all (telemetry.Metrics)
    metrics_dir: str | None = None
    retry_after: int = 1

    def strict_map(self, policy_ids: list[str]) -> dict[str, bool]:
        """The translator's {policy: strict?}; policies not named keep their mapping default."""
        everything = "all" in self.strict
        out = {pid: False for pid in policy_ids if pid in self.emulate}
        out.update({pid: True for pid in policy_ids if everything or pid in self.strict})
        return out


def config_from_env(env: Mapping[str, str]) -> ProxyConfig:
    """For gunicorn: V1BRIDGE_UPSTREAM, V1BRIDGE_STRICT (comma list), V1BRIDGE_USAGE_DIR, V1BRIDGE_TIMEOUT, ..."""
    def listed(name: str) -> frozenset[str]:
        return frozenset(p.strip() for p in env.get(name, "").split(",") if p.strip())

    keys: list[str] = []
    upstream = env.get("V1BRIDGE_UPSTREAM") or None
    if upstream is None:
        keys, generated = embedded.sandbox_keys(None, env.get("V1BRIDGE_KEYS_FILE"), env)
        if generated:
            print(f"v1bridge proxy: development key {keys[0]}", file=sys.stderr)
    return ProxyConfig(
        upstream=upstream.rstrip("/") if upstream else None,
        strict=listed("V1BRIDGE_STRICT"),
        emulate=listed("V1BRIDGE_EMULATE"),
        connect_timeout=float(env.get("V1BRIDGE_CONNECT_TIMEOUT", 3.0)),
        total_timeout=float(env.get("V1BRIDGE_TIMEOUT", 30.0)),
        request_deadline=float(env.get("V1BRIDGE_DEADLINE", 20.0)),
        upstream_connections=max(1, int(env.get("V1BRIDGE_UPSTREAM_CONNECTIONS", 100))),
        stream_idle_timeout=float(env.get("V1BRIDGE_STREAM_IDLE_TIMEOUT", 60.0)),
        step_retries=max(0, int(env.get("V1BRIDGE_STEP_RETRIES", ProxyConfig.step_retries))),
        lookup_concurrency=max(1, int(env.get("V1BRIDGE_LOOKUP_CONCURRENCY", ProxyConfig.lookup_concurrency))),
        max_body=int(env.get("V1BRIDGE_MAX_BODY", 1024 * 1024)),
        large_answer=max(0, int(env.get("V1BRIDGE_LARGE_ANSWER", ProxyConfig.large_answer))),
        answer_memory=max(0, int(env.get("V1BRIDGE_ANSWER_MEMORY", ProxyConfig.answer_memory))),
        max_answer=max(1, int(env.get("V1BRIDGE_MAX_ANSWER", ProxyConfig.max_answer))),
        upstream_ca=env.get("V1BRIDGE_UPSTREAM_CA") or None,
        answer_processes=max(1, int(env.get("V1BRIDGE_ANSWER_PROCESSES", ProxyConfig.answer_processes))),
        usage_dir=env.get("V1BRIDGE_USAGE_DIR") or None,
        keys=keys,
        db_path=env.get("V1BRIDGE_DB") or None,
        max_inflight=max(0, int(env.get("V1BRIDGE_MAX_INFLIGHT", ProxyConfig.max_inflight))),
    )
