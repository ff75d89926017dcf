"""Executing a prepared GraphQL document against v2, with the v1 pipeline's own machinery.

Each selected operation runs its resolver (operations.py): an operation served by a v1 REST route is planned by
that route's planner (`V1Service._plan`: the request map, policies, lookups), finished with what only GraphQL
says (`finish_plan`), executed by the same emulations (walk, steps, follow-up: deadlines and the client checked
before every step that changes something) and its failures named by the same `Failures`; a list is read page by
page to its end (`Pages`). A direct v2 call goes through the same per-request `Call`. Mutations run one after the
other, in document order (GraphQL's rule); query fields at most `limits.concurrency` at a time. Only selected
fields run: `myself { pods { id } }` calls the pod list and nothing else.
"""
from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

import orjson
from graphql import FieldNode, GraphQLObjectType
from graphql.execution.values import get_argument_values

from mappings.converters import get_path
from mappings.errors import ClientInputError, Unsupported, UpstreamError, V1bridgeError

from proxy.context import Call, RequestInfo
from proxy.emulations.pages import not_a_page
from proxy.failures import not_an_answer
from proxy.forward import Plan, V2Request
from proxy.graphql.operations import Invocation, Operation, finish_plan
from proxy.graphql.schema import Prepared, error_object
from proxy.graphql.typed import TypedSelection
from proxy.graphql.views import PENDING, Fetch, Views, _Null, _Slow

if TYPE_CHECKING:
    from aiohttp import web

    from proxy.config import ProxyConfig
    from proxy.routes import Route
    from proxy.upstream import Upstream, UpstreamResponse
    from proxy.v1 import V1Service

# extensions.code by the HTTP status an error carries
CODES = {400: "BAD_USER_INPUT", 401: "UNAUTHENTICATED", 403: "FORBIDDEN", 404: "NOT_FOUND", 408: "TIMEOUT",
         409: "CONFLICT", 413: "PAYLOAD_TOO_LARGE", 422: "BAD_USER_INPUT", 429: "RATE_LIMITED",
         499: "CLIENT_CLOSED_REQUEST", 501: "NOT_SUPPORTED_BY_V2", 502: "UPSTREAM_FAILED", 504: "DEADLINE_EXCEEDED"}


class Request:
    """One GraphQL HTTP request as it runs: the credentials, one deadline for the whole document, what was
    engaged (policies, rules) and which operations ran (telemetry: one record each)."""

    def __init__(self, request: web.Request, info: RequestInfo, config: ProxyConfig, upstream: Upstream,
                 prepared: Prepared, variables: Any, raw_variables: dict[str, Any] | None = None) -> None:
        self.request = request
        self.info = info
        self.config = config
        self.upstream = upstream
        self.prepared = prepared
        self.variables = variables
        self.raw_variables = raw_variables or {}
        self.ends = time.monotonic() + config.request_deadline
        self.emulations: list[str] = []
        self.rules: list[str] = []
        self.operations: list[tuple[str, int]] = []  # (graphql.yaml id, status) of each operation run
        self.v2_paths: list[str] = []
        self.errors: list[dict[str, Any]] = []
        self.unauthorized: V1bridgeError | None = None
        self.called = False  # a v2 call was made with the caller's key (else the key is checked on its own)
        self.fetched: dict[str, Any] = {}  # nested records read by id (a v2 path -> the record or its error)

    def call(self, route: Route | None, params: dict[str, str]) -> Call:
        self.called = True
        call = Call(self.request, self.info, route, params, self.config, self.upstream)  # type: ignore[arg-type]
        call.ends = self.ends  # one deadline for the whole document
        return call

    def client_gone(self) -> bool:
        transport = self.request.transport
        return transport is None or transport.is_closing()

    def engaged(self, policies: list[str], rules: list[str]) -> None:
        for p in policies:
            if p not in self.emulations:
                self.emulations.append(p)
        for r in rules:
            if r and r not in self.rules:
                self.rules.append(r)


