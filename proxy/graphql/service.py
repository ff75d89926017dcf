"""`POST /graphql`: the provider's GraphQL API served from v2 (issue 22; docs/proxy.md "GraphQL").

The request: `{"query", "variables", "operationName"}` as JSON (or `application/graphql` text), the key in
`Authorization: Bearer` or `?api_key=` (never logged: telemetry sees the salted fingerprint of `Bearer <key>`,
the same client either way). The answer: `{"data", "errors"}` in GraphQL's shape; a refused key is HTTP 401 as the
provider answered; a document that cannot run (syntax, validation, limits, variables) is a 400 with `errors`
only; no caller mistake is a 5xx. Headers: `Deprecation` (the GraphQL API retires early 2027), `Link` to the v2
successor, and the policies and rules engaged (`X-V1bridge-Emulation`, `X-V1bridge-Rules`).
"""
from __future__ import annotations

import asyncio
from calendar import timegm
from datetime import datetime
from typing import Any

import orjson
from aiohttp import web
from multidict import istr

from mappings import default_mappings
from mappings.errors import MappingError

from proxy.config import ProxyConfig
from proxy.context import INFO, RequestInfo
from proxy.graphql.execute import CODES, Executor, Request
from proxy.graphql.operations import Operation
from proxy.graphql.schema import Documents, GraphQLRequestError, error_object, schema
from proxy.graphql.views import Views
from proxy.v1 import V1Service

_JSON = "application/json"


