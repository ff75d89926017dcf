"""Serving one v1 operation, as a straight pipeline over one per-request context (`context.Call`):

    read the request -> plan (forward.py: forward translation; the lookups it declares are answered by
    emulations/lookups.py) -> execute (emulations/: walk, steps, follow-up) -> answer (answer.py: backward
    translation, pages, response lookups).

Each stage takes the context and what the stage before it made; none calls back into an earlier one.
"""
from __future__ import annotations

import asyncio
import contextlib
import functools
from typing import Any, Awaitable, Callable

import orjson
from aiohttp import web

from mappings import load_schema
from mappings.errors import ClientInputError

from proxy.answer import Answer
from proxy.backward import Backward
from proxy.config import ProxyConfig
from proxy.context import INFO, Call, RequestInfo
from proxy.emulations import Emulations
from proxy.failures import Failures
from proxy.forward import Forward, Plan
from proxy.routes import SAFE_ID, Route, RouteTable
from proxy.upstream import Upstream

__all__ = ["INFO", "RequestInfo", "V1Service"]

_JSON = "application/json"


class V1Service:
    def __init__(self, table: RouteTable, config: ProxyConfig, upstream_getter) -> None:
        self.table = table
        self.config = config
        self.m = table.mappings
        self.forward = Forward(table, config.strict_map(list(self.m.policies)))
        self.backward = Backward(table)
        self.failures = Failures(self.forward, self.backward)
        v1 = load_schema("v1")
        self.emulations = Emulations(table, config, self.backward, self.failures,
                                     v1.get("components", {}).get("schemas", {}), self.forward.page_sizes)
        self.answer = Answer(config, self.forward, self.backward, self.failures, self.emulations)
        self._upstream = upstream_getter
        self._v1_schema = orjson.dumps(v1)

    @property
    def upstream(self) -> Upstream:
        return self._upstream()

    def close(self) -> None:
        self.answer.close()

    # ------------------------------------------------------------------ entry

    def handler(self, route: Route) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        """The route's aiohttp handler: a read is served in the handler's own coroutine (positional partial: no
        coroutine layer of its own, which every resumption of the request would pass through)."""
        return functools.partial(self._serve if route.op.v1.method == "GET" else self.serve, route)

    async def serve(self, route: Route, request: web.Request) -> web.StreamResponse:
        if not _cancels_handlers(request):
            return await self._serve(route, request)
        # A change must not be cut half-way when the client leaves and the server cancels handlers on disconnect
        # (aiohttp's handler_cancellation, on in its test server): the work runs in its own task, which finishes
        # the step already sent and starts nothing new (Call.before); its outcome is recorded before this request is.
        # A server that does not cancel handlers (web.run_app, gunicorn: the default) needs no task (one task fewer per request).
        task = asyncio.ensure_future(self._serve(route, request))
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            with contextlib.suppress(BaseException):
                await task
            raise

    async def _serve(self, route: Route, request: web.Request) -> web.StreamResponse:
        info: RequestInfo = request[INFO]
        info.route = route
        params = dict(request.match_info)
        for name, value in params.items():  # an id must never name another path, query or header on v2
            if not SAFE_ID.fullmatch(value):
                raise ClientInputError(f"{name} is not a valid id: 1 to 128 letters, digits, '-', '_' or '.', "
                                       "not starting with '.'")
        call = Call(request, info, route, params, self.config, self.upstream)
        body = await self._body(request, route) if route.op.request else None
        query = list(request.query.items()) if "?" in request.raw_path else []  # no parse without a query
        self.forward.check(route, query, body)  # v1.json's verdict first, before any mapping or policy decision
        try:
            plan = call.plan = await self._plan(call, query, body)
            call.emulations = list(plan.emulations)
            if route.v2_path:  # the path the plan already filled in, when it has one
                info.v2_path = plan.request.path if plan.request is not None else route.v2_url_path(params)
            elif plan.steps:
                info.v2_path = plan.steps[-1].path
            if route.op.policy == "local":
                return web.Response(body=self._v1_schema, content_type=_JSON)
            outcome = await self.emulations.execute(call, plan)
            return await self.answer.run(call, plan, outcome)
        finally:
            if call.plan is not None:
                info.emulations = call.emulations
                info.rules = call.plan.rules
                info.ignored = call.plan.skipped
            else:
                info.rules = list(route.op.rules)

    async def _body(self, request: web.Request, route: Route) -> Any:
        """The JSON body, within client_timeout and max_body_depth; None when empty."""
        try:
            async with asyncio.timeout(self.config.client_timeout):
                raw = await request.read()
        except TimeoutError:
            raise ClientInputError(f"the request body did not arrive within {self.config.client_timeout:g}s",
                                   status=408) from None
        if not raw.strip():
            return None
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise ClientInputError("the request body is not valid JSON") from None
        if _deeper_than(body, self.config.max_body_depth):  # validators recurse: refuse before them
            raise ClientInputError(f"the request body is nested deeper than {self.config.max_body_depth} levels")
        return body

    async def _plan(self, call: Call, query: list[tuple[str, str]], body: Any) -> Plan:
        """The planner (forward.Forward.planning), its declared needs answered by reads made for this call."""
        planning = self.forward.planning(call.route, call.params, query, body)
        try:
            need = next(planning)
            while True:
                need = planning.send(await self.emulations.lookups.answer(call, need))
        except StopIteration as done:
            return done.value


def _cancels_handlers(request: web.Request) -> bool:
    """Does the server cancel this request's handler when its client disconnects? True when it cannot be told."""
    return getattr(getattr(request.protocol, "_manager", None), "handler_cancellation", True) is not False


def _deeper_than(value: Any, limit: int) -> bool:
    """Is a parsed JSON value nested deeper than `limit` (iteratively: no recursion to exhaust)?"""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False
