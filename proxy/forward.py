"""Requests forward (the first stage of the v1 pipeline): one v1 request -> the plan of the v2 request(s).

Pure and synchronous, built on mappings.translate, so the proxy and `v1bridge translate` run the same planner
(`Forward.planning`). A translation that needs data from v2 first (the GPU catalog, the referenced template, the
resource's current state) declares it as a `Need` naming the v2 read; the driver answers it (the proxy with the
read, the CLI with a stand-in) and the planner goes on. Each kind of need is asked at most once.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Generator, Iterable, Mapping

from mappings.index import paginated_lists
from mappings.loader import Mappings, load_schema
from mappings.models import Lookup, Ordering, QueryParam
from mappings.records import Filter
from mappings.errors import ClientInputError, NeedsLookup, PolicyRefused, TranslationError, Unsupported, UpstreamError
from mappings.translate import Catalog, RequestTranslation, translators

from proxy.routes import SAFE_ID, Route, RouteTable

_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off", ""})


@dataclass
class V2Request:
    method: str
    path: str
    query: list[tuple[str, str]] = field(default_factory=list)
    body: Any = None

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"method": self.method, "path": self.path}
        if self.query:
            out["query"] = [list(pair) for pair in self.query]
        if self.body is not None:
            out["body"] = self.body
        return out


class PageSizes:
    """The largest page each cursor-paginated v2 list allows: the maximum of its `limit` in v2.json, read by
    `mappings/index.py` `paginated_lists` (the limits the codemod's Q30 rule reads). The proxy asks for it on
    every page when it reads a whole list for a v1 caller, so the number of calls does not rest on v2's default
    page size, which v2.json does not state. A list whose `limit` has no maximum in v2.json is asked nothing."""

    def __init__(self, m: Mappings) -> None:
        pagination = m.conventions.pagination
        self.param = pagination.limit
        self.largest = {path: str(size)
                        for path, size in paginated_lists(load_schema("v2"), pagination.cursor, self.param).items()}

    def whole_list(self, v2_path: str, query: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """`query` asking for the largest page of the v2 list at `v2_path` (a template path, as in v2.json);
        unchanged when that list has no limit or the query already names one (its own meaning kept)."""
        size = self.largest.get(v2_path)
        if size is None or any(name == self.param for name, _ in query):
            return query
        return [*query, (self.param, size)]


@dataclass(frozen=True)
class Need:
    """Data the translation needs from v2 before it can finish: `what` (catalog | template | current), why, and
    the v2 read that supplies it."""

    what: str
    reason: str
    path: str
    query: tuple[tuple[str, str], ...] = ()

    def describe(self) -> dict[str, str]:
        """What `v1bridge translate` prints for a lookup it did not make."""
        return {"what": self.what, "request": f"GET {self.path}", "reason": self.reason}


# what a need is answered with: the value planned with (catalog, template or current state)
Answers = Generator[Need, Any, "Plan"]


@dataclass
class Plan:
    route: Route
    params: dict[str, str]
    request: V2Request | None
    steps: list[V2Request] = field(default_factory=list)
    emulations: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    alternatives: dict[str, list[Any]] = field(default_factory=dict)
    follow_up: V2Request | None = None
    filters: list[Filter] = field(default_factory=list)
    includes: set[str] = field(default_factory=set)
    lookups: list[tuple[str, Lookup]] = field(default_factory=list)
    grouping: str | None = None
    grouping_drop: frozenset[str] = frozenset()
    skipped: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    sent: frozenset[str] = frozenset()  # v1 body keys the client sent (error messages name these)
    # fallback walks to rank before the first call: (v2 path of the choice, mapping Ordering)
    orderings: list[tuple[str, Ordering]] = field(default_factory=list)

    def engage(self, policy: str | None) -> None:
        if policy and policy not in self.emulations:
            self.emulations.append(policy)

    def add_rule(self, rule: str | None) -> None:
        if rule and rule not in self.rules:
            self.rules.append(rule)

    def describe(self) -> dict[str, Any]:
        """What `v1bridge translate` prints."""
        m = self.route
        out: dict[str, Any] = {"operation": m.op_id, "v1": m.label}
        if self.request is not None:
            out["v2"] = self.request.describe()
            if m.paginated:
                out["pages"] = "every page: the cursor is followed while pagination.hasNextPage is true"
        if self.steps:
            out["steps"] = [s.describe() for s in self.steps]
        if self.alternatives:
            out["fallback"] = {path: choices for path, choices in self.alternatives.items()}
        if self.orderings:
            out["fallback_ranked_by"] = {path: o.by for path, o in self.orderings}
        if self.follow_up is not None:
            out["follow_up"] = {**self.follow_up.describe(), "path": self.follow_up.path}
        if self.filters:
            out["filters"] = [{"param": f.name, "kind": f.kind, "field": f.field, "values": list(f.values)} for f in self.filters]
        if self.includes:
            out["includes"] = sorted(self.includes)
        if self.grouping:
            out["grouping"] = self.grouping
        if self.lookups:
            out["lookups"] = [_describe_lookup(name, spec) for name, spec in self.lookups]
        out["emulations"] = list(self.emulations)
        out["rules"] = list(self.rules)
        if self.skipped:
            out["skipped"] = self.skipped
        if self.ignored:
            out["ignored"] = self.ignored
        if self.notes:
            out["notes"] = self.notes
        return out


def _describe_lookup(name: str, spec: Lookup) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "method": "GET", "path": spec.path}
    if spec.query:
        out["query"] = dict(spec.query)
    return out


class Forward:
    """Plans v1 requests against one route table and one strict-policy set."""

    def __init__(self, table: RouteTable, strict: Mapping[str, bool]) -> None:
        self.table = table
        self.m = table.mappings
        self.strict = dict(strict)
        self.translators = translators() if table.mappings is translators().mappings else None
        if self.translators is None:
            from mappings.translate import Translators

            self.translators = Translators(table.mappings)
        self.neutral = dict(self.m.conventions.neutral_spellings)
        self.lookups = self.m.conventions.lookups
        # imported here: the answer workers import this module for Plan and never check a request (the schema
        # library's memory would count in each)
        from proxy.validate import BodyChecker, V1Checker

        self.bodies = BodyChecker(self.m)
        self.v1 = V1Checker(self.m)
        self.page_sizes = PageSizes(self.m)
        # per request map: a v2 body key that is no v1 field -> the first v1 field the mapping sends there
        # (image -> imageName, gpu -> gpuTypeIds): a v2 body sent to /v1 is named as such, not half-read
        self.v2_spellings: dict[str, dict[str, str]] = {}
        for map_id, rmap in self.m.requests.items():
            spelled: dict[str, str] = {}
            for v1_name, spec in rmap.fields.items():
                top = spec.to.split(".")[0] if spec.to else None
                if top and top not in rmap.fields:
                    spelled.setdefault(top, v1_name)
            self.v2_spellings[map_id] = spelled

    def check(self, route: Route, query: Iterable[tuple[str, str]], body: Any) -> None:
        """v1.json's verdict on the request as the client sent it, before any mapping or policy decision."""
        self.v1.check(route.op.v1.method, route.op.v1.path, query, body)

    # ------------------------------------------------------------------ policy

    def is_strict(self, policy: str) -> bool:
        if policy in self.strict:
            return self.strict[policy]
        return self.m.policies[policy].default == "strict"

    def refuse(self, policy: str) -> PolicyRefused:
        return PolicyRefused(policy, self.m.policies[policy].strict_message)

    def engage(self, plan: Plan, policy: str | None) -> None:
        if policy is None:
            return
        if self.is_strict(policy):
            raise self.refuse(policy)
        plan.engage(policy)

    # -------------------------------------------------------------------- plan

    def planning(self, route: Route, params: Mapping[str, str], query: Iterable[tuple[str, str]] = (),
                 body: Any = None) -> Answers:
        """The one planner of the proxy and the CLI: yields each `Need` the translation declares, is sent the
        value that answers it, and returns the plan. A need asked again after its read was answered is v2's
        failure (502: the read lacked what the translation needs); one the route cannot supply is a
        TranslationError (never a loop)."""
        query = list(query)
        given: dict[str, Any] = {}
        while True:
            try:
                return self.plan(route, params, query, body, **given)
            except NeedsLookup as need:
                if need.what in given:  # read once already: v2's answer lacks what the translation needs
                    raise UpstreamError(f"the translation needs {need.what} from v2 ({need.reason}) and v2's answer "
                                        "did not hold it") from None
                if need.what not in ("catalog", "template", "current"):
                    raise TranslationError(f"the translation needs {need.what} and it could not be fetched") from None
                given[need.what] = yield self.need(route, params, body, need)

    def need(self, route: Route, params: Mapping[str, str], body: Any, need: NeedsLookup) -> Need:
        """The v2 read behind a NeedsLookup: the catalog, the template the body references, or the item GET."""
        if need.what == "catalog":
            spec = self.lookups["catalog"]
            return Need("catalog", need.reason, spec.path, tuple(spec.query.items()))
        if need.what == "template":
            field = self.m.requests[route.op.request].template_field if route.op.request else None
            ident = str(body.get(field)) if field and isinstance(body, dict) else ""
            if not SAFE_ID.fullmatch(ident):
                raise ClientInputError(f"{field} is not a valid id: 1 to 128 letters, digits, '-', '_' or '.'")
            return Need("template", need.reason, self.lookups["template"].path.replace("{id}", ident))
        if route.current is None:
            raise TranslationError(f"the translation needs {need.what} and it could not be fetched")
        return Need("current", need.reason, route.current.v2_url_path(dict(params)))

    def plan(
        self,
        route: Route,
        params: Mapping[str, str],
        query: Iterable[tuple[str, str]] = (),
        body: Any = None,
        *,
        current: dict[str, Any] | None = None,
        catalog: Catalog | None = None,
        template: dict[str, Any] | None = None,
    ) -> Plan:
        """The v2 request(s) for one v1 request, given the looked-up values. Raises a V1bridgeError (NeedsLookup
        when a value is missing: use `planning`, which turns it into a Need)."""
        op = route.op
        params = dict(params)
        plan = Plan(route=route, params=params, request=None)
        for rule in op.rules:
            plan.add_rule(rule)
        if op.policy == "gone":
            raise Unsupported(f"{route.label} has no v2 equivalent" + _rules_suffix(op.rules), status=404)
        if op.policy == "local":
            return plan
        if route.op_emulation:
            self.engage(plan, route.op_emulation)
        v2_query = self._query(route, plan, query)
        if route.steps:
            plan.steps = [
                V2Request(step.v2_method or "GET", step.v2_url_path(params), body=_copy(step.v2_body))
                for step in route.steps
            ]
            return plan
        v2_body: Any = _copy(route.v2_body)
        if op.request:
            if body is None:
                body = {}
            if not isinstance(body, dict):
                raise ClientInputError("the request body must be a JSON object")
            body = {self.neutral.get(k, k): v for k, v in body.items()}
            plan.sent = frozenset(body)
            result: RequestTranslation = self.translators.request(
                op.request, body, strict=self.strict, current=current, catalog=catalog, template=template
            )
            v2_body = result.body
            spelled = self.v2_spellings[op.request]
            v2_named = [name for name in result.ignored if name in spelled]
            problems = self.bodies.problems(op.request, v2_body)
            if problems:  # v2 would refuse it: answer v1's 400 with the client's names, send nothing
                raise ClientInputError("invalid input: " + "; ".join(problems) + self._v2_body_hint(route, v2_named))
            for policy in result.emulations:
                plan.engage(policy)
            for rule in result.rules:
                plan.add_rule(rule)
            plan.alternatives = dict(result.alternatives)
            for name, ordering, target in route.orderings:
                if len(plan.alternatives.get(target, ())) > 1 and (body.get(name) or ordering.default) in ordering.when:
                    plan.orderings.append((target, ordering))
            plan.ignored = list(result.ignored)
            plan.skipped.extend(result.unhonoured)  # requests.yaml `unsupported: ignore`: served without, named
            plan.skipped.extend(v2_named)  # v2 names v1 never read: not honoured, so named (X-V1bridge-Ignored)
            plan.notes = list(result.notes)
            if result.follow_up and route.follow_up is not None:
                follow = route.follow_up
                patch = self.translators.request(follow.op.request, dict(result.follow_up), strict=self.strict)
                # the id is only known after the create; the path keeps its placeholder until then
                plan.follow_up = V2Request(follow.v2_method or "PATCH", follow.v2_path or "", body=patch.body)
        if route.paginated:  # every page is read (answer.py): each one as large as v2 allows
            v2_query = self.page_sizes.whole_list(route.v2_path or "", v2_query)
        plan.request = V2Request(route.v2_method or "GET", route.v2_url_path(params), v2_query, v2_body)
        for name, spec in route.response_lookups:
            plan.lookups.append((name, spec))
        return plan

    def _v2_body_hint(self, route: Route, v2_named: list[str]) -> str:
        """What the caller probably meant when a /v1 body is spelled in v2's names."""
        if not v2_named:
            return ""
        spelled = self.v2_spellings[route.op.request or ""]
        names = ", ".join(f"{name} (v1: {spelled[name]})" for name in v2_named)
        where = f", or this body to {route.v2_method} {route.v2_path}" if route.v2_path else ""
        return f"; the body uses v2 names: {names}: send v1 names to {route.op.v1.method} {route.aiohttp_path}{where}"

    def _query(self, route: Route, plan: Plan, query: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        qmap = route.query_map
        if qmap is None:
            return []
        grouped: dict[str, list[str]] = {}
        for name, value in query:
            entry = route.query_params.get(name) or route.query_params.get(self.neutral.get(name, name))
            if entry is None:
                continue
            grouped.setdefault(entry[0], []).append(value)
        for name, default in route.query_defaults:  # v1 applied these when the parameter was omitted
            grouped.setdefault(name, [default])
        forwarded: list[tuple[str, str]] = []
        for name, values in grouped.items():
            spec: QueryParam = qmap.params[name]
            policy = spec.policy or qmap.policy
            if spec.to:
                forwarded.extend((spec.to, v) for v in values)
                continue
            if spec.filter:
                split = tuple(part for v in values for part in v.split(",") if part != "")
                if not split:
                    continue
                if spec.unsupported:
                    rule = self.m.rules.get(spec.rule or "")
                    why = f" ({spec.rule}: {rule.summary})" if rule else ""
                    raise Unsupported(f"the v1 filter {name!r} cannot be applied on v2{why}", rule=spec.rule)
                self.engage(plan, policy)
                plan.add_rule(spec.rule)
                allowed = None
                if spec.values:
                    table = self.m.values[spec.values].filter
                    unknown = [v for v in split if v not in table]
                    if unknown:
                        raise ClientInputError(f"invalid value for {name}: {', '.join(unknown)}")
                    allowed = frozenset(str(x) for v in split for x in table[v])
                plan.filters.append(
                    Filter(name, spec.filter, spec.field or "", split, allowed, after_translation=bool(spec.emulated_by))
                )
                if spec.expand:
                    self._add_lookups(plan, spec.expand)
                continue
            if spec.expand:
                flag = values[-1].strip().lower()
                if flag in _FALSE:
                    continue
                if flag not in _TRUE:
                    raise ClientInputError(f"{name} must be true or false")
                plan.add_rule(spec.rule)
                if spec.unsupported == "strict":
                    rule = self.m.rules.get(spec.rule or "")
                    why = f" ({spec.rule}: {rule.summary})" if rule else ""
                    raise Unsupported(f"the v1 flag {name}=true cannot be honoured on v2{why}", rule=spec.rule)
                if spec.unsupported:  # "ignore": served without it, and named (X-V1bridge-Ignored, usage record)
                    plan.skipped.append(name)
                    continue
                self.engage(plan, policy)
                plan.includes.add(name)
                self._add_lookups(plan, spec.expand)
                continue
            if spec.emulated_by:
                value = values[-1]
                self.engage(plan, policy)
                plan.add_rule(spec.rule)
                produced = self.m.responses[route.op.response].fields if route.op.response else {}
                target = produced.get(value)
                if target is None or target.omit:
                    raise Unsupported(f"{name}={value} cannot be rebuilt from v2 records" + _rules_suffix([spec.rule]),
                                      rule=spec.rule)
                plan.grouping = value
                plan.grouping_drop = frozenset(route.query_enums.get(name, ())) - {value}
                # a joined field (billing gpuTypeId) needs the lookup its own filter parameter names
                for other in qmap.params.values():
                    if other.field == value and other.expand:
                        self._add_lookups(plan, other.expand)
        return forwarded

    def _add_lookups(self, plan: Plan, names: list[str]) -> None:
        for name in names:
            self._add_lookup(plan, name)

    def _add_lookup(self, plan: Plan, name: str) -> None:
        spec = self.lookups.get(name)
        if spec is not None and name not in dict(plan.lookups):
            plan.lookups.append((name, spec))


def _copy(body: dict[str, Any] | None) -> dict[str, Any] | None:
    """A fresh v2 body per request ({"action": "stop"}): flat ones need no deepcopy."""
    if body is None:
        return None
    if any(isinstance(v, (dict, list)) for v in body.values()):
        return copy.deepcopy(body)
    return dict(body)


def _rules_suffix(rules: Iterable[str | None]) -> str:
    found = [r for r in rules if r]
    return f" ({', '.join(found)})" if found else ""