class Executor:
    def __init__(self, service: V1Service, operations: dict[tuple[str | None, str], Operation], views: Views,
                 containers: frozenset[str], concurrency: int, key_check: str | None) -> None:
        self.service = service
        self.key_check = key_check.split()[1] if key_check else None
        self.operations = operations
        self.views = views
        self.containers = containers
        self.concurrency = concurrency
        self.schema = views.schema
        query = self.schema.query_type
        assert query is not None
        # the type of each container field -> its name (User -> myself)
        self.container_of = {_named(query.fields[name].type).name: name for name in containers if name in query.fields}

    async def run(self, req: Request) -> dict[str, Any] | None:
        prepared = req.prepared
        root = self.schema.mutation_type if prepared.kind == "mutation" else self.schema.query_type
        assert root is not None
        fields = self.views.collect(prepared, root, (prepared.operation,), req.variables)
        data: dict[str, Any] = {}
        if prepared.kind == "mutation":
            for key, nodes in fields.items():
                data[key] = await self._root(req, root, key, nodes)
        elif len(fields) == 1:  # one field: nothing to run together
            for key, nodes in fields.items():
                data[key] = await self._root(req, root, key, nodes)
        else:
            gate = asyncio.Semaphore(self.concurrency)
            values = await asyncio.gather(*(self._gated(gate, req, root, key, nodes) for key, nodes in fields.items()))
            data = dict(zip(fields, values))
        if not req.called and req.unauthorized is None and self.key_check is not None:
            await self._check_key(req)
        return data

    async def _check_key(self, req: Request) -> None:
        """A document that made no v2 call (`myself { id }`, a gap, introspection) has its key checked by v2 all the
        same: a key v2 refuses is the provider's 401, whatever the document asked. Any other failure of the check
        leaves the answer as it is (it needed nothing from v2)."""
        path = self.key_check
        assert path is not None
        resp = await req.call(None, {}).read(path, label="key check")
        if resp.status == 401:
            req.unauthorized = UpstreamError(self.service.backward.problem_message(resp.body, None, 401), status=401,
                                             upstream_status=401)

    async def _gated(self, gate: asyncio.Semaphore, req: Request, parent: GraphQLObjectType, key: str,
                     nodes: list[FieldNode], path: list[Any] | None = None) -> Any:
        async with gate:
            return await self._root(req, parent, key, nodes, path, gate)

    async def _root(self, req: Request, parent: GraphQLObjectType, key: str, nodes: list[FieldNode],
                    path: list[Any] | None = None, gate: asyncio.Semaphore | None = None) -> Any:
        """One operation field (a root field, or a field of a container such as `myself`), completed."""
        name = nodes[0].name.value
        path = [*(path or []), key]
        if name == "__typename":
            return parent.name
        if name in ("__schema", "__type"):
            return self._introspection(req, key, nodes)
        field_def = parent.fields[name]
        if name in self.containers:
            return await self._container(req, field_def.type, nodes, path, gate)
        operation = self.operations[(None if parent is self._root_type(req) else self.container_of[parent.name],
                                     name)]
        try:
            if req.client_gone():
                raise ClientInputError(f"the client disconnected; {operation.op.selection} was not run", status=499)
            if time.monotonic() >= req.ends:
                raise UpstreamError(f"the request reached its {req.config.request_deadline:g}s deadline; "
                                    f"{operation.op.selection} was not run", status=504)
            typed = None
            serve = operation.serve
            if serve.answer == "view" and not serve.filter and not serve.list_key and operation.route is not None:
                typed = self.views.typed(req.prepared, field_def.type, nodes)
            value = await self.resolve(req, operation, field_def, nodes[0], typed)
            req.operations.append((operation.op.id, 200))
        except V1bridgeError as exc:
            req.operations.append((operation.op.id, exc.status))
            req.errors.append(_error(exc, nodes[0], path, operation))
            if exc.status == 401 and req.unauthorized is None:
                req.unauthorized = exc
            return None
        if value.__class__ is orjson.Fragment:  # read typed: completed and serialised already
            return value
        pending: list[tuple[Any, ...]] = []
        done = self._complete(req, field_def.type, nodes, value, path, pending)
        if pending:
            await self._fetch_nested(req, pending, done, path)
        return done

    def _complete(self, req: Request, gtype: Any, nodes: list[FieldNode], value: Any, path: list[Any],
                  pending: list[tuple[Any, ...]]) -> Any:
        """`value` completed as `gtype` selected by `nodes`: compiled, else exactly (each error with its path);
        nested records to fetch are left in `pending`."""
        token = PENDING.set(pending)
        try:
            try:
                return self.views.completer(req.prepared, gtype, nodes, req.variables)(value)
            except _Slow:
                del pending[:]  # the exact completion leaves them again, with their paths
            errors: list[dict[str, Any]] = []
            try:
                done = self.views.complete(req.prepared, gtype, nodes, value, list(path), req.variables, errors)
            except _Null:
                done = None
            req.errors.extend(errors)
            return done
        finally:
            PENDING.reset(token)

    async def _fetch_nested(self, req: Request, pending: list[tuple[Any, ...]], root: Any, root_path: list[Any]) -> None:
        """The nested records a completion left to fetch (graphql.yaml `fetch`: v2 holds them by id), level by
        level: each id read once per request, at most `limits.concurrency` calls at once; a record v2 cannot give
        is null with an error at its path."""
        gate = asyncio.Semaphore(self.concurrency)
        paths: dict[int, list[Any]] | None = None
        while pending:
            wanted: dict[tuple[str, Any], Fetch] = {}
            urls = []
            for fetch, nodes, _, _, ident, _ in pending:
                url = self._url(req, fetch, nodes, ident)
                urls.append(url)
                if url is not None and url not in req.fetched:
                    wanted[url] = fetch
            if wanted:
                got = await asyncio.gather(*(self._fetch(req, gate, url, fetch) for url, fetch in wanted.items()))
                req.fetched.update(zip(wanted, got))
            level, pending = pending, []
            for (fetch, nodes, out, key, ident, path), url in zip(level, urls):
                if path is None:
                    if paths is None:
                        paths = _paths(root, list(root_path))
                    path = [*paths.get(id(out), root_path), key]
                record = req.fetched[url] if url is not None else UpstreamError(
                    f"{fetch.label}: v2 gave {ident!r} as the id, which is not one", status=502)
                if isinstance(record, V1bridgeError):
                    req.errors.append(error_object(record.message, CODES.get(record.status, "INTERNAL_SERVER_ERROR"),
                                                   nodes[0], path, status=record.status))
                    if record.status == 401 and req.unauthorized is None:
                        req.unauthorized = record
                    continue
                out[key] = self._complete(req, fetch.type, nodes, record, path, pending)

    def _url(self, req: Request, fetch: Fetch, nodes: list[FieldNode], ident: Any) -> tuple[str, Any] | None:
        """The v2 call (path, query) reading one nested record (None: the id v2 gave is not one)."""
        if not isinstance(ident, str) or ident in ("", ".", "..") or len(ident) > 256:
            return None
        args = get_argument_values(fetch.field_def, nodes[0], req.variables) if nodes[0].arguments else {}
        return fetch.call(quote(ident, safe=""), args)  # re-encoded: an id never adds path segments

    async def _fetch(self, req: Request, gate: asyncio.Semaphore, call: tuple[str, Any], fetch: Fetch) -> Any:
        """One nested record by its v2 call: the record, or the error to show in its place."""
        async with gate:
            if req.client_gone():
                return ClientInputError(f"the client disconnected; {fetch.label} was not read", status=499)
            if time.monotonic() >= req.ends:
                return UpstreamError(f"the request reached its {req.config.request_deadline:g}s deadline; "
                                     f"{fetch.label} was not read", status=504)
            path, query = call
            url = f"{path}?{urlencode(query)}" if query else path
            req.v2_paths.append(path)
            try:
                resp = await req.call(None, {}).read(path, list(query), label=fetch.label)
                if resp.ok:
                    return resp.json()
            except V1bridgeError as exc:
                return exc
            except ValueError:
                return UpstreamError(f"{fetch.label}: GET {url} did not answer JSON", status=502)
            message = self.service.backward.problem_message(resp.body, None, resp.status)
            if resp.status == 404:
                return ClientInputError(f"{fetch.label}: v2 has no record at GET {url} ({message})", status=404)
            return UpstreamError(message if resp.status < 500 else f"the v2 upstream failed ({resp.status}): {message}",
                                 status=resp.status if resp.status < 500 else 502, upstream_status=resp.status)

    def _introspection(self, req: Request, key: str, nodes: list[FieldNode]) -> Any:
        """`__schema` / `__type`: answered by graphql-core's executor from the schema alone (no v2 call)."""
        from graphql import DocumentNode, OperationDefinitionNode, OperationType, SelectionSetNode, execute_sync

        prepared = req.prepared
        document = DocumentNode(definitions=(
            OperationDefinitionNode(operation=OperationType.QUERY, selection_set=SelectionSetNode(
                selections=tuple(nodes)), variable_definitions=prepared.operation.variable_definitions or (),
                directives=()),
            *prepared.fragments.values()))
        result = execute_sync(self.schema, document, variable_values=req.raw_variables)
        for error in result.errors or ():
            req.errors.append({"message": error.message, "path": list(error.path or [key]),
                               "extensions": {"code": "INTERNAL_SERVER_ERROR"}})
        return (result.data or {}).get(key)

    def _root_type(self, req: Request) -> GraphQLObjectType:
        root = self.schema.mutation_type if req.prepared.kind == "mutation" else self.schema.query_type
        assert root is not None
        return root

    async def _container(self, req: Request, gtype: Any, nodes: list[FieldNode], path: list[Any],
                         gate: asyncio.Semaphore | None) -> Any:
        """A grouping field (`myself`): each of its selected fields is an operation of its own."""
        fields = self.views.collect(req.prepared, gtype, nodes, req.variables)
        if gate is None or len(fields) == 1:
            values = [await self._root(req, gtype, key, fnodes, path) for key, fnodes in fields.items()]
        else:
            # the container holds its parent's slot: its own fields run in a gate of their own, as bounded
            inner = asyncio.Semaphore(self.concurrency)
            values = await asyncio.gather(*(self._gated(inner, req, gtype, key, fnodes, path)
                                            for key, fnodes in fields.items()))
        return dict(zip(fields, values))

    # ------------------------------------------------------------------ resolving

    async def resolve(self, req: Request, operation: Operation, field_def: Any, node: FieldNode,
                      typed: TypedSelection | None = None) -> Any:
        """The v2 value an operation answers (a record, a list of records, or a scalar); with `typed` (a plain
        view of a planned route's answer), possibly the completed answer already (an orjson.Fragment)."""
        prepared = req.prepared
        if prepared.operation.variable_definitions:  # the arguments depend on this request's variables
            args = get_argument_values(field_def, node, req.variables)
            inv = operation.invocation(args)
        else:  # inline literals only: the same invocation every time this document runs
            key = ("invocation", id(node))
            found = prepared.collected.get(key)
            if found is None:
                args = get_argument_values(field_def, node, None)
                found = prepared.collected[key] = (args, operation.invocation(args))
            args, inv = found
            inv = inv.fresh()
        serve = operation.serve
        req.engaged([], inv.rules)
        if serve.answer == "gap":
            raise Unsupported(f"{operation.op.selection} has no v2 equivalent ({operation.op.id}): "
                              f"{operation.op.note}", rule=operation.op.id)
        if inv.route is None and inv.direct is None:  # v2 has no value for it (null where the schema allows)
            return None
        for param, how, name in inv.finds:
            inv.params[param] = await self._find(req, how.v1, how.by, name, operation)
        if inv.route is not None:
            value = await self._planned(req, inv, typed)
        else:
            value = await self._direct(req, inv)
        if serve.answer == "none":  # Void: the call's answer is not the client's
            return None
        if serve.list_key and isinstance(value, dict):
            value = value.get(serve.list_key)
        if serve.filter and isinstance(value, list):
            for arg, field_name in serve.filter.items():
                wanted = get_path(args, arg)
                if wanted is None:
                    continue
                allowed = {str(w) for w in (wanted if isinstance(wanted, list) else [wanted])}
                value = [r for r in value if isinstance(r, dict) and str(r.get(field_name)) in allowed]
        if serve.answer == "sum" and serve.sum is not None:
            total = 0.0
            for record in value or []:
                if all(get_path(record, k) == v for k, v in serve.sum.where.items()):
                    total += float(get_path(record, serve.sum.of) or 0)
            return round(total, 6)
        if serve.answer == "value" and serve.value is not None:
            from mappings.graphql_converters import VIEWS

            got = get_path(value, serve.value.from_)
            return VIEWS[serve.value.convert](got) if serve.value.convert else got
        return value

    async def _planned(self, req: Request, inv: Invocation, typed: TypedSelection | None = None) -> Any:
        route = inv.route
        assert route is not None
        service = self.service
        call = req.call(route, inv.params)
        if inv.same_as:
            await self._check_same(req, call, inv)
        plan: Plan = await service._plan(call, [], inv.body)
        finish_plan(plan, inv, service.forward)
        call.plan = plan
        call.emulations = list(plan.emulations)
        if plan.request is not None:
            req.v2_paths.append(plan.request.path)
        try:
            outcome = await service.emulations.execute(call, plan)
        finally:
            req.engaged(call.emulations, plan.rules)
        resp = outcome.resp
        if not resp.ok:
            raise service.failures.error_from(resp, call, route)
        if outcome.followed is not None:
            return outcome.followed
        if resp.spool is not None:  # a large first page was spooled by the walk: GraphQL reads it whole
            resp.load()
        if resp.status == 204 or route.op.shape == "empty" or not resp.body:
            return None
        if plan.request is not None and not plan.steps and not route.list_key:  # a list: checked page by page
            problem = not_an_answer(route, resp, f"{plan.request.method} {plan.request.path}", creates=route.creates)
            if problem is not None:
                raise problem
        if typed is not None and plan.request is not None and not plan.steps:
            if route.list_key:
                pagination = service.emulations.pages.pagination
                done = typed.read_page(resp.body, route.list_key, pagination.block, pagination.more, pagination.next,
                                       route.paginated)
            else:
                done = typed.read_object(resp.body)
            if done is not None:
                return done
        data = resp.json()
        if route.list_key:
            return await self._all_pages(call, plan, route, data)
        return data

    async def _all_pages(self, call: Call, plan: Plan, route: Route, first: Any) -> list[Any]:
        """Every page of a v2 list: all or an error naming the page (never part of a list)."""
        pages = self.service.emulations.pages
        request = plan.request
        assert request is not None
        if not isinstance(first, dict) or not isinstance(first.get(route.list_key), list):
            raise not_a_page(route.label, 1)
        records = list(first[route.list_key])
        seen: set[str] = set()
        page, current = 1, first
        while route.paginated and pages.checked_more(current, page, route.label):  # each page v2-shaped
            cursor = pages.next_cursor(current, page, seen, route.label)
            page += 1
            current, _ = await pages.next_page(call, request.method, request.path, request.query, cursor, page,
                                               route.op_id, route.label)
            if current is None:
                raise UpstreamError(f"{route.label}: page {page} of the v2 list is too large to read here")
            if not isinstance(current.get(route.list_key), list):
                raise not_a_page(route.label, page)
            records.extend(current[route.list_key])
        return records

    async def _check_same(self, req: Request, call: Call, inv: Invocation) -> None:
        """Arguments v2 cannot change on this operation (podResume gpuCount) must equal the resource's own."""
        route = inv.route
        assert route is not None
        current = route.current
        if current is None:
            raise Unsupported(f"{inv.op.selection}: the resource's current state cannot be read")
        got = await call.read(current.v2_url_path(dict(inv.params)), label=inv.op.id)
        if not got.ok:
            raise self.service.failures.error_from(got, None, current)
        record = got.json()
        for path, wanted, rule in inv.same_as:
            have = get_path(record, path)
            if have is not None and wanted is not None and wanted != have:
                raise Unsupported(f"{inv.op.selection}: v2 cannot change {path} when it resumes a pod (it has "
                                  f"{have}, {wanted} was asked) ({rule}): {inv.op.note}; resume with {have}, or "
                                  f"create a pod with gpu.count {wanted} (POST /v2/pods)", rule=rule)

    async def _direct(self, req: Request, inv: Invocation) -> Any:
        v2 = inv.direct_request()
        call = req.call(None, inv.params)
        label = inv.op.id
        step = f"{v2.method} {v2.path}"
        req.v2_paths.append(v2.path)
        if v2.method != "GET":
            call.before(step, "nothing was sent")
        resp = await call.send(v2, label)
        if v2.method != "GET":
            call.sent(step, resp)
        if not resp.ok:
            message = self.service.backward.problem_message(resp.body, None, resp.status)
            status = resp.status if resp.status < 500 else 502
            raise UpstreamError(message if resp.status < 500 else f"the v2 upstream failed ({resp.status}): {message}",
                                status=status, upstream_status=resp.status)
        if resp.status == 204 or not resp.body:
            return None
        return resp.json()

    async def _find(self, req: Request, op_id: str, by: str, name: str, operation: Operation) -> str:
        """An id by name, from every page of a v2 list (deleteTemplate's templateName)."""
        route = self.service.table[op_id]
        call = req.call(route, {})
        plan = await self.service._plan(call, [], None)
        call.plan = plan
        outcome = await self.service.emulations.execute(call, plan)
        if not outcome.resp.ok:
            raise self.service.failures.error_from(outcome.resp, call, route)
        records = await self._all_pages(call, plan, route, outcome.resp.json())
        found = [r for r in records if isinstance(r, dict) and r.get(by) == name]
        if not found:
            raise ClientInputError(f"{operation.op.selection}: no {route.op.resource or 'record'} with {by} "
                                   f"{name!r}", status=404)
        return str(found[0]["id"])


def _paths(value: Any, path: list[Any], out: dict[int, list[Any]] | None = None) -> dict[int, list[Any]]:
    """id() of each object in a completed value -> its path (where a nested fetch that failed is named)."""
    out = {} if out is None else out
    if isinstance(value, dict):
        out[id(value)] = path
        for key, item in value.items():
            _paths(item, [*path, key], out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _paths(item, [*path, index], out)
    return out


def _named(gtype: Any) -> Any:
    while hasattr(gtype, "of_type"):
        gtype = gtype.of_type
    return gtype


def _error(exc: V1bridgeError, node: FieldNode, path: list[Any], operation: Operation) -> dict[str, Any]:
    return error_object(exc.message, CODES.get(exc.status, "INTERNAL_SERVER_ERROR"), node, list(path),
                        status=exc.status, operation=operation.op.selection, rule=exc.rule or operation.op.id,
                        policy=exc.policy)
