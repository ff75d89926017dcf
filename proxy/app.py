"""The proxy app factory: v1 routes from mappings/, /v2 pass-through, ops endpoints, middlewares.

Everything that only depends on configuration (route table, translators,
header values, metric objects) is built here once; handlers only look up.
"""
from __future__ import annotations

import asyncio
import gc
import logging
import os
import time
from calendar import timegm
from datetime import datetime
from email.utils import formatdate
from typing import Any, AsyncIterator

import aiohttp
import orjson
from aiohttp import hdrs, web
from multidict import istr

from mappings import default_mappings
from proxy import embedded
from proxy.config import ProxyConfig
from proxy.confine import PassThroughRoutes
from mappings.errors import ClientInputError, V1bridgeError
from mappings import redact
from proxy.routes import RouteTable
from proxy.telemetry import AccessLog, Metrics, Recorder, RouteRecords, UsageLog
from proxy.upstream import USER_AGENT, Upstream, hop_filter
from proxy.context import INFO, RequestInfo
from proxy.v1 import V1Service

log = logging.getLogger("v1bridge.proxy")

CONFIG: web.AppKey[ProxyConfig] = web.AppKey("config", ProxyConfig)
UPSTREAM: web.AppKey[Upstream] = web.AppKey("upstream", Upstream)
UPSTREAM_URL: web.AppKey[str] = web.AppKey("upstream_url", str)
METRICS: web.AppKey[Metrics] = web.AppKey("metrics", Metrics)
USAGE: web.AppKey[UsageLog] = web.AppKey("usage", UsageLog)
ACCESS: web.AppKey[AccessLog] = web.AppKey("access", AccessLog)
SERVICE: web.AppKey[V1Service] = web.AppKey("service", V1Service)
TABLE: web.AppKey[RouteTable] = web.AppKey("routes", RouteTable)
SANDBOX_URL: web.AppKey[str] = web.AppKey("sandbox_url", str)
PASSTHROUGH: web.AppKey[PassThroughRoutes] = web.AppKey("passthrough", PassThroughRoutes)

_PROBLEM = "application/problem+json"


def _sunset_headers() -> tuple[str, str]:
    """RFC 9745 Deprecation (@epoch) and RFC 8594 Sunset (HTTP-date), both from conventions.sunset."""
    sunset = default_mappings().conventions.sunset
    moment = datetime.fromisoformat(sunset.replace("Z", "+00:00"))
    epoch = timegm(moment.utctimetuple())
    return f"@{epoch}", formatdate(epoch, usegmt=True)


# ----------------------------------------------------------------- middleware


