"""Serving one v1 operation: plan forward, call v2 (walks, steps, lookups), translate backward.

The emulations that need more than one v2 call live here: the fallback walk
over GPU types / CPU flavors, reset as stop then start, lock-after-create,
and the reads behind include* flags. Each either completes or answers an
error that says what happened; none is reported as success after a failure.
"""
from __future__ import annotations

import asyncio
import contextlib
import copy
import re
import time
from typing import Any

import orjson
from aiohttp import web

from mappings import load_schema
from mappings.converters import get_path, set_path
from mappings.errors import ClientInputError, TranslationError, UpstreamError, V1bridgeError
from mappings.models import WalkAnswer
from mappings.translate import Catalog, NeedsLookup

from proxy.backward import Backward, ListBuilder, values_at
from proxy.config import ProxyConfig
from proxy import offload
from proxy.forward import Forward, Plan, V2Request
from proxy.routes import Route, RouteTable
from proxy.upstream import BODY_HEADERS, HOP_BY_HOP, Upstream, UpstreamResponse, hop_filter


# Upstream headers a v1 answer never copies: recomputed (body), or set by this server.
_DROP_FROM_UPSTREAM = BODY_HEADERS | frozenset({"date", "server", "content-disposition"})
_DROP_ALL = _DROP_FROM_UPSTREAM | HOP_BY_HOP
_JSON = "application/json"
_SAFE_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}")


class RequestInfo:
    """What the middlewares learn about a request as the handler runs (a slotted class: one per request)."""

    __slots__ = ("api", "route", "params", "emulations", "rules", "v2_path", "outcome")

    def __init__(self, api: str = "other") -> None:
        self.api = api  # v1 | v2 | ops | other
        self.route: Route | None = None
        self.params: dict[str, str] = {}
        self.emulations: list[str] = []
        self.rules: list[str] = []
        self.v2_path: str | None = None
        # what an emulation did when its client left or its deadline passed (access log and usage record)
        self.outcome: str | None = None


class Watch:
    """One v1 request's overall deadline and its client, checked before every step of an emulation.

    A step is one v2 call that changes something (a create of the fallback walk, stop/start of a reset, the
    follow-up PATCH, a retry of any of them). Before it starts: if the client has disconnected, nothing more is
    sent (499); if the deadline has passed, nothing more is sent (504). A step already sent is finished and its
    outcome recorded (RequestInfo.outcome); aiohttp does not cancel handlers when a client leaves.
    """

    __slots__ = ("request", "info", "ends", "seconds")

    def __init__(self, request: web.Request, info: RequestInfo, seconds: float) -> None:
        self.request = request
        self.info = info
        self.seconds = seconds
        self.ends = time.monotonic() + seconds

    def client_gone(self) -> bool:
        transport = self.request.transport
        return transport is None or transport.is_closing()

    def remaining(self) -> float:
        return self.ends - time.monotonic()

    def before(self, step: str, done: str) -> None:
        """Raise instead of starting `step` when the client left or the deadline passed; `done` says what stands."""
        if self.client_gone():
            self.info.outcome = f"the client disconnected; {step} was not sent ({done})"
            raise ClientInputError(self.info.outcome, status=499)
        if self.remaining() <= 0:
            self.info.outcome = f"the request reached its {self.seconds:g}s deadline; {step} was not sent ({done})"
            raise UpstreamError(self.info.outcome, status=504)

    def sent(self, step: str, resp: UpstreamResponse) -> None:
        """After a step: if the client has left meanwhile, record what the step did (it was finished)."""
        if self.client_gone():
            data = resp.json() if resp.ok else None
            ident = data.get("id") if isinstance(data, dict) else None
            self.info.outcome = (f"{step} answered {resp.status}" + (f" (id {ident})" if ident else "")
                                 + " after the client disconnected")


INFO: web.RequestKey[RequestInfo] = web.RequestKey("v1bridge_info", RequestInfo)


