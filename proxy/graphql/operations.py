"""One resolver per GraphQL operation (a root field, or a field of `myself`), compiled from its graphql.yaml entry.

`Operation.invocation(args)` is pure: the coerced GraphQL arguments -> what to call (the v1 REST route whose plan
serves it, with its path parameters and v1 body, or a direct v2 call), the v2 body values set on the planned
request, the choices to walk, the policies engaged and the checks to make. The proxy executes it
(proxy/graphql/execute.py); `v1bridge translate` plans it without calling anything (proxy/cli_translate.py).
Both finish the plan with `finish_plan`, so both show and send the same v2 calls.
"""
from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from mappings.converters import get_path, set_path
from mappings.errors import ClientInputError, InvalidValue, MappingError, Unsupported
from mappings.graphql_converters import ARGUMENTS, FINALIZERS
from mappings.loader import Mappings
from mappings.models import GraphQLArg, GraphQLFind, GraphQLOperation

from proxy.forward import Forward, Plan, V2Request
from proxy.routes import SAFE_ID, Route, RouteTable


@dataclass
class Invocation:
    """What one operation's arguments ask for."""

    op: GraphQLOperation
    route: Route | None  # the v1 REST route whose plan serves it
    direct: tuple[str, str] | None  # or a v2 call made as is: (method, path template)
    params: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None  # v1 body (route) or v2 body (direct)
    v2_sets: dict[str, Any] = field(default_factory=dict)  # v2 body path -> value, set on the planned request
    choices: tuple[str, list[Any], str | None] | None = None  # (v2 path, values walked in order, policy)
    policies: list[str] = field(default_factory=list)
    same_as: list[tuple[str, Any, str | None]] = field(default_factory=list)  # (v2 field, value, rule)
    finds: list[tuple[str, GraphQLFind, str]] = field(default_factory=list)  # (param, how, name)
    rules: list[str] = field(default_factory=list)

    def fresh(self) -> "Invocation":
        """The invocation one request runs: a copy with its own params when ids found by name go into them; else
        this one (nothing of it is changed by a run)."""
        return self if not self.finds else dataclasses.replace(self, params=dict(self.params))

    def direct_request(self) -> V2Request:
        method, path = self.direct or ("GET", "")
        for name, value in self.params.items():
            path = path.replace("{" + name + "}", value)
        return V2Request(method, path, [], self.body if method != "GET" else None)