class GraphQLService:
    """The endpoint's state, built once per app: schema, prepared-document cache, resolvers, views."""

    def __init__(self, service: V1Service, config: ProxyConfig) -> None:
        m = default_mappings()
        inventory = m.graphql
        if inventory is None or inventory.limits is None:
            raise MappingError("graphql.yaml: no limits for the GraphQL endpoint")
        self.config = config
        self.service = service
        self.limits = inventory.limits
        self.documents = Documents(inventory.limits, config.max_body)
        self.schema = schema()
        self.views = Views(m, self.schema)
        self.operations = operations(m, service.table)
        check_schema(self.schema, self.operations, frozenset(inventory.containers))
        self.executor = Executor(service, self.operations, self.views, frozenset(inventory.containers),
                                 inventory.limits.concurrency, inventory.endpoint.key_check)
        # a walk over choices GraphQL adds (cloudType ALL -> cloud) moves on and waits as its policy says
        walk = service.emulations.walk
        for op in self.operations.values():
            for spec in op.serve.args.values():
                if spec.choices_at and spec.policy:
                    policy = m.policies[spec.policy]
                    walk.walk_on.setdefault(spec.choices_at, list(policy.walk_on))
                    walk.wait_on.setdefault(spec.choices_at, list(policy.wait_on))
        # telemetry: one usage record and metric per operation run, labelled as the audit names the operation
        self.labels = {op.id: f"POST {inventory.endpoint.paths[0]} {op.kind} {op.selection}"
                       for op in inventory.operations}
        self.path = inventory.endpoint.paths[0]
        conv = m.conventions
        self.emulation_header, self.rule_header = istr(conv.emulation_header), istr(conv.rule_header)
        self.policy_header = {pid: p.header for pid, p in m.policies.items()}
        self.deprecation = _deprecation(inventory.endpoint)

    async def handle(self, request: web.Request) -> web.Response:
        info = request.get(INFO) or RequestInfo("graphql")
        headers: dict[str, str] = {"Deprecation": self.deprecation}
        try:
            auth = _credentials(request)
            info.auth = auth
            body = await self._body(request)
            query, variables, operation_name = _fields(body)
            prepared = self.documents.prepare(query, operation_name)
            coerced = _variables(self.schema, prepared, variables)
            if auth is None:
                return self._answer(401, {"errors": [error_object(
                    "no API key: send Authorization: Bearer <key> or ?api_key=<key>", "UNAUTHENTICATED")]}, headers)
            req = Request(request, info, self.config, self.service.upstream, prepared, coerced, variables)
            try:
                data = await self.executor.run(req)
            finally:
                info.graphql = req.operations
                info.emulations = req.emulations
                info.rules = req.rules
                info.v2_path = req.v2_paths[0] if req.v2_paths else None
            if req.unauthorized is not None:
                return self._answer(401, {"errors": [error_object(req.unauthorized.message, "UNAUTHENTICATED")]},
                                    headers)
            out: dict[str, Any] = {"data": data}
            if req.errors:
                out["errors"] = req.errors
            if req.emulations:
                headers[self.emulation_header] = ", ".join(self.policy_header[p] for p in req.emulations)
            if req.rules:
                headers[self.rule_header] = ", ".join(req.rules)
            if req.v2_paths:
                headers["Link"] = f'<{req.v2_paths[0]}>; rel="successor-version"'
            return self._answer(200, out, headers)
        except GraphQLRequestError as exc:
            return self._answer(exc.status, {"errors": exc.errors}, headers)

    def _answer(self, status: int, body: dict[str, Any], headers: dict[str, str]) -> web.Response:
        return web.Response(status=status, body=orjson.dumps(body), content_type=_JSON, headers=headers)

    async def _body(self, request: web.Request) -> Any:
        """The request body within --max-body and the client timeout; a GET's query string is its body."""
        limit = self.config.max_body
        if request.method == "GET":
            return {"query": request.query.get("query"), "variables": request.query.get("variables"),
                    "operationName": request.query.get("operationName")}
        length = request.content_length
        if length is not None and length > limit:
            raise GraphQLRequestError([error_object(f"the request body is larger than {limit} bytes",
                                                    "PAYLOAD_TOO_LARGE")], status=413)
        try:
            if length is not None and request.content.is_eof():  # all here already (a small body): no wait to bound
                raw = await request.read()
            else:
                async with asyncio.timeout(self.config.client_timeout):
                    # a body of announced length is bounded by aiohttp (client_max_size = --max-body); chunked by us
                    raw = await request.read() if length is not None else await _read_bounded(request, limit)
        except TimeoutError:
            raise GraphQLRequestError([error_object(
                f"the request body did not arrive within {self.config.client_timeout:g}s", "TIMEOUT")],
                status=408) from None
        if request.content_type == "application/graphql":
            return {"query": raw.decode("utf-8", "replace")}
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise GraphQLRequestError([error_object("the request body is not valid JSON", "BAD_REQUEST")]) from None


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> web.Response:
    """An error the proxy answers for a GraphQL request outside the endpoint (overload 503, 405, 413), in
    GraphQL's shape."""
    code = CODES.get(status, "INTERNAL_SERVER_ERROR" if status >= 500 else "BAD_REQUEST")
    return web.Response(status=status, body=orjson.dumps({"errors": [error_object(message, code)]}),
                        content_type=_JSON, headers=headers)


async def _read_bounded(request: web.Request, limit: int) -> bytes:
    parts: list[bytes] = []
    seen = 0
    async for chunk in request.content.iter_any():
        seen += len(chunk)
        if seen > limit:
            raise GraphQLRequestError([error_object(f"the request body is larger than {limit} bytes",
                                                    "PAYLOAD_TOO_LARGE")], status=413)
        parts.append(chunk)
    return b"".join(parts)


def _credentials(request: web.Request) -> str | None:
    """`Authorization` as sent, else `?api_key=` as `Bearer <key>` (one client, one fingerprint, either way)."""
    auth = request.headers.get("Authorization")
    if auth:
        if not auth.isascii():
            raise GraphQLRequestError([error_object("the Authorization header must be ASCII", "BAD_REQUEST")])
        return auth
    key = request.query.get("api_key") if "?" in request.raw_path else None
    if key:
        if not key.isascii() or any(c in key for c in "\r\n"):
            raise GraphQLRequestError([error_object("api_key must be ASCII", "BAD_REQUEST")])
        return f"Bearer {key}"
    return None


