"""The proxy's one cross-cutting middleware: timing, overload shedding, errors in the caller's shape, v1's
deprecation headers, and the request's records (metrics, access log, usage log)."""
from __future__ import annotations

import logging
import time
from calendar import timegm
from datetime import datetime
from email.utils import formatdate

import orjson
from aiohttp import hdrs, web
from multidict import istr

from mappings import default_mappings
from mappings.errors import ClientInputError, V1bridgeError
from proxy import ops
from proxy.app_keys import ACCESS, CONFIG, GRAPHQL, METRICS, TABLE, USAGE
from proxy.context import INFO, RequestInfo
from proxy.graphql.service import Observer, error_response
from proxy.telemetry import Recorder, RouteRecords

log = logging.getLogger("v1bridge.proxy")

_PROBLEM = "application/problem+json"


def _sunset_headers() -> tuple[str, str]:
    """RFC 9745 Deprecation (@epoch) and RFC 8594 Sunset (HTTP-date), both from conventions.sunset."""
    sunset = default_mappings().conventions.sunset
    moment = datetime.fromisoformat(sunset.replace("Z", "+00:00"))
    epoch = timegm(moment.utctimetuple())
    return f"@{epoch}", formatdate(epoch, usegmt=True)


def middleware_for(app: web.Application):
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
    ignored_header = istr(conv.ignored_header)
    link = hdrs.LINK
    authorization = hdrs.AUTHORIZATION
    policy_header = {pid: p.header for pid, p in table.mappings.policies.items()}
    v1_prefix = table.v1_prefix + "/"
    v2_prefix = table.v2_prefix + "/"
    v2_label = table.v2_prefix + "/{path}"  # one metrics label for all pass-through traffic (no ids in labels)
    ops_paths = ops.PATHS
    metrics = app[METRICS]
    recorder = Recorder(metrics, app[USAGE], app[ACCESS], config.fingerprint_salt, policy_header)
    prepare = recorder.route
    record = recorder.record
    graphql_path = app[GRAPHQL].path
    observe_graphql = Observer(app[GRAPHQL], recorder)  # one record per GraphQL operation run
    clock = time.perf_counter_ns
    observe_failed: list[bool] = []  # logged once per process
    limit = config.max_inflight or 0
    shed_message = (f"the proxy is answering {limit} requests already; retry after {config.retry_after} s "
                    "(overload: requests past the in-flight limit are refused, not queued)")
    shed_headers = {"Retry-After": str(config.retry_after)}
    inflight = 0

    def render(info: RequestInfo, status: int, message: str, headers: dict[str, str] | None = None) -> web.Response:
        if info.api == "graphql":
            return error_response(status, message, headers)
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
            meant = table.suggest(request.method, request.path)  # /v1/PODS, /pods: the v1 route it names
            return render(info, 404, f"no such route: {request.method} {request.path}"
                          + (f"; did you mean {meant}?" if meant else ""))
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
        elif api == "graphql":
            transport = request.transport
            observe_graphql(request, info, status, nanoseconds, transport is not None and not transport.is_closing())
            return
        else:
            records = prepare(api, None, request.path if api == "ops" else "UNKNOWN", request.method)
        transport = request.transport
        record(records, status, nanoseconds, request.headers, info.auth, info.emulations, info.rules,
               transport is not None and not transport.is_closing(),  # False: the client had gone
               info.outcome, info.ignored)

    @web.middleware
    async def middleware(request: web.Request, handler) -> web.StreamResponse:
        started = clock()
        path = request.path
        auth = request.headers.get(authorization)
        if path.startswith(v1_prefix):
            info = RequestInfo("v1", auth)
        elif path.startswith(v2_prefix):
            info = RequestInfo("v2", auth)
        elif path == graphql_path:
            info = RequestInfo("graphql", auth)
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
                if info.ignored:
                    headers[ignored_header] = ", ".join(info.ignored)
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