class Operation:
    """One operation's resolver facts, checked against the mappings and the schema at start-up."""

    def __init__(self, op: GraphQLOperation, m: Mappings, table: RouteTable) -> None:
        serve = op.serve
        if serve is None:
            raise MappingError(f"graphql.yaml: {op.id} ({op.selection}) has no `serve`")
        self.op = op
        self.serve = serve
        self.table = table
        self.route = table[serve.v1] if serve.v1 else None
        self.update_route = table[serve.update.v1] if serve.update and serve.update.v1 else None
        self.direct = serve.v2_route
        self.update_direct = None
        if serve.update and serve.update.v2:
            method, path = serve.update.v2.split()[:2]
            self.update_direct = (method, path)
        for spec in serve.args.values():
            if spec.convert and spec.convert not in ARGUMENTS:
                raise MappingError(f"graphql.yaml {op.id}: no argument converter {spec.convert!r}")
            for policy in (spec.policy,):
                if policy and policy not in m.policies:
                    raise MappingError(f"graphql.yaml {op.id}: no policy {policy!r}")
            if spec.find is not None:
                table[spec.find.v1]
        if serve.policy and serve.policy not in m.policies:
            raise MappingError(f"graphql.yaml {op.id}: no policy {serve.policy!r}")
        if serve.finalize and serve.finalize not in FINALIZERS:
            raise MappingError(f"graphql.yaml {op.id}: no finalizer {serve.finalize!r}")
        if serve.answer == "view" and not serve.view:
            raise MappingError(f"graphql.yaml {op.id}: answer view needs `view`")

    @property
    def routes(self) -> list[tuple[str, str]]:
        """The v2 routes (method, path template) this resolver calls: compared with the G rule's `v2`."""
        out = []
        if self.route is not None and self.route.v2_path:
            out.append((self.route.v2_method or "GET", self.route.v2_path))
        elif self.route is not None:
            out.extend((s.v2_method or "GET", s.v2_path or "") for s in self.route.steps)
        if self.direct is not None:
            out.append(self.direct)
        return out

    def invocation(self, args: dict[str, Any]) -> Invocation:
        serve = self.serve
        route, direct = self.route, self.direct
        updates = serve.update is not None and _read(args, serve.update.when) not in (None, "")
        if updates:
            route = self.update_route or route
            direct = self.update_direct or direct
        inv = Invocation(self.op, route, direct)
        if serve.answer == "gap" or (route is None and direct is None):  # nothing to call
            inv.rules.append(self.op.id)
            return inv
        # `body` holds what a create needs (saveEndpoint's type: QUEUE): an update changes only what is given
        body: dict[str, Any] = {} if updates else copy.deepcopy(serve.body)
        given = _flatten_input(args)
        for name, spec in serve.args.items():
            value = _read(args, name)
            if value is None or value in spec.unset:
                continue
            if spec.rule:
                inv.rules.append(spec.rule)
            self._argument(inv, name, spec, value, given, body)
        if serve.policy:
            inv.policies.append(serve.policy)
        if route is not None:
            inv.body = body if route.op.request else None
            if route.op.request is None and body:
                inv.v2_sets.update(body)
        else:
            for path, value in inv.v2_sets.items():
                set_path(body, path, value)
            inv.v2_sets = {}
            if serve.finalize:
                FINALIZERS[serve.finalize](body)
            inv.body = body or None
        for param, value in inv.params.items():
            if not SAFE_ID.fullmatch(value):
                raise ClientInputError(f"{param} is not a valid id: 1 to 128 letters, digits, '-', '_' or '.'")
        if self.op.id not in inv.rules:
            inv.rules.insert(0, self.op.id)
        return inv

    def _argument(self, inv: Invocation, name: str, spec: GraphQLArg, value: Any, given: dict[str, Any],
                  body: dict[str, Any]) -> None:
        if spec.values and value not in spec.values:
            raise InvalidValue(f"{name.split('.')[-1]} {value!r} is not one of {', '.join(map(str, spec.values))}")
        if spec.choices and value in spec.choices:
            walked = list(spec.choices[value])
            inv.choices = (spec.choices_at or "", walked, spec.policy)
            value = walked[0]
        if spec.convert:
            value = ARGUMENTS[spec.convert](value, given)
        if spec.same_as is not None:
            inv.same_as.append((spec.same_as, value, spec.rule))
            return
        if spec.param is not None:
            if spec.find is not None:
                inv.finds.append((spec.param, spec.find, str(value)))
            else:
                inv.params[spec.param] = str(value)
            return
        if spec.v2 is not None:
            inv.v2_sets[spec.v2] = value
        elif spec.to is not None:
            body[spec.to] = value
        elif isinstance(value, dict):  # a converter that yields several v1 fields (instanceId)
            body.update(value)


def finish_plan(plan: Plan, inv: Invocation, forward: Forward) -> None:
    """The planned v2 request completed with what only GraphQL says: v2 body values (dockerArgs -> args,
    startSsh), the walk over choices (cloudType ALL) and the operation's own policies (strict ones refuse)."""
    for policy in inv.policies:
        forward.engage(plan, policy)
    request = plan.request
    if request is None:
        if inv.v2_sets or inv.choices:
            raise Unsupported(f"{inv.op.selection}: the arguments need a single v2 request")
        return
    if inv.v2_sets or inv.choices:
        request.body = copy.deepcopy(request.body) if request.body is not None else {}
        for path, value in inv.v2_sets.items():
            set_path(request.body, path, value)
    if inv.choices is not None:
        at, walked, policy = inv.choices
        forward.engage(plan, policy)
        set_path(request.body, at, walked[0])
        plan.alternatives[at] = walked


def _read(args: dict[str, Any], path: str) -> Any:
    return get_path(args, path)


def _flatten_input(args: dict[str, Any]) -> dict[str, Any]:
    """The arguments an argument converter may consult (the `input` object's fields, and top-level ones)."""
    out = dict(args)
    if isinstance(args.get("input"), dict):
        out.update(args["input"])
    return out
