"""The v1 route table, compiled once from mappings/ at start-up.

Every per-request decision that only depends on the operation (v2 target,
list key, query parameters, status emulation, reverse field names for error
messages, the GET that supplies a resource's current state) is computed here,
so the hot path only looks things up.
"""
from __future__ import annotations

import re
from urllib.parse import quote
from dataclasses import dataclass, field
from typing import Any

from mappings import Mappings, default_mappings, load_schema
from mappings.models import Lookup, Operation, Ordering, QueryMap, QueryParam

_PARAM = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
# an id the proxy puts in a v2 path (client path parameters, ids from v2 answers): never another path, query or header
SAFE_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}")
# what quote(value, safe="") leaves unchanged: such ids skip the encoder
_UNRESERVED = re.compile(r"[A-Za-z0-9_.~-]+")


@dataclass
class Route:
    """One v1 operation, with everything the proxy needs to serve it."""

    op: Operation
    label: str  # "POST /pods/{podId}/reset": the metrics / usage label, never a raw path
    aiohttp_path: str  # "/v1/pods/{podId}"
    v2_method: str | None
    v2_path: str | None  # "/v2/pods/{id}"
    v2_body: dict[str, Any] | None
    list_key: str | None
    records_key: str | None
    query_map: QueryMap | None
    # v1 query name (aliases and neutral spellings included) -> (canonical name, spec)
    query_params: dict[str, tuple[str, QueryParam]]
    # the op-level emulation (update alias, reset), when the operation is emulated
    op_emulation: str | None
    # v2 success status of the target, from v2.json; differs from op.v1_status on creates (Q23)
    v2_success: int | None
    # the policy that keeps v1's status (operations.yaml `status`), and v2 error status -> v1's
    status_policy: str | None
    status_errors: dict[int, int] = field(default_factory=dict)
    steps: list["Route"] = field(default_factory=list)
    current: "Route | None" = None
    follow_up: "Route | None" = None
    response_lookups: list[tuple[str, Lookup]] = field(default_factory=list)
    state_field: tuple[str, str] | None = None  # (v1 name, v2 source) of the state field
    query_enums: dict[str, list[str]] = field(default_factory=dict)  # v1 query enums, from v1.json
    # (v1 field, its Ordering, v2 path of the field it orders): gpuTypePriority orders gpu.id's fallback walk
    orderings: tuple[tuple[str, Ordering, str], ...] = ()
    query_defaults: tuple[tuple[str, str], ...] = ()  # (v1 name, v1 default) from queries.yaml
    placeholders: tuple[tuple[str, str], ...] = ()  # ("{id}", "podId"): built once, filled per request
    paginated: bool = False  # the v2 target is a cursor-paginated list (Q30): every page makes the v1 list
    creates: bool = False  # a create (POST of a create map): its answer must carry the new id

    @property
    def op_id(self) -> str:
        return self.op.id

    def v2_url_path(self, params: dict[str, str]) -> str:
        """Fill the v2 path with the v1 path parameter values (podId -> id)."""
        assert self.v2_path is not None
        path = self.v2_path
        for placeholder, v1_name in self.placeholders:
            value = params[v1_name]
            # re-encoded: a decoded id must never add path segments, queries or header breaks
            path = path.replace(placeholder, value if _UNRESERVED.fullmatch(value) else quote(value, safe=""))
        return path


def _v2_success(method: str, path: str) -> int | None:
    spec = load_schema("v2")
    operation = spec.get("paths", {}).get(path, {}).get(method.lower())
    if not operation:
        return None
    codes = sorted(int(c) for c in operation.get("responses", {}) if c.isdigit() and c.startswith("2"))
    return codes[0] if codes else None


def paginated_paths(cursor_param: str) -> frozenset[str]:
    """v2 GET paths whose operation takes the pagination cursor (read from v2.json, not listed by hand)."""
    spec = load_schema("v2")
    out = set()
    for path, item in spec.get("paths", {}).items():
        operation = item.get("get") or {}
        for param in operation.get("parameters", []):
            if "$ref" in param:
                node: Any = spec
                for part in param["$ref"].lstrip("#/").split("/"):
                    node = node[part]
                param = node
            if param.get("in") == "query" and param.get("name") == cursor_param:
                out.add(path)
    return frozenset(out)


def _v1_query_enums(method: str, path: str) -> dict[str, list[str]]:
    spec = load_schema("v1")
    operation = spec.get("paths", {}).get(path, {}).get(method.lower()) or {}
    out: dict[str, list[str]] = {}
    for param in operation.get("parameters", []):
        if isinstance(param, dict) and param.get("in") == "query":
            schema = param.get("schema") or {}
            enum = schema.get("enum") or (schema.get("items") or {}).get("enum")
            if enum:
                out[param["name"]] = list(enum)
    return out


def _orderings(m: Mappings, map_id: str | None) -> tuple[tuple[str, Ordering, str], ...]:
    if not map_id:
        return ()
    fields = m.requests[map_id].fields
    return tuple(
        (name, spec.orders, fields[spec.orders.field].to or "")
        for name, spec in fields.items()
        if spec.orders is not None
    )


