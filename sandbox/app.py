"""The sandbox app factory: routes from v2.json, one middleware for auth, validation and problems."""
from __future__ import annotations

import logging
import math
import time
import uuid
from typing import Awaitable, Callable

import orjson
from aiohttp import web

from mappings import redact

from . import handlers, pods
from .config import SandboxConfig, resolve_keys
from .common import BODY, EXTRA_HEADERS, OWNER, QUERY, SANDBOX, VIOLATIONS
from .problems import Problem
from .service import Sandbox
from .spec import CompiledSpec, Operation, compiled, parse_query, spec_bytes

log = logging.getLogger("v1bridge.sandbox")

SPEC: web.AppKey[CompiledSpec] = web.AppKey("spec")
OPERATIONS: web.AppKey[dict[str, Operation]] = web.AppKey("operations")
_OPENAPI_ROUTE = "openapi"
#: operations whose body size the service checks ahead of authentication and all other processing (413)
_BODY_LIMITS = {"createPod": pods.MAX_CREATE_BYTES}


class _RateLimiter:
    """Fixed-window counter per key; cheap enough to run on every request."""

    def __init__(self, limit: int | None, window: int) -> None:
        self.limit, self.window = limit, window
        self._counts: dict[str, tuple[int, int]] = {}

    def hit(self, key: str, now: float) -> tuple[int, int, bool]:
        """Return (remaining, seconds to reset, allowed)."""
        limit = self.limit if self.limit is not None else 1000
        bucket = int(now // self.window)
        start, count = self._counts.get(key, (bucket, 0))
        if start != bucket:
            count = 0
        count += 1
        self._counts[key] = (bucket, count)
        reset = max(1, math.ceil((bucket + 1) * self.window - now))
        allowed = self.limit is None or count <= self.limit
        return max(0, limit - count), reset, allowed


def _error_middleware(sb: Sandbox, limiter: _RateLimiter, policy: str) -> Callable:
    operations: dict[str, Operation] = compiled().operations
    validate = sb.config.validate_responses

    @web.middleware
    async def middleware(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]):
        request_id = request.headers.get("x-request-id") or uuid.uuid4().hex
        rl_headers: dict[str, str] = {}
        op: Operation | None = None
        try:
            route = request.match_info.route
            name = route.name
            exc = request.match_info.http_exception
            if exc is not None:
                if exc.status == 405:
                    allow = ", ".join(sorted(exc.allowed_methods))  # type: ignore[attr-defined]
                    raise Problem(405, f"method {request.method} is not allowed on {request.path}; allowed: {allow}",
                                  headers={"Allow": allow})
                raise Problem(404, f"no such path: {request.path}")
            if name == _OPENAPI_ROUTE:
                resp = await handler(request)
            else:
                op = operations[name]
                limit = _BODY_LIMITS.get(name)
                if limit is not None and (request.content_length or 0) > limit or (
                    limit is not None and len(await request.read()) > limit
                ):
                    raise Problem(413, f"the request body is larger than {limit} bytes")
                auth = request.headers.get("Authorization", "")
                scheme, _, key = auth.partition(" ")
                owner = sb.owners.get(key.strip()) if scheme.lower() == "bearer" else None
                if owner is None:
                    raise Problem(401, "missing or invalid API key: send Authorization: Bearer <API key>")
                remaining, reset, allowed = limiter.hit(owner, time.time())
                rl_headers = {"RateLimit": f'"default";r={remaining};t={reset}', "RateLimit-Policy": policy}
                if not allowed:
                    raise Problem(429, "rate limit exceeded; retry later", headers={"Retry-After": str(reset)})
                request[OWNER] = owner
                request[EXTRA_HEADERS] = {"x-request-id": request_id, **rl_headers}
                query, errors = parse_query(op, request.query) if op.query else ({}, [])
                if errors:
                    raise Problem(422, "request query parameters do not match the schema", errors)
                request[QUERY] = query
                if op.body is not None:
                    raw = await request.read()
                    try:
                        body = orjson.loads(raw) if raw else None
                    except orjson.JSONDecodeError:
                        raise Problem(400, "request body is not valid JSON") from None
                    errors = op.body.errors(body)
                    if errors:
                        raise Problem(422, "request body does not match the schema", errors)
                    request[BODY] = body
                resp = await handler(request)
        except Problem as problem:
            resp = problem.response()
        except web.HTTPException as exc:  # aiohttp-raised (e.g. body too large)
            resp = Problem(exc.status, exc.reason or "error").response()
        except Exception:  # never leak a traceback
            log.exception("sandbox handler failed: %s %s", request.method, request.path)
            resp = Problem(500, "internal error in the sandbox").response()
        if validate and op is not None and not resp.prepared:
            resp = _check_response(request.app, op, resp)
        if not resp.prepared:
            resp.headers["x-request-id"] = request_id
            if rl_headers:
                resp.headers.update(rl_headers)
        return resp

    return middleware


def _check_response(app: web.Application, op: Operation, resp: web.StreamResponse) -> web.StreamResponse:
    """Test aid: compare the answer with the operation's declared response; record and expose any mismatch."""
    spec = op.response_for(resp.status)
    problems: list[str] = []
    if spec is None:
        problems.append(f"status {resp.status} is not declared")
    elif isinstance(resp, web.Response):
        ctype = resp.content_type if resp.body else None
        if spec.content_type is None:
            if resp.body:
                problems.append(f"status {resp.status} declares no body but one was sent")
        elif ctype != spec.content_type:
            problems.append(f"content type {ctype!r} is not the declared {spec.content_type!r}")
        elif spec.validator is not None:
            problems.extend(spec.validator.errors(orjson.loads(resp.body)))  # type: ignore[arg-type]
    if not problems:
        return resp
    message = f"{op.method} {op.path} -> {resp.status}: " + "; ".join(problems)
    app[VIOLATIONS].append(message)
    log.error("response does not conform: %s", message)
    return Problem(500, "sandbox response does not conform to v2.json: " + message).response()


async def _openapi(request: web.Request) -> web.Response:
    return web.Response(body=spec_bytes(), content_type="application/json")


def create_sandbox_app(config: SandboxConfig | None = None) -> web.Application:
    """Build a ready-to-run sandbox app. Without keys, a development key is generated."""
    config = config or SandboxConfig()
    redact.install()  # no API key in aiohttp's bad-request or access log
    if not config.keys:
        config.keys, _ = resolve_keys()
    sb = Sandbox(config)
    spec = compiled()
    limiter = _RateLimiter(config.rate_limit, config.rate_window)
    policy = f'"default";q={config.rate_limit or 1000};w={config.rate_window}'
    app = web.Application(middlewares=[_error_middleware(sb, limiter, policy)], client_max_size=4 * 1024 * 1024)
    app[SANDBOX] = sb
    app[SPEC] = spec
    app[OPERATIONS] = spec.operations
    app[VIOLATIONS] = []
    app.router.add_get("/v2/openapi.json", _openapi, name=_OPENAPI_ROUTE)
    # static paths first so /v2/registries/delegations is not taken for /v2/registries/{id}
    ops = sorted(spec.operations.values(), key=lambda o: ("{" in o.path, o.path))
    for op in ops:
        fn = handlers.HANDLERS.get(op.operation_id)
        if fn is None:
            raise RuntimeError(f"no sandbox handler for {op.operation_id}")
        app.router.add_route(op.method, op.path, fn, name=op.operation_id)

    async def _close(app: web.Application) -> None:
        sb.store.close()

    app.on_cleanup.append(_close)
    return app