class V1Service:
    def __init__(self, table: RouteTable, config: ProxyConfig, upstream_getter) -> None:
        self.table = table
        self.config = config
        self.m = table.mappings
        self.forward = Forward(table, config.strict_map(list(self.m.policies)))
        self.backward = Backward(table)
        self._upstream = upstream_getter
        self._catalog: tuple[float, Catalog] | None = None
        # large answers (config.large_answer bytes and up) are translated in this pool, started at first need
        self._pool: offload.ProcessPoolExecutor | None = None
        self._v1_schema = orjson.dumps(load_schema("v1"))
        self.lookups = self.m.conventions.lookups
        self.pagination = self.m.conventions.pagination
        # fallback walks, by the v2 path of the choice: when to move on (policies.yaml walk_on), and how many
        # choices v1 itself accepted (the v1 field's maxItems, else its enum's size, from v1.json)
        self.walk_rules: dict[str, list[WalkAnswer]] = {}
        self.walk_limits: dict[str, tuple[str, int]] = {}
        v1_schemas = load_schema("v1").get("components", {}).get("schemas", {})
        for request in self.m.requests.values():
            for name, spec in request.fields.items():
                policy = self.m.policies.get(spec.policy) if spec.policy else None
                if policy is None or not policy.walk_on or not spec.to:
                    continue
                self.walk_rules[spec.to] = list(policy.walk_on)
                prop = v1_schemas.get(request.v1_schema, {}).get("properties", {}).get(name, {})
                most = prop.get("maxItems") or len((prop.get("items") or {}).get("enum") or []) or None
                if most:
                    self.walk_limits[spec.to] = (name, int(most))

    @property
    def upstream(self) -> Upstream:
        return self._upstream()

    # ------------------------------------------------------------------ entry

    def handler(self, route: Route):
        async def handle(request: web.Request) -> web.StreamResponse:
            return await self.serve(request, route)

        handle.__name__ = f"v1_{route.op_id.replace('.', '_')}"
        return handle

    async def serve(self, request: web.Request, route: Route) -> web.StreamResponse:
        if route.op.v1.method == "GET":
            return await self._serve(request, route)
        # A change must not be cut half-way when the client leaves and the server cancels handlers on disconnect
        # (aiohttp's handler_cancellation, on in its test server): the work runs in its own task, which finishes
        # the step already sent and starts nothing new (Watch); its outcome is recorded before this request is.
        task = asyncio.ensure_future(self._serve(request, route))
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            with contextlib.suppress(BaseException):
                await task
            raise

    async def _serve(self, request: web.Request, route: Route) -> web.StreamResponse:
        info: RequestInfo = request[INFO]
        info.route = route
        params = dict(request.match_info)
        for name, value in params.items():  # an id must never name another path, query or header on v2
            if not _SAFE_ID.fullmatch(value):
                raise ClientInputError(f"{name} is not a valid id: 1 to 128 letters, digits, '-', '_' or '.', "
                                       "not starting with '.'")
        info.params = params
        watch = Watch(request, info, self.config.request_deadline)
        auth = request.headers.get("Authorization")
        rid = request.headers.get("x-request-id")
        body: Any = None
        if route.op.request:
            try:
                async with asyncio.timeout(self.config.client_timeout):
                    raw = await request.read()
            except TimeoutError:
                raise ClientInputError(f"the request body did not arrive within {self.config.client_timeout:g}s",
                                       status=408) from None
            if raw.strip():
                try:
                    body = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    raise ClientInputError("the request body is not valid JSON") from None
                if _deeper_than(body, self.config.max_body_depth):  # validators recurse: refuse before them
                    raise ClientInputError(f"the request body is nested deeper than {self.config.max_body_depth} levels")
        query = list(request.query.items()) if "?" in request.raw_path else []  # no parse without a query
        self.forward.check(route, query, body)  # v1.json's verdict first, before any mapping or policy decision
        plan: Plan | None = None
        try:
            plan = await self._plan(route, params, query, body, auth, rid)
            if route.v2_path:  # the path the plan already filled in, when it has one
                info.v2_path = plan.request.path if plan.request is not None else route.v2_url_path(params)
            elif plan.steps:
                info.v2_path = plan.steps[-1].path
            if route.op.policy == "local":
                return web.Response(body=self._v1_schema, content_type=_JSON)
            if plan.steps:
                resp = await self._run_steps(plan, auth, rid, watch)
            else:
                resp = await self._call_with_walk(plan, auth, rid, watch)
            return await self._answer(plan, resp, auth, rid, watch)
        finally:
            if plan is not None:
                info.emulations = plan.emulations
                info.rules = plan.rules
            else:
                info.rules = list(route.op.rules)

    # ------------------------------------------------------------ forward

    async def _plan(self, route: Route, params, query, body, auth, rid) -> Plan:
        current: dict[str, Any] | None = None
        catalog: Catalog | None = None
        template: dict[str, Any] | None = None
        for _ in range(4):
            try:
                return self.forward.plan(route, params, query, body, current=current, catalog=catalog,
                                         template=template)
            except NeedsLookup as need:
                if need.what == "catalog" and catalog is None:
                    catalog = await self.catalog(auth, rid)
                elif need.what == "template" and template is None:
                    template = await self._template(route, body, auth, rid)
                elif need.what == "current" and current is None and route.current is not None:
                    got = await self.upstream.call(
                        "GET", route.current.v2_url_path(params), authorization=auth, label="lookup", request_id=rid
                    )
                    if not got.ok:
                        raise self._error_from(got, None, route) from None
                    current = got.json() or {}
                else:
                    raise TranslationError(f"the translation needs {need.what} and it could not be fetched") from None
        raise TranslationError("the translation did not settle")

    async def _template(self, route: Route, body: Any, auth, rid) -> dict[str, Any]:
        """The template the request references, as v2 serves it (its values stand in for v1's defaults)."""
        field = self.m.requests[route.op.request].template_field if route.op.request else None
        ident = str(body.get(field)) if field and isinstance(body, dict) else ""
        if not _SAFE_ID.fullmatch(ident):
            raise ClientInputError(f"{field} is not a valid id: 1 to 128 letters, digits, '-', '_' or '.'")
        got = await self.upstream.call("GET", self.lookups["template"].path.replace("{id}", ident),
                                       authorization=auth, label="lookup", request_id=rid)
        if not got.ok:
            raise self._error_from(got, None, route)
        value = got.json()
        return value if isinstance(value, dict) else {}

    async def catalog(self, auth: str | None, rid: str | None) -> Catalog:
        cached = self._catalog
        if cached and time.monotonic() - cached[0] < self.config.catalog_ttl:
            return cached[1]
        spec = self.lookups["catalog"]
        got = await self.upstream.call("GET", spec.path, authorization=auth, query=dict(spec.query) or None,
                                       label="lookup", request_id=rid)
        if not got.ok:
            raise self._lookup_error("the GPU catalog", got)
        data = got.json()
        if not isinstance(data, dict):
            raise UpstreamError(f"the GPU catalog from v2 (GET {spec.path}) answered {got.status} with "
                                f"{_kind(got, data)} where an object was expected")
        catalog = Catalog.from_v2(data)
        self._catalog = (time.monotonic(), catalog)
        return catalog

    # -------------------------------------------------------------- calls

    async def _send(self, req: V2Request, auth, rid, label: str) -> UpstreamResponse:
        return await self.upstream.call(
            req.method, req.path, authorization=auth, query=req.query, body=req.body, label=label, request_id=rid
        )

    async def _call_with_walk(self, plan: Plan, auth, rid, watch: Watch) -> UpstreamResponse:
        """One call, or the v1 fallback walk (R02): the next choice only on an answer the mapping's `walk_on` says
        means "this choice cannot be had" (capacity, a type-specific limit); any other answer ends the walk."""
        assert plan.request is not None
        for path, choices in plan.alternatives.items():
            limit = self.walk_limits.get(path)
            if limit is not None and len(choices) > limit[1]:
                raise ClientInputError(f"{limit[0]} lists {len(choices)} entries; v1 accepted at most {limit[1]} "
                                       f"(one per type it knows)")
        if plan.orderings:
            await self._rank_choices(plan, auth, rid)
        label = plan.route.op_id
        watch.before(f"{plan.request.method} {plan.request.path}", "nothing was sent")
        resp = await self._send(plan.request, auth, rid, label)
        watch.sent(f"{plan.request.method} {plan.request.path}", resp)
        if not plan.alternatives or not self._walks_on(plan, resp):
            return resp
        tried: list[str] = []
        for path, choices in plan.alternatives.items():
            tried.append(str(get_path(plan.request.body, path)))
            for choice in choices:
                if str(choice) in tried:
                    continue
                body = copy.deepcopy(plan.request.body)
                set_path(body, path, choice)
                attempt = V2Request(plan.request.method, plan.request.path, plan.request.query, body)
                watch.before(f"the create with {choice}", f"{', '.join(tried)} had no capacity; nothing was created")
                try:
                    resp = await self._send(attempt, auth, rid, label)
                except V1bridgeError as exc:
                    exc.within(f"the fallback stopped at {choice} after {', '.join(tried)} had no capacity")
                    exc.message += f"; whether {choice} was placed is unknown"
                    raise
                watch.sent(f"the create with {choice}", resp)
                tried.append(str(choice))
                if not self._walks_on(plan, resp):
                    plan.request = attempt
                    if not resp.ok:  # an answer that is not "cannot be had" ends the walk, and says where
                        raise self._error_from(resp, plan, plan.route).within(
                            f"the fallback stopped at {choice} after {', '.join(tried[:-1])} had no capacity")
                    return resp
        raise self._error_from(resp, plan, plan.route).within(f"no choice could be placed (tried {', '.join(tried)})")

    def _walks_on(self, plan: Plan, resp: UpstreamResponse) -> bool:
        """Does this answer mean "this choice cannot be had" for one of the plan's walks (policies.yaml walk_on)?"""
        if resp.ok:
            return False
        detail: str | None = None
        media = (resp.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        for path in plan.alternatives:
            for rule in self.walk_rules.get(path, ()):
                if rule.status != resp.status or (rule.media_type and rule.media_type != media):
                    continue
                if rule.detail:
                    if detail is None:
                        data = resp.json()
                        detail = str(data.get("detail") or "") if isinstance(data, dict) else ""
                    if rule.detail.lower() not in detail.lower():
                        continue
                return True
        return False

    async def _rank_choices(self, plan: Plan, auth, rid) -> None:
        """v1's default priority (gpuTypePriority: availability): walk the choices most available first,
        ranked by the mapping's lookup; the client's order breaks ties and stands if the ranking is unreadable."""
        assert plan.request is not None
        for target, ordering in plan.orderings:
            spec = self.lookups[ordering.by]
            query = dict(spec.query)
            for param, path in ordering.query_from.items():
                value = get_path(plan.request.body, path)
                if value is not None:
                    query[param] = str(value)
            try:
                got = await self.upstream.call("GET", spec.path, authorization=auth, query=query, label="lookup",
                                               request_id=rid)
            except UpstreamError:
                continue
            value = got.json() if got.ok else None
            items = value.get(spec.key) if spec.key and isinstance(value, dict) else value
            if not isinstance(items, list):
                continue
            levels = {str(i.get(spec.index_by)): get_path(i, spec.value) if spec.value else i
                      for i in items if isinstance(i, dict)}
            rank = {level: n for n, level in enumerate(ordering.rank)}
            ordered = sorted(plan.alternatives[target], key=lambda c: rank.get(levels.get(str(c)), len(rank)))
            plan.alternatives[target] = ordered
            set_path(plan.request.body, target, ordered[0])

    async def _run_steps(self, plan: Plan, auth, rid, watch: Watch) -> UpstreamResponse:
        """reset = stop, then start; a failed step is answered with the step and the state left (R01).

        A later step refused with 409 while the previous transition settles is retried, at most
        `step_retries` times and within reset_wait_seconds and the request's deadline."""
        route = plan.route
        total = len(plan.steps)
        resp: UpstreamResponse | None = None
        for index, (step_req, step_route) in enumerate(zip(plan.steps, route.steps), start=1):
            ends = time.monotonic() + self.config.reset_wait_seconds
            delay = 0.05
            failure: V1bridgeError | None = None
            done = ", ".join(s.label for s in route.steps[: index - 1]) or "nothing"
            attempts = 0
            while True:
                try:
                    watch.before(f"step {index}/{total} ({step_route.label})", f"{done} succeeded")
                except V1bridgeError as exc:
                    if exc.status == 499:
                        raise
                    failure = exc
                    break
                attempts += 1
                try:
                    resp = await self._send(step_req, auth, rid, step_route.op_id)
                except UpstreamError as exc:  # unreachable / too slow: still name the step and the state left
                    failure = exc
                    break
                watch.sent(f"step {index}/{total} ({step_route.label})", resp)
                # a later step may be refused while the previous transition settles
                if (index > 1 and resp.status == 409 and attempts <= self.config.step_retries
                        and time.monotonic() + delay < ends and not watch.client_gone()):
                    await asyncio.sleep(max(0.0, min(delay, watch.remaining())))  # the deadline is checked next
                    delay = min(delay * 2, 1.0)
                    continue
                break
            if failure is None and resp is not None and resp.ok:
                failure = _not_an_answer(step_route, resp, f"{step_route.v2_method} {step_req.path}")
            if failure is not None or not resp.ok:
                err = failure or self._error_from(resp, plan, route)
                state = await self._state(route, plan.params, auth, rid)
                err.within(f"{route.label} failed at step {index}/{total} ({step_route.label}) after {done} succeeded")
                err.message += f"; {state}"
                raise err
        assert resp is not None
        return resp

    async def _state(self, route: Route, params, auth, rid) -> str:
        if route.current is None or route.state_field is None:
            return "its state is unknown"
        try:
            got = await self.upstream.call("GET", route.current.v2_url_path(params), authorization=auth,
                                           label="lookup", request_id=rid)
        except UpstreamError:
            return "its state could not be read"
        if not got.ok:
            return f"its state could not be read (status {got.status})"
        obj = got.json() or {}
        v1_name, v2_name = route.state_field
        v1_value = self.backward.translators.response(route.op.response, obj).get(v1_name)
        return f"the resource was left with {v1_name} {v1_value} (v2 {v2_name} {get_path(obj, v2_name)})"

    def _creates(self, route: Route) -> bool:
        return bool(route.op.request) and self.m.requests[route.op.request].mode == "create" \
            and route.v2_method == "POST"

    # ----------------------------------------------------------- backward

    def _lookup_error(self, what: str, got: UpstreamResponse) -> UpstreamError:
        """A read the proxy makes on the client's behalf failed. Refused credentials or rate (401, 403, 429) are
        the client's to see as v2 said them; anything else is the upstream's failure (502) naming the read."""
        if got.status in (401, 403, 429):
            return UpstreamError(self.backward.problem_message(got.body, None, got.status), status=got.status,
                                 upstream_status=got.status, headers=_upstream_headers(got))
        return UpstreamError(f"{what} could not be read from v2 (status {got.status})", upstream_status=got.status)

    def _error_from(self, resp: UpstreamResponse, plan: Plan | None, route: Route) -> UpstreamError:
        message = self.backward.problem_message(resp.body, plan, resp.status)
        status = resp.status
        if status >= 500:
            # the upstream failed, not the request: a gateway error, named as such (504 stays a timeout)
            gateway = 504 if status == 504 else 502
            return UpstreamError(f"the v2 upstream failed ({status}): {message}", status=gateway, upstream_status=status,
                                 headers=_upstream_headers(resp))
        v1_status = route.status_errors.get(status)
        # strict: v2's status as is (an error either way; emulating only restores v1's number)
        if v1_status is not None and route.status_policy and not self.forward.is_strict(route.status_policy):
            if plan is not None:
                plan.engage(route.status_policy)
            status = v1_status
        return UpstreamError(message, status=status, upstream_status=resp.status, headers=_upstream_headers(resp))

    async def _answer(self, plan: Plan, resp: UpstreamResponse, auth, rid, watch: Watch) -> web.Response:
        route = plan.route
        if not resp.ok:
            raise self._error_from(resp, plan, route)
        if len(resp.body) >= self.config.large_answer > 0 and self._may_offload(plan):
            body = await self._answer_elsewhere(plan, resp)
            if body is not None:
                status = self._v1_status(plan, resp)
                if status == 204:
                    return web.Response(status=status, headers=_upstream_headers(resp))
                return web.Response(status=status, body=body, content_type=_JSON, headers=_upstream_headers(resp))
        if not plan.steps and plan.request is not None:  # each step of a multi-step emulation is checked as it runs
            problem = _not_an_answer(route, resp, f"{plan.request.method} {plan.request.path}",
                                     creates=self._creates(route))
            if problem is not None:
                raise problem
        data = resp.json()
        if route.paginated and self._more(data):
            return await self._answer_pages(plan, resp, data, auth, rid)
        if plan.follow_up is not None and isinstance(data, dict):
            data = await self._follow_up(plan, data, auth, rid, watch)
        status = self._v1_status(plan, resp)
        headers = _upstream_headers(resp)
        if route.op.shape == "empty" or status == 204:
            return web.Response(status=status, headers=headers)
        if plan.lookups:
            lookups, extra = await self._lookups(plan, data, auth, rid)
        else:
            lookups, extra = {}, []
        ctx = self.backward.context(plan, lookups)
        out = self.backward.translate(plan, data, ctx, extra)
        return web.Response(status=status, body=orjson.dumps(out), content_type=_JSON, headers=headers)

    def _v1_status(self, plan: Plan, resp: UpstreamResponse) -> int:
        route = plan.route
        status = route.op.v1_status
        if route.status_policy and resp.status != status:
            if self.forward.is_strict(route.status_policy):
                status = resp.status  # strict: v2's status (201 on create), never a refused create
            else:
                plan.engage(route.status_policy)
        return status

    # -------------------------------------------------------- large answers

    def _may_offload(self, plan: Plan) -> bool:
        """A plain answer: one call, translated alone (no lookups, follow-up or steps), into a body."""
        route = plan.route
        return (plan.request is not None and not plan.steps and not plan.lookups and plan.follow_up is None
                and route.op.response is not None and route.op.shape not in ("empty", "raw"))

    async def _answer_elsewhere(self, plan: Plan, resp: UpstreamResponse) -> bytes | None:
        """The v1 body of a large answer, made in the answer pool (offload.py): the same check, translation and
        serialisation as below, off the event loop. None: a paginated list with more pages (paged here)."""
        assert plan.request is not None
        job = offload.job_for(plan, resp, f"{plan.request.method} {plan.request.path}", self._creates(plan.route))
        if self._pool is None:
            self._pool = offload.new_pool(self.config.answer_processes)
        try:
            kind, value = await asyncio.get_running_loop().run_in_executor(self._pool, offload.translate_answer, job)
        except offload.BrokenProcessPool:  # a worker died (killed, out of memory): a new pool for the next call
            self._pool = None
            raise V1bridgeError("the proxy could not translate the v2 answer (its translating process ended)",
                                status=503, headers={"Retry-After": "1"}) from None
        if kind == "error":
            offload.raise_from(value)
        return value

    def close(self) -> None:
        """Stop the answer pool (app cleanup): queued work is dropped, running translations end on their own."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    # ---------------------------------------------------------- pagination

    def _more(self, data: Any) -> bool:
        """The page says more follow (Q30). A body without the block is a whole list (a server before paging)."""
        return more_pages(self.pagination, data)

    def _next_cursor(self, data: dict[str, Any], page: int, seen: set[str], what: str) -> str:
        cursor = data[self.pagination.block].get(self.pagination.next)
        if not isinstance(cursor, str) or not cursor:
            raise UpstreamError(f"{what}: page {page} of the v2 list says more pages follow but gives no cursor; "
                                "the list is answered whole or not at all")
        if cursor in seen:
            raise UpstreamError(f"{what}: the v2 list handed out the same cursor twice (page {page}); "
                                "the list is answered whole or not at all")
        if page >= self.pagination.max_pages:
            raise UpstreamError(f"{what}: the v2 list has more than {self.pagination.max_pages} pages; "
                                "the list is answered whole or not at all")
        seen.add(cursor)
        return cursor

    async def _next_page(self, method: str, path: str, query: list[tuple[str, str]], cursor: str, page: int,
                         auth, rid, label: str, what: str) -> tuple[Any, UpstreamResponse]:
        """Page `page` of a v2 list (same query, the cursor added); any failure is a 502 naming the page."""
        req = V2Request(method, path, [*query, (self.pagination.cursor, cursor)])
        suffix = "; the list is answered whole or not at all, so no partial list is returned"
        try:
            got = await self._send(req, auth, rid, label)
        except UpstreamError as exc:
            raise UpstreamError(f"{what}: page {page} of the v2 list failed: {exc.message}{suffix}") from None
        if not got.ok:
            detail = self.backward.problem_message(got.body, None, got.status)
            raise UpstreamError(f"{what}: page {page} of the v2 list failed (v2 status {got.status}): {detail}{suffix}",
                                upstream_status=got.status, headers=_upstream_headers(got))
        data = got.json()
        if not isinstance(data, dict):
            raise UpstreamError(f"{what}: page {page} of the v2 list is not a JSON object{suffix}")
        return data, got

    async def _answer_pages(self, plan: Plan, resp: UpstreamResponse, data: dict[str, Any], auth, rid) -> web.Response:
        """A v1 list from every page of the v2 list: each page filtered, expanded, translated and serialised into
        the v1 array, then dropped (memory holds the v1 answer, not the v2 pages). Any failed page is a 502:
        never a 2xx with part of the list. The client's own query never carries a cursor (v1 had none)."""
        route = plan.route
        assert plan.request is not None
        builder = ListBuilder(self.backward, plan)
        cache: dict[str, Any] = {}
        extra: list[dict[str, Any]] = []
        ctx = None
        seen: set[str] = set()
        page = 1
        while True:
            if plan.lookups:
                lookups, more_extra = await self._lookups(plan, data, auth, rid, cache)
                extra.extend(more_extra)
            else:
                lookups = {}
            ctx = self.backward.context(plan, lookups)
            builder.add(data, ctx)
            if not self._more(data):
                break
            cursor = self._next_cursor(data, page, seen, route.label)
            page += 1
            data, resp = await self._next_page(plan.request.method, plan.request.path, plan.request.query, cursor,
                                               page, auth, rid, route.op_id, route.label)
            problem = _not_an_answer(route, resp, f"{plan.request.method} {plan.request.path} (page {page})")
            if problem is not None:
                raise problem
        body = builder.finish(extra, ctx)
        return web.Response(status=route.op.v1_status, body=body, content_type=_JSON, headers=_upstream_headers(resp))

    async def _follow_up(self, plan: Plan, created: dict[str, Any], auth, rid, watch: Watch) -> dict[str, Any]:
        """Fields v2 takes only after a create (locked, R12): PATCH, or say that the create stood alone."""
        follow = plan.route.follow_up
        assert follow is not None and plan.follow_up is not None
        path = plan.follow_up.path
        for v2_name in follow.op.path_params.values():
            value = created.get(v2_name)
            if not isinstance(value, str) or not _SAFE_ID.fullmatch(value):  # never PATCH /v2/pods/None
                raise UpstreamError(f"the v2 upstream created a resource without a usable {v2_name} ({value!r}); "
                                    f"{follow.label} was not sent")
            path = path.replace("{" + v2_name + "}", value)
        req = V2Request(plan.follow_up.method, path, body=plan.follow_up.body)
        fields = ", ".join(sorted(plan.follow_up.body or {}))
        watch.before(f"{follow.label} ({fields})", f"created {created.get('id')}")
        try:
            got = await self._send(req, auth, rid, follow.op_id)
        except UpstreamError as exc:
            exc.within(f"created {created.get('id')}, but the follow-up {follow.label} failed")
            raise
        if not got.ok:
            err = self._error_from(got, plan, follow)
            ident = next((created.get(v) for v in follow.op.path_params.values()), None)
            raise err.within(f"created {ident}, but applying {fields} afterwards failed")
        watch.sent(f"{follow.label} ({fields})", got)
        data = got.json()
        return data if isinstance(data, dict) and data.get("id") else created

    async def _lookups(self, plan: Plan, data: Any, auth, rid,
                       cache: dict[str, Any] | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The reads behind include* flags and joins. Per-object reads (ids_from) cover the objects of `data`;
        whole-list reads are made once per request (`cache`, shared by the pages of one v1 list), and their
        extra items (catalog templates) are returned the first time only."""
        if not plan.lookups:
            return {}, []
        route = plan.route
        if route.op.shape in ("list", "billing"):
            objects = self.backward.items(route, data)
        else:
            objects = [data] if isinstance(data, dict) else []
        results: dict[str, Any] = {}
        extra: list[dict[str, Any]] = []
        for name, spec in plan.lookups:
            if spec.provides == "catalog":
                results["catalog"] = await self.catalog(auth, rid)
                continue
            if spec.ids_from:
                ids = list(dict.fromkeys(str(v) for o in objects for v in values_at(o, spec.ids_from)))
                bad = next((i for i in ids if not _SAFE_ID.fullmatch(i)), None)
                if bad is not None:
                    raise UpstreamError(f"{name}: the v2 upstream listed an id that is not one ({bad[:40]!r})")
                # at most `lookup_concurrency` reads at once per request (3,000 endpoints are 3,000 reads, not
                # 3,000 simultaneous connections); the first failure cancels the rest
                gate = asyncio.Semaphore(self.config.lookup_concurrency)

                async def read(ident: str, spec=spec) -> UpstreamResponse:
                    async with gate:
                        return await self.upstream.call("GET", spec.path.replace("{id}", ident), authorization=auth,
                                                        query=dict(spec.query) or None, label="lookup",
                                                        request_id=rid)

                try:
                    async with asyncio.TaskGroup() as group:
                        tasks = [group.create_task(read(i)) for i in ids]
                except* V1bridgeError as errors:
                    raise errors.exceptions[0] from None
                fetched = [t.result() for t in tasks]
                found: dict[str, Any] = {}
                for ident, got in zip(ids, fetched):
                    if got.status == 404:
                        continue
                    if not got.ok:
                        raise self._lookup_error(f"{name} of {ident}", got)
                    value = got.json()
                    found[ident] = value.get(spec.key) if spec.key and isinstance(value, dict) else value
                results[spec.provides] = found
                continue
            if cache is not None and name in cache:
                results[spec.provides] = cache[name]
                continue
            value, items = await self._read_lookup(name, spec, auth, rid)
            results[spec.provides] = value
            if cache is not None:
                cache[name] = value
            if spec.extends_list:
                extra.extend(items)
        return results, extra

    async def _read_lookup(self, name: str, spec, auth, rid) -> tuple[Any, list[dict[str, Any]]]:
        """One whole-list lookup, every page of it when the v2 list is paginated (a join over part of the pods
        would leave records unjoined without a word). Indexed lookups keep only their index, page by page."""
        query = list(spec.query.items())
        what = f"{name} lookup"
        got = await self.upstream.call("GET", spec.path, authorization=auth, query=query or None,
                                       label="lookup", request_id=rid)
        if not got.ok:
            raise self._lookup_error(name, got)
        value = got.json()
        index: dict[str, Any] = {}
        collected: list[dict[str, Any]] = []
        seen: set[str] = set()
        page = 1
        while True:
            items = value.get(spec.key) if spec.key and isinstance(value, dict) else value
            if (spec.key or spec.index_by or spec.extends_list) and not (
                    isinstance(items, list) and all(isinstance(i, dict) for i in items)):
                raise UpstreamError(f"{name} (GET {spec.path}) answered {got.status} with {_kind(got, value)} "
                                    f"where a list of objects{f' under {spec.key!r}' if spec.key else ''} was expected")
            if spec.index_by and isinstance(items, list):
                index.update((str(i.get(spec.index_by)), get_path(i, spec.value) if spec.value else i) for i in items)
                if spec.extends_list:
                    collected.extend(items)
            elif isinstance(items, list):
                collected.extend(items)
            if spec.path not in self.table.paginated or not self._more(value):
                break
            cursor = self._next_cursor(value, page, seen, what)
            page += 1
            value, got = await self._next_page("GET", spec.path, query, cursor, page, auth, rid, "lookup", what)
        if spec.index_by and isinstance(items, list):
            return index, collected
        return (collected if isinstance(items, list) else items), collected


def more_pages(pagination, data: Any) -> bool:
    block = data.get(pagination.block) if isinstance(data, dict) else None
    return isinstance(block, dict) and block.get(pagination.more) is True


def _kind(resp: UpstreamResponse, data: Any) -> str:
    """What a v2 body is, for a message: an empty body, a body that is not JSON, or a JSON <type>."""
    if not resp.body.strip():
        return "an empty body"
    if data is None:
        return f"a body that is not JSON ({resp.headers.get('Content-Type', 'no content type')})"
    return f"a JSON {type(data).__name__}"


def _not_an_answer(route: Route, resp: UpstreamResponse, call: str, *, creates: bool = False) -> UpstreamError | None:
    """A 2xx the proxy cannot translate is the upstream's failure (502 naming the call), never a success with a
    null, a foreign body or an invented id: empty or non-JSON where JSON is expected, an object that is not one,
    a list that is not a list of objects, a created resource without an id."""
    shape = route.op.shape
    if route.op.response is None or shape in ("empty", "raw"):
        return None
    data = resp.json()
    expected = "an object" if shape in ("object", "action") else "a list"
    problem: str | None = None
    if shape in ("object", "action"):
        if not isinstance(data, dict):
            problem = f"{_kind(resp, data)} where {expected} was expected"
        elif creates and not (isinstance(data.get("id"), str) and data["id"]):
            problem = f"a created object without an id ({data.get('id')!r})"
    elif shape in ("list", "billing"):
        key = route.list_key or route.records_key
        items = data.get(key) if isinstance(data, dict) and key else data
        where = f" under {key!r}" if isinstance(data, dict) and key else ""
        if isinstance(items, list) and not all(isinstance(i, dict) for i in items):
            problem = f"a list{where} whose entries are not all objects"
        elif not isinstance(items, list):
            kind = _kind(resp, data) if not isinstance(data, dict) else \
                ("no list" if items is None else f"a JSON {type(items).__name__}") + where
            problem = f"{kind} where {expected} was expected"
    if problem is None:
        return None
    return UpstreamError(f"the v2 upstream answered {resp.status} to {call} ({route.op_id}) with {problem}")


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


def _upstream_headers(resp: UpstreamResponse) -> dict[str, str]:
    """End-to-end headers of the v2 answer worth keeping (request id, rate limits, Retry-After)."""
    headers = resp.headers
    if "Connection" in headers:  # hop-by-hop names listed in Connection are dropped as well (rare: usually the
        listed = headers.getall("Connection")  # one value is keep-alive or close, itself dropped below)
        if len(listed) > 1 or listed[0].strip().lower() not in _PLAIN_CONNECTION:
            return dict(hop_filter(headers, _DROP_FROM_UPSTREAM))
    out: dict[str, str] = {}
    for name, value in headers.items():
        keep = _KEEP.get(name)
        if keep is None:
            if len(_KEEP) > 1024:
                _KEEP.clear()
            keep = _KEEP[name] = name.lower() not in _DROP_ALL
        if keep and name not in out:
            out[name] = value
    return out


_PLAIN_CONNECTION = frozenset({"keep-alive", "close"})
_KEEP: dict[str, bool] = {}  # header name as received -> kept in a v1 answer (saves a lower() per header)
