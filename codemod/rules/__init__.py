"""One module per fixable rule ID of `mappings/data/rules.yaml`, registered by `Rule(...)`.

Each module (`codemod/rules/<id>_<name>.py`) has the two steps of its rule:

- the **decision** (`@rule.call`, `@rule.read`, `@rule.body_field`,
  `@rule.param`): from the file's facts, whether a call or read can migrate and
  into what (`plan.change(kind, node, rule, data)`: a v2 key, a v2 body value,
  the spans of a literal), or why not (`plan.flag(node, rule, ...)`, blocking).
  It builds no code. The whole-client decision (`codemod.decide`) and the
  audit read only these;
- the **edit** (`@rule.builds(kind)`, `@rule.applies(kind)`): for the rewrite
  only, and only for the changes the whole-client decision kept: the builder
  turns a change into an `Edit` (renders a body, names a loop's variables),
  the applier makes it on the tree. A kind with no builder is applied from
  the change's data as it is (a renamed key, a method name).

At import every
module is loaded (`pkgutil`, as django-upgrade loads its fixers) and the
registry is checked against the `fixable` rules of the mappings: a fixable
rule without a module, or a module for a rule that is not fixable, is an
error (`RuleRegistryError`).

Rules that are not fixable have no module: what they concern is flagged
(`# v1bridge: RULE remedy`) by the planner, from the rule's remedy.

Order of the call rules (each may rely on the previous): L01 (base and
path renames), Q01 (billing path and its query), L04 (verb paths), L02
(request bodies; L03, L07, Q04, Q07, Q09 are conversions the body
translator makes, and their modules decide whether a value can be converted
statically). Reads go to Q02/Q25 (list envelopes), Q29 (error reads) and the
rule of each response field (L02, Q13, Q14, Q25).

`select(ids)`: a registry hook for rule selection (`--select/--ignore`):
returns the modules of the given IDs, in order.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from mappings.errors import V1bridgeError
from mappings.index import index

if TYPE_CHECKING:  # pragma: no cover
    from codemod.analysis import CallFact, Read
    from codemod.plan import Plan


class RuleRegistryError(V1bridgeError, RuntimeError):
    """The rule modules and the fixable rules of mappings/data/rules.yaml disagree."""


@dataclass
class Rule:
    """The registration of one rule module."""

    id: str
    module: str
    order: int = 100
    on_call: Callable[["CallFact", "Plan"], None] | None = None
    on_read: Callable[["Read", "CallFact", "Plan"], None] | None = None
    on_body_field: Callable[[str, object, "Plan"], bool] | None = None  # can this value be converted statically?
    on_param: Callable[["CallFact", object, str, object, "Plan"], None] | None = None  # (call, key node, name, spec, plan)
    appliers: dict[str, Callable] = field(default_factory=dict)
    builders: dict[str, Callable] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.id in RULES:
            raise RuleRegistryError(f"rule {self.id} registered twice ({RULES[self.id].module}, {self.module})")
        RULES[self.id] = self

    # decorators
    def call(self, fn):
        self.on_call = fn
        return fn

    def read(self, fn):
        self.on_read = fn
        return fn

    def body_field(self, fn):
        self.on_body_field = fn
        return fn

    def param(self, fn):
        self.on_param = fn
        return fn

    def builds(self, kind: str):
        """The edit step of a change kind: `fn(change, plan) -> Edit` (only for what the decision kept)."""
        def deco(fn):
            if kind in BUILDERS:
                raise RuleRegistryError(f"edit kind {kind!r} built by two modules")
            BUILDERS[kind] = fn
            self.builders[kind] = fn
            return fn
        return deco

    def applies(self, kind: str):
        def deco(fn):
            if kind in APPLIERS:
                raise RuleRegistryError(f"edit kind {kind!r} applied by two modules")
            APPLIERS[kind] = fn
            self.appliers[kind] = fn
            return fn
        return deco


RULES: dict[str, Rule] = {}
APPLIERS: dict[str, Callable] = {}
BUILDERS: dict[str, Callable] = {}


def _load() -> None:
    from codemod import compat_call
    from codemod.rules import edits

    APPLIERS.update({"string": edits.apply_string, "name": edits.apply_name, "key": edits.apply_key,
                     "drop-statement": edits.drop_statement, "drop-element": edits.drop_element})
    for info in pkgutil.iter_modules(__path__):
        if info.name[:1].isalpha() and info.name[1:3].isdigit():
            importlib.import_module(f"{__name__}.{info.name}")
    APPLIERS["comment"] = edits.apply_comment
    APPLIERS["uncomment"] = edits.apply_uncomment
    APPLIERS["compat-call"] = compat_call.apply
    APPLIERS["compat-import"] = compat_call.apply_import
    BUILDERS["comment"] = edits.build_comment
    check_registry(index().fixable_rules())


def check_registry(fixable: frozenset[str] | set[str]) -> None:
    """Raise RuleRegistryError unless the registered modules are exactly the fixable rules."""
    missing = sorted(fixable - set(RULES))
    extra = sorted(set(RULES) - fixable)
    if missing or extra:
        raise RuleRegistryError(
            "codemod/rules/ and the fixable rules of mappings/data/rules.yaml disagree: "
            + "; ".join(filter(None, [missing and f"fixable without a module: {', '.join(missing)}",
                                      extra and f"module for a rule that is not fixable: {', '.join(extra)}"])))


_load()

# edit kinds in the order they apply on one node (a string span before a comment on the same statement)
ORDER = {kind: i for i, kind in enumerate(
    ["string", "name", "key", "path-read", "dict", "add-kwarg", "drop-operand", "drop-element", "verb-segment",
     "drop-statement", "subscript",
     "page-call", "page-json", "page-loop", "page-import", "compat-call", "compat-import", "uncomment", "comment"])}


def select(ids: list[str] | None = None) -> list[Rule]:
    """The registered rules (of `ids`, when given), in planning order; unknown IDs are an error."""
    if ids is None:
        return sorted(RULES.values(), key=lambda r: (r.order, r.id))
    unknown = [i for i in ids if i not in RULES]
    if unknown:
        raise KeyError(", ".join(unknown))
    return sorted((RULES[i] for i in ids), key=lambda r: (r.order, r.id))


# ----------------------------------------------------------------- dispatch

def plan_call(cf: "CallFact", plan: "Plan") -> None:
    route = cf.route
    if route.op.v2 is None or route.v2_segments is None:
        rules = plan.kb.mappings.rules
        rule = next((r for r in route.op.rules if rules[r].rule_class == "removed"),
                    route.op.rules[0] if route.op.rules else "L01")
        plan.flag(cf.call, rule, "call", route)
        return
    for rule in select():
        if rule.on_call is not None:
            rule.on_call(cf, plan)
    plan_params(cf, plan)


def plan_params(cf: "CallFact", plan: "Plan") -> None:
    """Every v1 query parameter renamed or flagged, per mappings/data/queries.yaml."""
    from codemod.analysis.syntax import flatten
    from codemod.knowledge import HOLE

    site, route = cf.site, cf.route
    qid = route.op.query
    if qid is None:
        return
    qmap = plan.kb.mappings.queries[qid]
    flat = flatten(site.url.pieces) if site.url else ""
    encoded: list = []  # query mappings encoded into the URL (`"?" + urlencode({...})`)
    if "?" in flat[site.url.path_start:]:
        query = flat[flat.find("?", site.url.path_start) + 1:]
        for pair in query.split("&"):
            name = pair.split("=")[0]
            spec = qmap.params.get(name)
            if spec is not None and spec.to != name:
                for rule_id in _param_flag_rules(name, spec, plan):
                    plan.flag(cf.call, rule_id, "param", route)
        unknown = any(HOLE in pair.split("=")[0] for pair in query.split("&"))  # a parameter name not known
        encoded = plan.an.url_queries(site.url_expr, plan.an.scope_of(cf.call)) if unknown else []
        if encoded is None or unknown and not encoded:
            plan.flag(cf.call, "Q03", "param", route, "query string built where the rewrite cannot read it; rename "
                      "its v1 parameters by hand (" + plan.rule_text("Q03") + ")")
            encoded = []
    keys = _param_keys(site.params_expr, cf, plan)
    for mapping in encoded:
        keys += _param_keys(mapping, cf, plan)
    for key_node, name in keys:
        spec = qmap.params.get(name)
        if spec is None or spec.to == name:
            continue
        if spec.native is not None and _param_value(plan.an, key_node) in spec.native.values:
            RULES[spec.native.rule].on_param(cf, key_node, name, spec, plan)  # v2 does it: the parameter goes
            continue
        owner = RULES.get(spec.rule or "")
        if spec.to and owner is not None and owner.on_param is not None:
            owner.on_param(cf, key_node, name, spec, plan)
        else:
            for rule_id in _param_flag_rules(name, spec, plan):
                plan.flag(key_node, rule_id, "param", route)


def _param_flag_rules(name: str, spec, plan: "Plan") -> list[str]:
    """The rules a v1 query parameter v2 does not take is flagged under: its own rule in queries.yaml; and for a list
    filter whose own rule is not about query parameters at all (rules.yaml lists no `concerns.params` for it: Q13 for
    desiredStatus is about the field's values), first the rules whose `concerns.params` name it (Q03: v2 ignores the
    filter and answers the whole list, so filter client-side)."""
    rules = plan.kb.mappings.rules
    own = spec.rule or "Q03"
    if not spec.filter or own in rules and rules[own].concerns.params:
        return [own]
    return list(dict.fromkeys([*(r.id for r in rules.values() if name in r.concerns.params), own]))


def _param_keys(node, cf: "CallFact", plan: "Plan") -> list:
    """(key node, name) of every query parameter a call sends: a dict literal at the call, or a variable
    holding one and extended with `params["k"] = v`. A query the analysis cannot read is flagged."""
    from codemod.analysis.syntax import str_of
    import libcst as cst

    if node is None:
        return []
    an = plan.an
    dicts: list = []
    writes: list = []
    if isinstance(node, cst.Name):
        scope = an.scope_of(cf.call)
        assigned = an.ix.assigns.get(id(scope) if scope else None, {}).get(node.value, [])
        if len(assigned) != 1 or not isinstance(assigned[0][0], cst.Dict):
            plan.flag(cf.call, "Q03", "param", cf.route, "query built where the rewrite cannot read it; rename its v1 "
                      "parameters by hand (" + plan.rule_text("Q03") + ")")
            return []
        dicts.append(assigned[0][0])
        for use in an.ix.names.get(id(scope) if scope else None, {}).get(node.value, []):
            sub = an.parent(use)
            if isinstance(sub, cst.Subscript) and sub.value is use and isinstance(an.parent(sub), cst.AssignTarget):
                key = sub.slice[0].slice.value if isinstance(sub.slice[0].slice, cst.Index) else None
                writes.append(key)
            elif isinstance(sub, cst.Attribute) and sub.value is use and sub.attr.value in ("update", "setdefault", "pop"):
                plan.flag(cf.call, "Q03", "param", cf.route, "query extended where the rewrite cannot read it; rename "
                          "its v1 parameters by hand (" + plan.rule_text("Q03") + ")")
                return []
    elif isinstance(node, cst.Dict):
        dicts.append(node)
    else:
        return []
    out = []
    for d in dicts:
        for el in d.elements:
            if isinstance(el, cst.DictElement) and str_of(el.key) is not None:
                out.append((el.key, str_of(el.key)))
    for key in writes:
        name = str_of(key)
        if name is None:
            plan.flag(cf.call, "Q03", "param", cf.route, "query key only known at run time; check its v1 parameters "
                      "by hand (" + plan.rule_text("Q03") + ")")
            return []
        out.append((key, name))
    return out


def _param_value(an, key_node) -> str | None:
    """The literal string a query parameter is given: `{"grouping": "podId"}`, `params["grouping"] = "podId"`."""
    from codemod.analysis.syntax import str_of
    import libcst as cst

    holder = an.parent(key_node)
    if isinstance(holder, cst.DictElement):
        return str_of(holder.value)
    while holder is not None and not isinstance(holder, cst.AssignTarget):
        if not isinstance(holder, (cst.Index, cst.SubscriptElement, cst.Subscript)):
            return None
        holder = an.parent(holder)
    assign = an.parent(holder) if holder is not None else None
    return str_of(assign.value) if isinstance(assign, cst.Assign) and len(assign.targets) == 1 else None


def plan_read(read: "Read", cf: "CallFact", plan: "Plan") -> None:
    route = read.route
    if read.kind == "loop":
        plan.flag(read.node, read.rule, "response-field", route, blocking=False)
        return
    if read.kind == "list":
        RULES["Q02" if route.op.shape == "list" else "Q25"].on_read(read, cf, plan)
        return
    if read.kind == "error":
        RULES["Q29"].on_read(read, cf, plan)
        return
    spec = plan.kb.mappings.responses[route.op.response].fields[read.key]
    rule = spec.rule or "L02"
    owner = RULES.get(rule)
    if owner is not None and owner.on_read is not None:
        owner.on_read(read, cf, plan)
    else:  # a rule without a module of its own (Q12, R07, ...): L02 renames what has a v2 source, flags the rest
        from codemod.rules.l02_field_renames import rename_read

        rename_read(read, cf, plan, rule)


def plan_strings(plan: "Plan") -> None:
    RULES["L01"].plan_strings(plan)  # type: ignore[attr-defined]


def plan_unresolved(plan: "Plan") -> None:
    """A v1-shaped path whose base cannot be traced to this service: never edited, flagged by the decision."""
    for site, route in plan.facts.unresolved + plan.facts.relative:
        plan.find(site.call, route.op.rules[0] if route.op.rules else "L01", "indirect",
                  f"{route.label()} through a base address defined elsewhere; check it by hand", False, route)


def plan_handed_in(plan: "Plan") -> None:
    """v1 names on objects of unknown origin: findings for the audit, no edit."""
    for name, key_node, written in plan.facts.handed_in:
        kind = "body-field" if written else "response-field"
        for rule in plan.kb.field_rules.get(name, ()):
            plan.find(key_node, rule, kind, f"v1 field {name!r} on an object from elsewhere: " + plan.rule_text(rule),
                      False, attributed=False)