def _fields(body: Any) -> tuple[str, Any, str | None]:
    if not isinstance(body, dict):
        raise GraphQLRequestError([error_object("the body must be a JSON object with `query`", "BAD_REQUEST")])
    query = body.get("query")
    if not isinstance(query, str) or not query.strip():
        raise GraphQLRequestError([error_object("`query` must be a non-empty string", "BAD_REQUEST")])
    variables = body.get("variables")
    if isinstance(variables, str):  # GET, or clients that send the variables as a JSON string
        try:
            variables = orjson.loads(variables) if variables.strip() else None
        except orjson.JSONDecodeError:
            raise GraphQLRequestError([error_object("`variables` is not valid JSON", "BAD_REQUEST")]) from None
    if variables is not None and not isinstance(variables, dict):
        raise GraphQLRequestError([error_object("`variables` must be an object", "BAD_REQUEST")])
    name = body.get("operationName")
    if name is not None and not isinstance(name, str):
        raise GraphQLRequestError([error_object("`operationName` must be a string", "BAD_REQUEST")])
    return query, variables or {}, name or None


def _variables(gschema: Any, prepared: Any, variables: dict[str, Any]) -> Any:
    if not prepared.operation.variable_definitions:  # nothing to coerce (extra variables are ignored, as graphql-js)
        return None
    from graphql.execution.values import get_variable_values

    got = get_variable_values(gschema, prepared.operation.variable_definitions or (), variables, max_errors=20)
    if isinstance(got, list):
        raise GraphQLRequestError([{"message": e.message, **({"locations": [
            {"line": loc.line, "column": loc.column} for loc in e.locations]} if e.locations else {}),
            "extensions": {"code": "BAD_USER_INPUT"}} for e in got])
    return got


def operations(m: Any, table: Any) -> dict[tuple[str | None, str], Operation]:
    """(container or None, field) -> its resolver, one per graphql.yaml operation."""
    return {(op.parent, op.field): Operation(op, m, table) for op in m.graphql.operations}


def check_schema(gschema: Any, ops: dict[tuple[str | None, str], Operation], containers: frozenset[str]) -> None:
    """Every root field (and every field of a container) has a resolver, and every resolver a field."""
    expected: set[tuple[str | None, str]] = set()
    for root in (gschema.query_type, gschema.mutation_type):
        for name, field_def in root.fields.items():
            if name in containers:
                container = field_def.type
                while hasattr(container, "of_type"):
                    container = container.of_type
                expected.update((name, sub) for sub in container.fields)
            else:
                expected.add((None, name))
    missing = expected - set(ops)
    extra = set(ops) - expected
    if missing or extra:
        raise MappingError(f"graphql.yaml and the schema disagree: fields without a resolver {sorted(map(str, missing))}, "
                           f"resolvers without a field {sorted(map(str, extra))}")


def _deprecation(endpoint: Any) -> str:
    """RFC 9745 `Deprecation: @<epoch>`: when the GraphQL API was announced as retiring (graphql.yaml)."""
    moment = datetime.fromisoformat(str(endpoint.deprecated).replace("Z", "+00:00"))
    return f"@{timegm(moment.utctimetuple())}"


class Observer:
    """The middleware's record of a GraphQL request: one metric sample, access-log line and usage record per
    operation it ran (route "POST /graphql <kind> <operation>", operation = the G rule id, status = that
    operation's: 200, or its error's), so `audit --traffic` lists GraphQL operations by client. A request that
    ran none (refused as a whole: syntax, validation, limits, key) is recorded once, as "POST /graphql"."""

    def __init__(self, endpoint: GraphQLService, recorder: Any) -> None:
        self.labels = endpoint.labels
        self.path = endpoint.path
        self.prepare = recorder.route
        self.record = recorder.record
        self.records: dict[str | None, Any] = {}

    def __call__(self, request: web.Request, info: Any, status: int, nanoseconds: int, delivered: bool) -> None:
        ran = info.graphql or ((None, status),)
        emulations = info.emulations
        for op_id, op_status in ran:
            records = self.records.get(op_id)
            if records is None:
                label = self.labels.get(op_id or "", f"{request.method} {self.path}")
                records = self.records[op_id] = self.prepare("graphql", op_id, label, request.method)
            self.record(records, op_status if status < 400 else status, nanoseconds, request.headers, info.auth,
                        emulations, info.rules, delivered, info.outcome)
            emulations = ()  # each policy counted once per request