def _query_params(m: Mappings, qmap: QueryMap | None) -> dict[str, tuple[str, QueryParam]]:
    if qmap is None:
        return {}
    out: dict[str, tuple[str, QueryParam]] = {}
    neutral_of = {brand: neutral for neutral, brand in m.conventions.neutral_spellings.items()}
    for name, spec in qmap.params.items():
        out[name] = (name, spec)
        for alias in spec.aliases:
            out[alias] = (name, spec)
        if name in neutral_of:
            out[neutral_of[name]] = (name, spec)
    return out


class RouteTable:
    """All routes of one Mappings, built once per app."""

    def __init__(self, mappings: Mappings | None = None) -> None:
        m = mappings or default_mappings()
        self.mappings = m
        conv = m.conventions
        self.paginated = paginated_paths(conv.pagination.cursor)
        self.routes: dict[str, Route] = {}
        for op in m.operations:
            v2 = op.v2
            aiohttp_path = conv.v1_prefix + op.v1.path
            list_key = conv.list_keys.get(op.resource) if op.shape == "list" and op.resource else None
            records_key = conv.list_keys.get(op.resource) if op.shape == "billing" and op.resource else None
            qmap = m.queries.get(op.query) if op.query else None
            v2_success = _v2_success(v2.method, v2.path) if v2 and op.policy != "local" else None
            lookups = [
                (name, spec) for name, spec in conv.lookups.items() if op.response and op.response in spec.responses
            ]
            state_field = None
            if op.response:
                for v1_name, spec in m.responses[op.response].fields.items():
                    if spec.values and spec.source:
                        state_field = (v1_name, spec.source)
                        break
            self.routes[op.id] = Route(
                op=op,
                label=f"{op.v1.method} {op.v1.path}",
                aiohttp_path=aiohttp_path,
                v2_method=v2.method if v2 else None,
                v2_path=v2.path if v2 else None,
                v2_body=dict(v2.body) if v2 and v2.body else None,
                list_key=list_key,
                records_key=records_key,
                query_map=qmap,
                query_params=_query_params(m, qmap),
                op_emulation=op.emulation if op.policy == "emulate" else None,
                v2_success=v2_success,
                status_policy=op.status.policy if op.status else None,
                status_errors=dict(op.status.errors) if op.status else {},
                response_lookups=lookups,
                state_field=state_field,
                query_enums=_v1_query_enums(op.v1.method, op.v1.path) if qmap else {},
                orderings=_orderings(m, op.request),
                query_defaults=tuple((n, p.default) for n, p in qmap.params.items() if p.default is not None)
                if qmap else (),
                placeholders=tuple(("{" + v2_name + "}", v1_name) for v1_name, v2_name in op.path_params.items()),
                paginated=bool(v2 and v2.method == "GET" and v2.path in self.paginated and op.policy != "local"),
                creates=bool(op.request and m.requests[op.request].mode == "create" and v2 and v2.method == "POST"),
            )
        item_get = {
            r.op.resource: r
            for r in self.routes.values()
            if r.op.policy == "translate" and r.v2_method == "GET" and r.op.shape == "object" and r.op.path_params
        }
        item_patch = {
            r.op.resource: r
            for r in self.routes.values()
            if r.op.policy == "translate" and r.v2_method == "PATCH" and r.op.request
            and m.requests[r.op.request].mode == "update"
        }
        for route in self.routes.values():
            op = route.op
            route.steps = [self.routes[step] for step in op.steps]
            route.current = item_get.get(op.resource)
            if op.request and m.requests[op.request].mode == "create":
                route.follow_up = item_patch.get(op.resource)
        self.by_label = {r.label: r for r in self.routes.values()}
        self.v1_prefix = conv.v1_prefix
        self.v2_prefix = conv.v2_prefix

    def __iter__(self):
        return iter(self.routes.values())

    def suggest(self, method: str, path: str) -> str | None:
        """What a request no route matched probably meant: the v1 route its path names in another case
        (`/v1/PODS` for `/v1/pods`) or without the v1 prefix (`/pods`), ids kept as sent; None when none."""
        wanted = [part for part in path.split("/") if part]
        prefix = [part for part in self.v1_prefix.split("/") if part]
        if [part.lower() for part in wanted[: len(prefix)]] == [part.lower() for part in prefix]:
            wanted = wanted[len(prefix):]
        found: list[tuple[bool, str]] = []
        for route in self.routes.values():
            pattern = [part for part in route.op.v1.path.split("/") if part]
            if len(pattern) != len(wanted):
                continue
            if all(p.startswith("{") or p.lower() == w.lower() for p, w in zip(pattern, wanted)):
                spelled = "/".join(w if p.startswith("{") else p for p, w in zip(pattern, wanted))
                found.append((route.op.v1.method != method.upper(), f"{route.op.v1.method} {self.v1_prefix}/{spelled}"))
        if not found:
            return None
        same_method = [text for other, text in found if not other]
        return (same_method or [text for _, text in found])[0]

    def __getitem__(self, op_id: str) -> Route:
        return self.routes[op_id]
