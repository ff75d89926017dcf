"""Serving one v1 operation: plan forward, call v2 (walks, steps, lookups), translate backward.

The emulations that need more than one v2 call live here: the fallback walk
over GPU types / CPU flavors, reset as stop then start, lock-after-create,
and the reads behind include* flags. Each either completes or answers an
error that says what happened; none is reported as success after a failure.
"""
from __future__ import annotations

import asyncio
import copy
import re
import time
from typing import Any

import orjson
from aiohttp import web

from mappings import load_schema
from mappings.converters import get_path, set_path
from mappings.translate import Catalog, NeedsLookup

from proxy.backward import Backward, ListBuilder, values_at
from proxy.config import ProxyConfig
from proxy.errors import V1Error
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

    __slots__ = ("api", "route", "params", "emulations", "rules", "v2_path")

    def __init__(self, api: str = "other") -> None:
        self.api = api  # v1 | v2 | ops | other
        self.route: Route | None = None
        self.params: dict[str, str] = {}
        self.emulations: list[str] = []
        self.rules: list[str] = []
        self.v2_path: str | None = None


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
        self._v1_schema = orjson.dumps(load_schema("v1"))
        self.lookups = self.m.conventions.lookups
        self.pagination = self.m.conventions.pagination

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
        info: RequestInfo = request[INFO]
        info.route = route
        params = dict(request.match_info)
        for name, value in params.items():  # an id must never name another path, query or header on v2
            if not _SAFE_ID.fullmatch(value):
                raise V1Error(400, f"{name} is not a valid id: 1 to 128 letters, digits, '-', '_' or '.', "
                                   "not starting with '.'")
        info.params = params
        auth = request.headers.get("Authorization")
        rid = request.headers.get("x-request-id")
        body: Any = None
        if route.op.request:
            try:
                async with asyncio.timeout(self.config.client_timeout):
                    raw = await request.read()
            except TimeoutError:
                raise V1Error(408, f"the request body did not arrive within {self.config.client_timeout:g}s") from None
            if raw.strip():
                try:
                    body = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    raise V1Error(400, "the request body is not valid JSON") from None
        plan: Plan | None = None
        try:
            plan = await self._plan(route, params, list(request.query.items()), body, auth, rid)
            if route.v2_path:
                info.v2_path = route.v2_url_path(params)
            elif plan.steps:
                info.v2_path = plan.steps[-1].path
            if route.op.policy == "local":
                return web.Response(body=self._v1_schema, content_type=_JSON)
            if plan.steps:
                resp = await self._run_steps(plan, auth, rid)
            else:
                resp = await self._call_with_walk(plan, auth, rid)
            return await self._answer(plan, resp, auth, rid)
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
        for _ in range(3):
            try:
                return self.forward.plan(route, params, query, body, current=current, catalog=catalog)
            except NeedsLookup as need:
                if need.what == "catalog" and catalog is None:
                    catalog = await self.catalog(auth, rid)
                elif need.what == "current" and current is None and route.current is not None:
                    got = await self.upstream.call(
                        "GET", route.current.v2_url_path(params), authorization=auth, label="lookup", request_id=rid
                    )
                    if not got.ok:
                        raise self._error_from(got, None, route) from None
                    current = got.json() or {}
                else:
                    raise V1Error(500, f"the translation needs {need.what} and it could not be fetched") from None
        raise V1Error(500, "the translation did not settle")

    async def catalog(self, auth: str | None, rid: str | None) -> Catalog:
        cached = self._catalog
        if cached and time.monotonic() - cached[0] < self.config.catalog_ttl:
            return cached[1]
        spec = self.lookups["catalog"]
        got = await self.upstream.call("GET", spec.path, authorization=auth, query=dict(spec.query) or None,
                                       label="lookup", request_id=rid)
        if not got.ok:
            raise V1Error(502, f"the GPU catalog could not be read from v2 (status {got.status})")
        catalog = Catalog.from_v2(got.json() or {})
        self._catalog = (time.monotonic(), catalog)
        return catalog

    # -------------------------------------------------------------- calls

    async def _send(self, req: V2Request, auth, rid, label: str) -> UpstreamResponse:
        return await self.upstream.call(
            req.method, req.path, authorization=auth, query=req.query, body=req.body, label=label, request_id=rid
        )

    async def _call_with_walk(self, plan: Plan, auth, rid) -> UpstreamResponse:
        """One call, or the v1 fallback walk: next choice on a capacity 400, stop on anything else (R02)."""
        assert plan.request is not None
        if plan.orderings:
            await self._rank_choices(plan, auth, rid)
        resp = await self._send(plan.request, auth, rid, plan.route.op_id)
        if resp.status != 400 or not plan.alternatives:
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
                try:
                    resp = await self._send(attempt, auth, rid, plan.route.op_id)
                except V1Error as exc:
                    exc.message = (f"the fallback stopped at {choice} after {', '.join(tried)} had no capacity: "
                                   f"{exc.message}; whether {choice} was placed is unknown")
                    raise
                tried.append(str(choice))
                if resp.status != 400:
                    plan.request = attempt
                    if not resp.ok:  # a failure other than capacity ends the walk, and says where
                        err = self._error_from(resp, plan, plan.route)
                        err.message = (f"the fallback stopped at {choice} after {', '.join(tried[:-1])} "
                                       f"had no capacity: {err.message}")
                        raise err
                    return resp
        err = self._error_from(resp, plan, plan.route)
        err.message = f"no choice could be placed (tried {', '.join(tried)}): {err.message}"
        raise err

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
            except V1Error:
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

    async def _run_steps(self, plan: Plan, auth, rid) -> UpstreamResponse:
        """reset = stop, then start; a failed step is answered with the step and the state left (R01)."""
        route = plan.route
        total = len(plan.steps)
        resp: UpstreamResponse | None = None
        for index, (step_req, step_route) in enumerate(zip(plan.steps, route.steps), start=1):
            deadline = time.monotonic() + self.config.reset_wait_seconds
            delay = 0.05
            failure: V1Error | None = None
            while True:
                try:
                    resp = await self._send(step_req, auth, rid, step_route.op_id)
                except V1Error as exc:  # unreachable / too slow: still name the step and the state left
                    failure = exc
                    break
                # a later step may be refused while the previous transition settles
                if index > 1 and resp.status == 409 and time.monotonic() + delay < deadline:
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 1.0)
                    continue
                break
            if failure is not None or not resp.ok:
                err = failure or self._error_from(resp, plan, route)
                state = await self._state(route, plan.params, auth, rid)
                done = ", ".join(s.label for s in route.steps[: index - 1]) or "nothing"
                err.message = (
                    f"{route.label} failed at step {index}/{total} ({step_route.label}) after {done} succeeded: "
                    f"{err.message}; {state}"
                )
                raise err
        assert resp is not None
        return resp

    async def _state(self, route: Route, params, auth, rid) -> str:
        if route.current is None or route.state_field is None:
            return "its state is unknown"
        try:
            got = await self.upstream.call("GET", route.current.v2_url_path(params), authorization=auth,
                                           label="lookup", request_id=rid)
        except V1Error:
            return "its state could not be read"
        if not got.ok:
            return f"its state could not be read (status {got.status})"
        obj = got.json() or {}
        v1_name, v2_name = route.state_field
        v1_value = self.backward.translators.response(route.op.response, obj).get(v1_name)
        return f"the resource was left with {v1_name} {v1_value} (v2 {v2_name} {get_path(obj, v2_name)})"

    # ----------------------------------------------------------- backward

    def _error_from(self, resp: UpstreamResponse, plan: Plan | None, route: Route) -> V1Error:
        message = self.backward.problem_message(resp.body, plan, resp.status)
        status = resp.status
        if status >= 500:
            # the upstream failed, not the request: a gateway error, named as such (504 stays a timeout)
            gateway = 504 if status == 504 else 502
            return V1Error(gateway, f"the v2 upstream failed ({status}): {message}", headers=_upstream_headers(resp))
        v1_status = route.status_errors.get(status)
        # strict: v2's status as is (an error either way; emulating only restores v1's number)
        if v1_status is not None and route.status_policy and not self.forward.is_strict(route.status_policy):
            if plan is not None:
                plan.engage(route.status_policy)
            status = v1_status
        return V1Error(status, message, headers=_upstream_headers(resp))

    async def _answer(self, plan: Plan, resp: UpstreamResponse, auth, rid) -> web.Response:
        route = plan.route
        if not resp.ok:
            raise self._error_from(resp, plan, route)
        data = resp.json()
        _check_body(route, resp, data)
        if route.paginated and self._more(data):
            return await self._answer_pages(plan, resp, data, auth, rid)
        if plan.follow_up is not None and isinstance(data, dict):
            data = await self._follow_up(plan, data, auth, rid)
        status = route.op.v1_status
        if route.status_policy and resp.status != status:
            if self.forward.is_strict(route.status_policy):
                status = resp.status  # strict: v2's status (201 on create), never a refused create
            else:
                plan.engage(route.status_policy)
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

    # ---------------------------------------------------------- pagination

    def _more(self, data: Any) -> bool:
        """The page says more follow (Q30). A body without the block is a whole list (a server before paging)."""
        block = data.get(self.pagination.block) if isinstance(data, dict) else None
        return isinstance(block, dict) and block.get(self.pagination.more) is True

    def _next_cursor(self, data: dict[str, Any], page: int, seen: set[str], what: str) -> str:
        cursor = data[self.pagination.block].get(self.pagination.next)
        if not isinstance(cursor, str) or not cursor:
            raise V1Error(502, f"{what}: page {page} of the v2 list says more pages follow but gives no cursor; "
                               "the list is answered whole or not at all")
        if cursor in seen:
            raise V1Error(502, f"{what}: the v2 list handed out the same cursor twice (page {page}); "
                               "the list is answered whole or not at all")
        if page >= self.pagination.max_pages:
            raise V1Error(502, f"{what}: the v2 list has more than {self.pagination.max_pages} pages; "
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
        except V1Error as exc:
            raise V1Error(502, f"{what}: page {page} of the v2 list failed: {exc.message}{suffix}") from None
        if not got.ok:
            detail = self.backward.problem_message(got.body, None, got.status)
            raise V1Error(502, f"{what}: page {page} of the v2 list failed (v2 status {got.status}): {detail}{suffix}",
                          headers=_upstream_headers(got))
        data = got.json()
        if not isinstance(data, dict):
            raise V1Error(502, f"{what}: page {page} of the v2 list is not a JSON object{suffix}")
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
        body = builder.finish(extra, ctx)
        return web.Response(status=route.op.v1_status, body=body, content_type=_JSON, headers=_upstream_headers(resp))

    async def _follow_up(self, plan: Plan, created: dict[str, Any], auth, rid) -> dict[str, Any]:
        """Fields v2 takes only after a create (locked, R12): PATCH, or say that the create stood alone."""
        follow = plan.route.follow_up
        assert follow is not None and plan.follow_up is not None
        path = plan.follow_up.path
        for v2_name in follow.op.path_params.values():
            path = path.replace("{" + v2_name + "}", str(created.get(v2_name)))
        req = V2Request(plan.follow_up.method, path, body=plan.follow_up.body)
        try:
            got = await self._send(req, auth, rid, follow.op_id)
        except V1Error as exc:
            exc.message = f"created {created.get('id')}, but the follow-up {follow.label} failed: {exc.message}"
            raise
        if not got.ok:
            err = self._error_from(got, plan, follow)
            ident = next((created.get(v) for v in follow.op.path_params.values()), None)
            fields = ", ".join(sorted(plan.follow_up.body or {}))
            err.message = f"created {ident}, but applying {fields} afterwards failed: {err.message}"
            raise err
        return got.json() or created

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
                fetched = await asyncio.gather(
                    *(self.upstream.call("GET", spec.path.replace("{id}", i), authorization=auth,
                                         query=dict(spec.query) or None, label="lookup", request_id=rid) for i in ids)
                )
                found: dict[str, Any] = {}
                for ident, got in zip(ids, fetched):
                    if got.status == 404:
                        continue
                    if not got.ok:
                        raise V1Error(502, f"{name} could not be read from v2 for {ident} (status {got.status})")
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
            raise V1Error(502, f"{name} could not be read from v2 (status {got.status})")
        value = got.json()
        index: dict[str, Any] = {}
        collected: list[dict[str, Any]] = []
        seen: set[str] = set()
        page = 1
        while True:
            items = value.get(spec.key, []) if spec.key and isinstance(value, dict) else value
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
            value, _ = await self._next_page("GET", spec.path, query, cursor, page, auth, rid, "lookup", what)
        if spec.index_by and isinstance(items, list):
            return index, collected
        return (collected if isinstance(items, list) else items), collected


def _check_body(route: Route, resp: UpstreamResponse, data: Any) -> None:
    """A 2xx the proxy cannot translate is the upstream's failure (502), never a success with a null or foreign body."""
    if data is None and resp.body.strip():
        kind = resp.headers.get("Content-Type", "no content type")
        raise V1Error(502, f"the v2 upstream answered {resp.status} with a body that is not JSON ({kind})")
    shape = route.op.shape
    if data is None or route.op.response is None:
        return
    if shape in ("object", "action") and not isinstance(data, dict) or (
        shape in ("list", "billing") and not isinstance(data, (dict, list))
    ):
        expected = "an object" if shape in ("object", "action") else "a list"
        raise V1Error(502, f"the v2 upstream answered {resp.status} with a JSON {type(data).__name__} "
                           f"where {expected} was expected")


def _upstream_headers(resp: UpstreamResponse) -> dict[str, str]:
    """End-to-end headers of the v2 answer worth keeping (request id, rate limits, Retry-After)."""
    headers = resp.headers
    if "Connection" in headers:  # rare: hop-by-hop names listed in Connection are dropped as well
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


_KEEP: dict[str, bool] = {}  # header name as received -> kept in a v1 answer (saves a lower() per header)
