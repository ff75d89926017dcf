"""`v1bridge translate` for a GraphQL document: the v2 calls each selected operation would make, planned by the
proxy's own planner (the v1 route's `Forward.planning`, finished by `finish_plan`), without calling anything.
Lookups the planner declares are named (`needs_lookup`) and answered with stand-ins, as for a v1 request."""
from __future__ import annotations

from typing import Any

from graphql.execution.values import get_argument_values, get_variable_values

from mappings import default_mappings
from mappings.errors import V1bridgeError
from mappings.translate import Catalog

from proxy.config import ProxyConfig
from proxy.forward import Forward
from proxy.graphql.operations import Operation, finish_plan
from proxy.graphql.schema import Documents, GraphQLRequestError, schema
from proxy.graphql.service import operations
from proxy.graphql.views import Views
from proxy.routes import RouteTable

_STAND_INS = {"catalog": Catalog, "template": dict, "current": dict}


def translate(document: str, variables: dict[str, Any] | None = None, operation_name: str | None = None,
              strict: frozenset[str] = frozenset(), emulate: frozenset[str] = frozenset()) -> dict[str, Any]:
    m = default_mappings()
    table = RouteTable(m)
    config = ProxyConfig(strict=strict, emulate=emulate, fingerprint_salt="-")
    forward = Forward(table, config.strict_map(list(m.policies)))
    inventory = m.graphql
    assert inventory is not None and inventory.limits is not None
    try:
        prepared = Documents(inventory.limits, config.max_body).prepare(document, operation_name)
        got = get_variable_values(schema(), prepared.operation.variable_definitions or (), variables or {})
        if isinstance(got, list):
            raise GraphQLRequestError([{"message": e.message, "extensions": {"code": "BAD_USER_INPUT"}} for e in got])
    except GraphQLRequestError as exc:
        return {"graphql": {"status": exc.status, "errors": exc.errors}}
    ops = operations(m, table)
    views = Views(m, schema())
    containers = set(inventory.containers)
    gschema = schema()
    root = gschema.mutation_type if prepared.kind == "mutation" else gschema.query_type
    out: list[dict[str, Any]] = []
    for key, nodes in views.collect(prepared, root, (prepared.operation,), got).items():
        name = nodes[0].name.value
        if name == "__typename":
            continue
        if name in containers:
            inner = root.fields[name].type
            for sub_key, sub_nodes in views.collect(prepared, inner, nodes, got).items():
                sub = sub_nodes[0].name.value
                if sub != "__typename":
                    out.append(_nested(_one(f"{key}.{sub_key}", ops[(name, sub)], inner.fields[sub], sub_nodes[0],
                                            got, forward), views, prepared, inner.fields[sub].type, sub_nodes, got))
            continue
        out.append(_nested(_one(key, ops[(None, name)], root.fields[name], nodes[0], got, forward), views, prepared,
                           root.fields[name].type, nodes, got))
    return {"graphql": {"operation": prepared.kind, "fields": out}}


def _nested(field: dict[str, Any], views: Views, prepared: Any, gtype: Any, nodes: Any, variables: Any) -> dict[str, Any]:
    """The nested records the selection reads by their own v2 call, once per id in the answer."""
    fetches = views.nested_fetches(prepared, gtype, nodes, variables)
    if fetches:
        field["then"] = [{"field": f.label, "v2": {"method": "GET", "path": f.path, **({"query": f.query} if f.query
                                                                                       else {})},
                          "once": "per id in the answer"} for f in fetches]
    return field


def _one(key: str, operation: Operation, field_def: Any, node: Any, variables: Any, forward: Forward) -> dict[str, Any]:
    op = operation.op
    head: dict[str, Any] = {"field": key, "rule": op.id, "replaced_by": op.v2 or "no v2 equivalent"}
    try:
        inv = operation.invocation(get_argument_values(field_def, node, variables))
        if operation.serve.answer == "gap":
            return {**head, "answer": {"error": "NOT_SUPPORTED_BY_V2", "message": op.note}}
        if inv.route is None and inv.direct is None:
            return {**head, "answer": "null: v2 has no value for it", "note": op.note}
        if inv.route is None:
            return {**head, "v2": inv.direct_request().describe()}
        out = dict(head)
        if inv.finds:
            out["finds"] = [{"param": p, "by": how.by, "value": v, "list": forward.table[how.v1].label}
                            for p, how, v in inv.finds]
            for param, _, value in inv.finds:
                inv.params[param] = "{" + param + "}"
        if inv.same_as:
            out["checks"] = [{"field": path, "equals": value, "rule": rule} for path, value, rule in inv.same_as]
        lookups: list[dict[str, Any]] = []
        planning = forward.planning(inv.route, inv.params, [], inv.body)
        try:
            need = next(planning)
            while True:
                lookups.append(need.describe())
                need = planning.send(_STAND_INS[need.what]())
        except StopIteration as done:
            plan = done.value
        finish_plan(plan, inv, forward)
        out.update(plan.describe())
        if lookups:
            out["needs_lookup"] = lookups
        return out
    except V1bridgeError as exc:
        return {**head, "answer": {"status": exc.status, "message": exc.message}}
