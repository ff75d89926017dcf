"""Pod and worker logs as Server-Sent Events: backfill, then live lines until the client leaves."""
from __future__ import annotations

import asyncio
from typing import Any

import orjson
from aiohttp import web

from .common import EXTRA_HEADERS, OWNER, QUERY, SANDBOX
from .pods import status_of
from .problems import Problem
from .serverless import workers_of
from .service import Sandbox, iso, parse_iso

SSE_HEADERS = {"Cache-Control": "no-cache", "Connection": "keep-alive", "X-Accel-Buffering": "no"}


def _history(subject: dict[str, Any], created: float, image: str, ports: list[str]) -> list[tuple[float, str, str]]:
    """The lines a container leaves behind on start-up, spaced a few hundred ms apart."""
    lines = [
        ("system", f"create container {image}"),
        ("system", f"{image} Pulling from registry"),
        ("system", "Digest verified, pull complete"),
        ("system", "create container endpoint"),
        ("system", "start container"),
        ("container", "==========  starting  =========="),
    ]
    for port in ports:
        lines.append(("container", f"listening on {port}"))
    lines.append(("container", "ready"))
    return [(created + 0.25 * i, src, line) for i, (src, line) in enumerate(lines)]


def _event(ts: float, source: str, line: str) -> bytes:
    stamp = iso(ts)
    data = orjson.dumps({"source": source, "line": line, "ts": stamp})
    return b"id: " + stamp.encode() + b"\ndata: " + data + b"\n\n"


async def _stream(
    request: web.Request, history: list[tuple[float, str, str]], alive: Any, label: str
) -> web.StreamResponse:
    sb: Sandbox = request.app[SANDBOX]
    q = request[QUERY]
    source = q.get("source")
    cursor_raw = request.headers.get("Last-Event-ID") or q.get("since")
    cursor = None
    if cursor_raw:
        try:
            cursor = parse_iso(cursor_raw)
        except ValueError:
            raise Problem(422, "Last-Event-ID must be an RFC 3339 time", [f"Last-Event-ID: '{cursor_raw}' is not a date-time"]) from None
    lines = [h for h in history if source is None or h[1] == source]
    if cursor is not None:
        lines = [h for h in lines if h[0] > cursor]
    else:
        tail = q.get("tail", 100)
        lines = lines[-tail:] if tail else []
    resp = web.StreamResponse(status=200, headers={**SSE_HEADERS, **request.get(EXTRA_HEADERS, {})})
    resp.content_type = "text/event-stream"
    await resp.prepare(request)
    for ts, src, line in lines:
        await resp.write(_event(ts, src, line))
    follow = sb.config.log_follow_seconds
    loop = asyncio.get_running_loop()
    deadline = None if follow is None else loop.time() + follow
    n = 0
    try:
        while alive() and (deadline is None or loop.time() < deadline):
            wait = sb.config.log_interval
            if deadline is not None:
                wait = min(wait, max(0.0, deadline - loop.time()))
            await asyncio.sleep(wait)
            if deadline is not None and loop.time() >= deadline:
                break
            n += 1
            if source in (None, "container"):
                await resp.write(_event(sb.clock(), "container", f"{label} heartbeat {n}"))
            elif n % 10 == 0:
                await resp.write(_event(sb.clock(), "system", f"{label} health check ok"))
    except (ConnectionResetError, asyncio.CancelledError):
        return resp
    try:
        await resp.write_eof()
    except ConnectionResetError:
        pass
    return resp


async def pod_logs(request: web.Request) -> web.StreamResponse:
    sb: Sandbox = request.app[SANDBOX]
    doc = sb.fetch("pod", request.match_info["id"], request[OWNER], "pod")
    created = parse_iso(doc["createdAt"])
    history = _history(doc, created, doc["image"], doc["ports"])
    pid = doc["id"]

    def alive() -> bool:
        current = sb.store.get("pod", pid)
        return current is not None and not current.get("_deleted") and status_of(sb, current, sb.clock()) != "EXITED"

    return await _stream(request, history, alive, f"pod {pid}")


async def worker_logs(request: web.Request) -> web.StreamResponse:
    sb: Sandbox = request.app[SANDBOX]
    doc = sb.fetch("endpoint", request.match_info["id"], request[OWNER], "endpoint")
    wid = request.match_info["workerId"]
    worker = next((w for w in workers_of(sb, doc) if w["id"] == wid), None)
    if worker is None:
        raise Problem(404, f"worker '{wid}' not found on endpoint '{doc['id']}'")
    started = parse_iso(worker["startedAt"]) if worker["startedAt"] else sb.clock()
    history = _history(doc, started, doc["image"], doc["ports"])
    eid = doc["id"]

    def alive() -> bool:
        current = sb.store.get("endpoint", eid)
        return current is not None and not current.get("_deleted") and any(
            w["id"] == wid for w in workers_of(sb, current)
        )

    return await _stream(request, history, alive, f"worker {wid}")
