"""Q03 list-filters-ignored: v2 ignores v1's list filters and answers the whole list; renamed parameters are renamed.

Every query parameter a v1 call sends (a dict literal at the call, a variable
holding one and extended with `params["k"] = v`, a query string spelled in the
URL) is looked up in mappings/data/queries.yaml: a parameter v2 renamed is
renamed by the module of its rule (Q01's `plan_param`), one v2 applies by
itself is dropped by the module of its `native` rule (Q25's), and one v2
ignores is flagged under Q03 (or its own rule), so the decision sends the call
through the compat module, which filters the v2 list at run time. A query the
rewrite cannot read is flagged with what it could not read.
"""
from __future__ import annotations

import libcst as cst

from codemod.analysis.facts import CallFact
from codemod.analysis.syntax import flatten, span_origin, str_of
from codemod.knowledge import HOLE


def plan_call(cf: CallFact, plan) -> None:
    """Every v1 query parameter of the call renamed (by the module of its rule), dropped where v2 does it natively,
    or flagged, per mappings/data/queries.yaml."""
    site, route = cf.site, cf.route
    qid = route.op.query
    if qid is None:
        return
    qmap = plan.kb.mappings.queries[qid]
    flat = flatten(site.url.pieces) if site.url else ""
    encoded: list = []  # query mappings encoded into the URL (`"?" + urlencode({...})`)
    if "?" in flat[site.url.path_start:]:
        at = flat.find("?", site.url.path_start) + 1
        query = flat[at:]
        includes: list = []  # include flags set true, and their flags: the v1 view may build what they add
        for pair in query.split("&"):
            name, _eq, value = pair.partition("=")
            spec = qmap.params.get(name)
            if spec is not None and spec.to and spec.to != name and _rename_in_url(cf, plan, at, name, spec):
                pass  # renamed where it is spelled (`?endpointId=` -> `?serverlessId=`)
            elif spec is not None and spec.to != name:
                before = len(plan.flags.get(plan.unit, ()))
                for rule_id in _param_flag_rules(name, spec, plan):
                    plan.flag(cf.call, rule_id, "param", route)
                if spec.expand and not spec.filter and not spec.unsupported and value in ("true", "1"):
                    includes.append((name, plan.flags[plan.unit][before:]))
            at += len(pair) + 1
        if includes and len(includes) == len(query.split("&")):  # the query is include flags only: it can go
            origin = span_origin(site.url.pieces, flat.find("?", site.url.path_start), len(flat))
            if origin is not None:
                plan.scratch.setdefault("url-includes", {})[plan.unit] = (includes, origin)
        unknown = any(HOLE in pair.split("=")[0] for pair in query.split("&"))  # a parameter name not known
        encoded = plan.facts.source.url_queries(site.url_expr, plan.facts.source.scope_of(cf.call)) if unknown else []
        if encoded is None or unknown and not encoded:
            plan.flag(cf.call, "Q03", "param", route, "query string built where the rewrite cannot read it; rename "
                      "its v1 parameters by hand (" + plan.rule_text("Q03") + ")")
            encoded = []
    keys = _param_keys(site.params_expr, cf, plan)
    if site.params_expr is None:  # keywords that are the query (`get("/pods", name=name)`), and `**mapping`s
        for arg in site.query_args:
            keys += [(arg.keyword, arg.keyword.value)] if arg.keyword is not None else _param_keys(arg.value, cf, plan)
    for mapping in encoded:
        keys += _param_keys(mapping, cf, plan)
    for key_node, name in keys:
        spec = qmap.params.get(name)
        if spec is None or spec.to == name:
            continue
        if spec.native is not None and _param_value(plan.facts.source, key_node) in spec.native.values:
            plan.rewriters[spec.native.rule].plan_param(cf, key_node, name, spec, plan)  # v2 does it: it goes
            continue
        owner = plan.rewriters.get(spec.rule or "")
        if spec.to and owner is not None and owner.plan_param is not None:
            owner.plan_param(cf, key_node, name, spec, plan)
        else:
            message = plan.param_text(plan.facts.source.code_of(key_node), spec)
            for rule_id in _param_flag_rules(name, spec, plan):
                plan.flag(key_node, rule_id, "param", route, message)


def _rename_in_url(cf: CallFact, plan, at: int, name: str, spec) -> bool:
    """A v1 query parameter v2 takes under another name, spelled in the URL's query string: respelled in its literal
    (False: the name is not in one literal)."""
    origin = span_origin(cf.site.url.pieces, at, at + len(name))
    if origin is None:
        return False
    rule_id = spec.rule or "Q03"
    plan.string_edit(origin[0], origin[1], origin[2], spec.to, rule_id)
    plan.find(cf.call, rule_id, "param", f"query parameter {name} -> {spec.to}", True, cf.route)
    return True


def _param_flag_rules(name: str, spec, plan) -> list[str]:
    """The rules a v1 query parameter v2 does not take is flagged under: its own rule in queries.yaml; and for a list
    filter whose own rule is not about query parameters at all (rules.yaml lists no `concerns.params` for it: Q13 for
    desiredStatus is about the field's values), first the rules whose `concerns.params` name it (Q03: v2 ignores the
    filter and answers the whole list, so filter client-side)."""
    rules = plan.kb.mappings.rules
    own = spec.rule or "Q03"
    if not spec.filter or own in rules and rules[own].concerns.params:
        return [own]
    return list(dict.fromkeys([*(r.id for r in rules.values() if name in r.concerns.params), own]))


def _param_keys(node, cf: CallFact, plan) -> list:
    """(key node, name) of every query parameter a call sends: a dict literal at the call, or a variable
    holding one and extended with `params["k"] = v`. A query the analysis cannot read is flagged."""
    if node is None:
        return []
    src = plan.facts.source
    dicts: list = []
    writes: list = []
    if isinstance(node, cst.Name):
        scope = src.scope_of(cf.call)
        assigned = src.assigned(scope, node.value)
        if len(assigned) != 1 or not isinstance(assigned[0][0], cst.Dict):
            plan.flag(cf.call, "Q03", "param", cf.route, "query built where the rewrite cannot read it; rename its v1 "
                      "parameters by hand (" + plan.rule_text("Q03") + ")")
            return []
        dicts.append(assigned[0][0])
        for use in src.reads(scope, node.value):
            sub = src.parent(use)
            if isinstance(sub, cst.Subscript) and sub.value is use and isinstance(src.parent(sub), cst.AssignTarget):
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


def _param_value(src, key_node) -> str | None:
    """The literal string a query parameter is given: `{"grouping": "podId"}`, `params["grouping"] = "podId"`."""
    holder = src.parent(key_node)
    if isinstance(holder, cst.DictElement):
        return str_of(holder.value)
    while holder is not None and not isinstance(holder, cst.AssignTarget):
        if not isinstance(holder, (cst.Index, cst.SubscriptElement, cst.Subscript)):
            return None
        holder = src.parent(holder)
    assign = src.parent(holder) if holder is not None else None
    return str_of(assign.value) if isinstance(assign, cst.Assign) and len(assign.targets) == 1 else None