def _middleware(app: web.Application):
    """The one middleware (one coroutine layer, not three): time the request, turn every error into v1's
    {"message"} (v2 callers get a problem object; no traceback ever leaves), add the v1 headers (Deprecation,
    Sunset, Link to the v2 successor, emulations, rules), then metrics, the access log and the usage record.
    Everything that depends only on configuration is computed here, once."""
    config = app[CONFIG]
    table = app[TABLE]
    conv = table.mappings.conventions
    error_key = conv.v1_error_key
    deprecation, sunset = _sunset_headers()
    # header names as istr: a CIMultiDict folds a plain str's case on every insert, an istr's once
    sunset_pair = ((istr("Deprecation"), deprecation), (istr("Sunset"), sunset))  # added in one call per v1 answer
    emulation_header, rule_header = istr(conv.emulation_header), istr(conv.rule_header)
    link = hdrs.LINK
    authorization = hdrs.AUTHORIZATION
    policy_header = {pid: p.header for pid, p in table.mappings.policies.items()}
    v1_prefix = table.v1_prefix + "/"
    v2_prefix = table.v2_prefix + "/"
    v2_label = table.v2_prefix + "/{path}"  # one metrics label for all pass-through traffic (no ids in labels)
    ops_paths = frozenset({"/healthz", "/readyz", "/metrics"})
    metrics = app[METRICS]
    recorder = Recorder(metrics, app[USAGE], app[ACCESS], config.fingerprint_salt, policy_header)
    prepare = recorder.route
    record = recorder.record
    clock = time.perf_counter_ns
    observe_failed: list[bool] = []  # logged once per process
    limit = config.max_inflight or 0
    shed_message = (f"the proxy is answering {limit} requests already; retry after {config.retry_after} s "
                    "(overload: requests past the in-flight limit are refused, not queued)")
    shed_headers = {"Retry-After": str(config.retry_after)}
    inflight = 0

    def render(info: RequestInfo, status: int, message: str, headers: dict[str, str] | None = None) -> web.Response:
        if info.api == "v2":
            body = {"title": _title(status), "status": status, "detail": message}
            return web.Response(status=status, body=orjson.dumps(body), content_type=_PROBLEM, headers=headers)
        return web.Response(status=status, body=orjson.dumps({error_key: message}), content_type="application/json",
                            headers=headers)

    def failed(request: web.Request, info: RequestInfo, exc: Exception) -> web.StreamResponse:
        """The answer for an exception out of the handler (called inside the except block; re-raises what is not ours)."""
        if isinstance(exc, V1bridgeError):
            return render(info, exc.status, exc.message, exc.headers)
        if isinstance(exc, web.HTTPMethodNotAllowed):
            allow = ", ".join(sorted(exc.allowed_methods))
            return render(info, 405, f"method {request.method} is not allowed on {request.path}; allowed: {allow}",
                          {"Allow": allow})
        if isinstance(exc, web.HTTPNotFound):
            return render(info, 404, f"no such route: {request.method} {request.path}")
        if isinstance(exc, web.HTTPRequestEntityTooLarge):
            return render(info, 413, f"the request body is larger than {exc.max_size} bytes" if hasattr(exc, "max_size")
                          else "the request body is too large")
        if isinstance(exc, web.HTTPException):
            if exc.status < 400:
                raise exc
            return render(info, exc.status, exc.reason or "error")
        if isinstance(exc, ConnectionResetError):
            raise exc
        log.exception("unhandled error on %s %s", request.method, request.path)
        return render(info, 500, "internal error in the proxy")

    by_operation: dict[str, RouteRecords] = {}  # a v1 route's records (its method is the route's)

    def observe(request: web.Request, info: RequestInfo, status: int, nanoseconds: int) -> None:
        api = info.api
        if api == "v1":
            route = info.route
            if route is None:
                records = prepare(api, None, "UNKNOWN", request.method)
            else:
                records = by_operation.get(route.op_id)
                if records is None:
                    records = by_operation[route.op_id] = prepare(api, route.op_id, route.label, request.method)
        elif api == "v2":
            records = prepare(api, None, v2_label, request.method)
        else:
            records = prepare(api, None, request.path if api == "ops" else "UNKNOWN", request.method)
        transport = request.transport
        record(records, status, nanoseconds, request.headers, info.auth, info.emulations, info.rules,
               transport is not None and not transport.is_closing(),  # False: the client had gone
               info.outcome)

    @web.middleware
    async def middleware(request: web.Request, handler) -> web.StreamResponse:
        started = clock()
        path = request.path
        auth = request.headers.get(authorization)
        if path.startswith(v1_prefix):
            info = RequestInfo("v1", auth)
        elif path.startswith(v2_prefix):
            info = RequestInfo("v2", auth)
        else:
            info = RequestInfo("ops" if path in ops_paths else "other", auth)
        request[INFO] = info
        status = 500
        nonlocal inflight
        counted = False
        try:
            if limit and inflight >= limit and info.api != "ops":  # ops (health, metrics) answer under load
                if info.api == "v1":  # the metrics label and usage record name the operation refused
                    info.route = table.routes.get(request.match_info.route.name or "")
                response = render(info, 503, shed_message, shed_headers)
            else:
                inflight += 1
                counted = True
                try:  # errors answered here, not in a nested coroutine: one await level less per request
                    if auth and info.api != "ops" and not auth.isascii():
                        # raw bytes in a key: the /v2 pass-through's aiohttp client would forward a different
                        # credential; refused alike on every path
                        raise ClientInputError("the Authorization header must be ASCII; it was not forwarded")
                    response = await handler(request)
                except Exception as exc:
                    response = failed(request, info, exc)
            status = response.status
            if info.api == "v1" and not response.prepared:
                headers = response.headers
                headers.extend(sunset_pair)
                if info.v2_path:
                    headers[link] = f'<{info.v2_path}>; rel="successor-version"'
                if info.emulations:
                    headers[emulation_header] = ", ".join(policy_header[p] for p in info.emulations)
                if info.rules:
                    headers[rule_header] = ", ".join(info.rules)
            return response
        except BaseException as exc:
            status = getattr(exc, "status", 499)  # 499: the client went away mid-stream
            raise
        finally:
            if counted:
                inflight -= 1
            try:  # nothing after the answer may change it: a record that cannot be made is counted, not raised
                observe(request, info, status, clock() - started)
            except Exception:  # noqa: BLE001
                metrics.count_record_failure("observe", 1)
                if not observe_failed:
                    observe_failed.append(True)
                    log.exception("v1bridge: a request could not be recorded; further failures are counted in "
                                  "v1bridge_record_write_failures_total{log='observe'}, not logged")

    return middleware


def _title(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


# ------------------------------------------------------------ pass-through


_STREAM_DROP_REQUEST = frozenset({"host"})


async def _passthrough(request: web.Request) -> web.StreamResponse:
    """/v2/... as is, both ways, streamed chunk by chunk (logs, SSE); only hop-by-hop headers removed.

    Only a v2 route (proxy/confine.py) is forwarded: the raw path is checked before the upstream is contacted.
    A body of unknown length (chunked) is read first, up to --max-body, so an over-limit one is a 413 with nothing
    sent. Once the answer has started, a failure can no longer be told in a status: the client connection is
    aborted (never a second response inside the first)."""
    refusal = request.app[PASSTHROUGH].check(request.method, request.raw_path)
    if refusal is not None:
        raise ClientInputError(refusal.detail, status=refusal.status,
                               headers={"Allow": refusal.allow} if refusal.allow else None)
    config = request.app[CONFIG]
    length = request.content_length
    if length is not None and length > config.max_body:
        raise ClientInputError(f"the request body is larger than {config.max_body} bytes", status=413)
    headers = hop_filter(request.headers, _STREAM_DROP_REQUEST)
    if not headers.get("User-Agent"):  # a v2 caller's own User-Agent passes untouched; none at all gets ours
        headers["User-Agent"] = USER_AGENT
    data: Any = None
    if request.body_exists:
        data = request.content if length is not None else await _read_bounded(request, config)
    upstream = request.app[UPSTREAM]
    started = time.monotonic()
    resp = await upstream.open_stream(request.method, request.raw_path, headers, data)
    try:
        out = web.StreamResponse(status=resp.status, reason=resp.reason)
        for name, value in hop_filter(resp.headers).items():
            out.headers.add(name, value)
        announced = resp.headers.get("Content-Length")
        if announced is None:
            out.headers.popall("Content-Length", None)
        await out.prepare(request)
        sent = 0
        try:
            # an answer of announced length is bounded as a whole (a slow drip is cut); a stream per read (idle)
            async with asyncio.timeout(max(0.0, upstream.total_timeout - (time.monotonic() - started))
                                       if announced is not None else None):
                async for chunk in resp.content.iter_any():
                    await out.write(chunk)
                    sent += len(chunk)
        except (aiohttp.ClientError, TimeoutError) as exc:
            reason = ("took longer than the timeout" if isinstance(exc, TimeoutError)
                      else f"broke off ({type(exc).__name__})")
            log.warning("v2 pass-through %s %s: the upstream answer %s after %d bytes; the client connection "
                        "was aborted", request.method, request.path, reason, sent)
            if request.transport is not None:
                request.transport.abort()
            raise UpstreamBodyBroken() from None
        await out.write_eof()
        return out
    finally:
        resp.release()


class UpstreamBodyBroken(ConnectionResetError):
    """The upstream failed after the answer had started: the client connection is aborted; recorded as a 502."""

    status = 502


async def _read_bounded(request: web.Request, config: ProxyConfig) -> bytes:
    """A body of unknown length, whole, before anything goes upstream: 413 past max_body, 408 if too slow."""
    limit = config.max_body
    parts: list[bytes] = []
    seen = 0
    try:
        async with asyncio.timeout(config.client_timeout):
            async for chunk in request.content.iter_any():
                seen += len(chunk)
                if seen > limit:
                    raise ClientInputError(f"the request body is larger than {limit} bytes", status=413)
                parts.append(chunk)
    except TimeoutError:
        raise ClientInputError(f"the request body did not arrive within {config.client_timeout:g}s",
                               status=408) from None
    return b"".join(parts)


# --------------------------------------------------------------------- ops


async def _healthz(request: web.Request) -> web.Response:
    return web.json_response({"status": "ok"})


async def _readyz(request: web.Request) -> web.Response:
    """Ready when the upstream answers at all (any HTTP status counts; a 401 still proves it is there)."""
    upstream = request.app[UPSTREAM]
    try:
        resp = await upstream.call("GET", request.app[TABLE].v2_prefix + "/openapi.json", authorization=None,
                                   label="readyz")
    except V1bridgeError as exc:
        return web.json_response({"status": "unavailable", "upstream": exc.message}, status=503)
    return web.json_response({"status": "ready", "upstream_status": resp.status})


async def _metrics(request: web.Request) -> web.Response:
    from prometheus_client import CONTENT_TYPE_LATEST

    return web.Response(body=request.app[METRICS].render(), headers={"Content-Type": CONTENT_TYPE_LATEST})


# ------------------------------------------------------------------ contexts


async def _embedded_sandbox(app: web.Application) -> AsyncIterator[None]:
    """No upstream configured: run the v2 sandbox in this process on an ephemeral loopback port."""
    config = app[CONFIG]
    if config.upstream is not None:
        app[UPSTREAM_URL] = config.upstream
        yield
        return
    runner, app[UPSTREAM_URL] = await embedded.start(config.keys, config.db_path, config.sandbox_transition_seconds)
    app[SANDBOX_URL] = app[UPSTREAM_URL]
    try:
        yield
    finally:
        await runner.cleanup()


async def _client_session(app: web.Application) -> AsyncIterator[None]:
    """The upstream of this process: the translated calls' pool (proxy/http1.py) and the pass-through's
    ClientSession, each bounded to `upstream_connections`."""
    config = app[CONFIG]
    metrics = app[METRICS]
    # bounded: a fan-out (include* lookups, a burst of clients) queues for a connection instead of opening thousands
    connector = aiohttp.TCPConnector(limit=config.upstream_connections, limit_per_host=0, ttl_dns_cache=300,
                                     enable_cleanup_closed=True)
    session = aiohttp.ClientSession(
        connector=connector,
        auto_decompress=True,
        skip_auto_headers=("User-Agent",),
        cookie_jar=aiohttp.DummyCookieJar(),
    )
    app[UPSTREAM] = Upstream(
        session,
        app[UPSTREAM_URL],
        connect_timeout=config.connect_timeout,
        total_timeout=config.total_timeout,
        get_retries=config.get_retries,
        connections=config.upstream_connections,
        stream_idle_timeout=config.stream_idle_timeout,
        observe=metrics.observe_upstream,
    )
    try:
        yield
    finally:
        await app[UPSTREAM].close()
        await session.close()


async def _records(app: web.Application) -> AsyncIterator[None]:
    """Usage file and access log: opened in the serving process, flushed periodically and at shutdown."""
    usage, access = app[USAGE], app[ACCESS]
    usage.open()
    access.start()
    try:
        yield
    finally:
        usage.close()
        access.close()
        app[METRICS].close()


async def _answer_pool(app: web.Application) -> AsyncIterator[None]:
    """The large-answer process pool (started at first need by V1Service) is stopped with the app."""
    try:
        yield
    finally:
        app[SERVICE].close()


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


# ------------------------------------------------------------------ factory


def create_proxy_app(config: ProxyConfig) -> web.Application:
    """A ready-to-run proxy. The upstream session, sandbox and usage file open in cleanup_ctx."""
    table = RouteTable(default_mappings())
    redact.install()  # no API key in aiohttp's bad-request or access log
    app = web.Application(client_max_size=config.max_body)
    app[CONFIG] = config
    app[TABLE] = table
    app[PASSTHROUGH] = PassThroughRoutes(table.mappings)
    app[METRICS] = Metrics(config.metrics_dir)
    app[USAGE] = UsageLog(config.usage_dir, metrics=app[METRICS])
    app[ACCESS] = AccessLog(config.access_log, metrics=app[METRICS])
    app[SERVICE] = V1Service(table, config, lambda: app[UPSTREAM])
    app.middlewares.append(_middleware(app))
    service = app[SERVICE]
    for route in table:
        app.router.add_route(route.op.v1.method, route.aiohttp_path, service.handler(route), name=route.op_id)
    app.router.add_route("*", table.v2_prefix + "/{tail:.*}", _passthrough, name="v2_passthrough")
    app.router.add_get("/healthz", _healthz, allow_head=False)
    app.router.add_get("/readyz", _readyz, allow_head=False)
    app.router.add_get("/metrics", _metrics, allow_head=False)
    app.cleanup_ctx.append(_embedded_sandbox)
    app.cleanup_ctx.append(_client_session)
    app.cleanup_ctx.append(_records)
    app.cleanup_ctx.append(_answer_pool)
    return app


async def gunicorn_app() -> web.Application:
    """gunicorn 'proxy.app:gunicorn_app' --worker-class proxy.gunicorn_worker.GunicornWorker (asyncio's loop; or
    GunicornUVLoopWorker for uvloop; both keep gunicorn's --backlog, proxy/gunicorn_worker.py): configured from
    V1BRIDGE_* env.
    Every worker writes its metrics where all can read them (PROMETHEUS_MULTIPROC_DIR, or one directory per
    gunicorn master), so a scrape answered by any worker counts them all."""
    from proxy.cli_proxy import config_from_env, gunicorn_metrics_dir

    config = config_from_env(os.environ)
    config.metrics_dir = gunicorn_metrics_dir(os.environ)
    return serving_for_life(create_proxy_app(config))
