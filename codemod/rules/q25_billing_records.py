"""Q25 billing-records: billing answers are `{records, metadata}`; `amount` is `totalAmount`, `time` is `startTime`.

List reads of a billing answer unwrap `["records"]` (as Q02 does for
resource lists); field reads are renamed from the billing response map.

Records are per resource on v2: a `grouping` whose value v2 applies by itself
(`native` in mappings/data/queries.yaml: `podId` on pod billing, `endpointId`
on serverless billing) is dropped from the query, the dict element or the
`params["grouping"] = ...` statement. Any other grouping keeps its own rule
(R10, flagged): v2 cannot give it.

Where v1 grouped the records and v2 does not (pod billing without a grouping:
per GPU type; network volume billing: one record per bucket for the account,
`aggregate` in responses.yaml), the plain v2 list has other records: more of
them, each for one pod or volume. A list only summed (`sum(r["amount"] for r in
rows)`) totals the same; any other use (a count, an index, a row per record)
gets v1's records back through `v1bridge_compat.regroup_billing`, in v2's
field names, so the renamed reads stand. A grouping sent on some runs only is
flagged here; the decision reads such a query when the call runs (`all_pages`) where it can.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import libcst as cst

from codemod import compat_call
from codemod.analysis.facts import CallFact, Read
from codemod.analysis.syntax import str_of
from codemod.rules.edits import drop_data
from codemod.rules import l02_field_renames
from codemod.rules.q02_list_envelope import plan_unwrap
from mappings import load_schema

REGROUP = "regroup_billing"


@dataclass(frozen=True)
class Regroup:
    """`v1bridge_compat.regroup_billing("<kind>", <the v2 answer>, send=<send>)` around a billing answer."""

    kind: str  # the response map (billing_pod, billing_network_volume)
    send: str | None  # code of the client's own call, for what the grouping reads (each pod's GPU type)


def plan_read(read: Read, cf: CallFact, plan, rule_id: str) -> None:
    if read.kind != "list":
        l02_field_renames.plan_read(read, cf, plan, rule_id)
        return
    if any(flag.blocking for flag in plan.flags.get(plan.unit, ())):
        plan_unwrap(read, cf, plan, rule_id)  # the call stays v1 or goes whole through the compat module
        return
    grouped = _v1_grouping(cf, plan)
    if grouped is None or _only_summed(read.node, cf, plan):
        plan_unwrap(read, cf, plan, rule_id)  # v2's records are v1's groups, or only their total is read
        return
    if grouped == "mixed":  # (a query parameter's doing: the decision may read that query when the call runs)
        plan.flag(cf.call, "Q25", "param", cf.route, f"v1 grouped these records by {_default(cf, plan)} when "
                  "`grouping` is not sent and per resource when it is")
        return
    send = None
    if _needs_lookup(cf, plan, grouped):
        send = compat_call.relative_send(plan.facts.source, cf.site) if _from_api_root(cf) else None
        if send is None or cf.site.is_async:
            plan.flag(cf.call, "Q25", "call", cf.route, f"v1 grouped these records by {grouped}, which v2 records "
                      "lack and the rewrite cannot read back through this call")
            return
    plan.change("compat-regroup", read.node, rule_id, Regroup(cf.route.op.response, send))
    plan.change("compat-import", plan.facts.source.module, "compat", plan.compat_import)
    plan.scratch.setdefault("compat-created", {})[plan.unit] = (
        f"v2 billing records; v1bridge_compat.{REGROUP} keeps v1's records ("
        + (f"one per {grouped} and bucket)" if grouped != "bucket" else "one per bucket)"))
    plan.find(read.node, rule_id, "list-read", f"v2 answers one record per resource and bucket: "
              f"{REGROUP} sums them into v1's", True, read.route)


def _v1_grouping(cf: CallFact, plan) -> str | None:
    """How v1 grouped this call's records where v2 does not: "bucket" (one per bucket), the grouping field v1
    applied by default, "mixed" (a native grouping sent on some runs only), None (v2's records are v1's)."""
    spec = plan.kb.mappings.responses[cf.route.op.response]
    if spec.aggregate is not None:
        return "bucket"
    param = _grouping_param(cf, plan)
    if param is None or param.default is None or param.native is None or param.default in param.native.values:
        return None
    sent = plan.scratch.get("grouping-sent", {}).get(plan.unit)
    if sent is None:
        return param.default
    return "mixed" if sent == "sometimes" else None


def _grouping_param(cf: CallFact, plan):
    qid = cf.route.op.query
    return plan.kb.mappings.queries[qid].params.get("grouping") if qid else None


def _default(cf: CallFact, plan) -> str:
    param = _grouping_param(cf, plan)
    return param.default if param is not None and param.default else "bucket"


def _needs_lookup(cf: CallFact, plan, grouped: str) -> bool:
    """Does v1's grouping field come from another v2 read (billing gpuTypeId: each pod's GPU)?"""
    qmap = plan.kb.mappings.queries.get(cf.route.op.query or "")
    return qmap is not None and any(p.field == grouped and p.expand for p in qmap.params.values())


def _from_api_root(cf: CallFact) -> bool:
    """The path the call writes starts at the API root (`/billing/pods`), so the client's own call with another
    path reaches the other resources (a base ending in `/billing` would not)."""
    url = cf.site.url_expr
    tail = None
    if isinstance(url, cst.BinaryOperation):
        tail = str_of(url.right)
    elif isinstance(url, cst.FormattedString) and url.parts and isinstance(url.parts[-1], cst.FormattedStringText):
        tail = url.parts[-1].value
    elif url is not None:
        tail = str_of(url)
    return tail is not None and tail.lstrip("/").startswith(cf.route.v1_segments[0] + "/")


def _only_summed(node: cst.CSTNode, cf: CallFact, plan) -> bool:
    """Is the list only summed, field by field (a total is the same over v1's groups and v2's records)? The
    answer itself inside `sum(<amount> for r in ...)`, or a name bound to it whose every read is."""
    src = plan.facts.source
    bound = src.bound_name(node)
    if bound is None:
        return _summed(node, cf, plan)
    uses = src.uses_after(*bound)
    return all(_summed(use, cf, plan) for use in uses)


def _summed(node: cst.CSTNode, cf: CallFact, plan) -> bool:
    src = plan.facts.source
    comp_for = src.parent(node)
    if not isinstance(comp_for, cst.CompFor) or comp_for.iter is not node or comp_for.inner_for_in is not None \
            or comp_for.ifs or not isinstance(comp_for.target, cst.Name):
        return False
    comp = src.parent(comp_for)
    if not isinstance(comp, (cst.GeneratorExp, cst.ListComp)):
        return False
    arg = src.parent(comp)
    call = src.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name) or call.func.value != "sum" \
            or len(call.args) != 1 or call.args[0].value is not comp:
        return False
    elt, record = comp.elt, comp_for.target.value
    key = None
    if isinstance(elt, cst.Subscript) and isinstance(elt.value, cst.Name) and elt.value.value == record \
            and len(elt.slice) == 1 and isinstance(elt.slice[0].slice, cst.Index):
        key = str_of(elt.slice[0].slice.value)  # r["amount"]
    elif isinstance(elt, cst.Call) and isinstance(elt.func, cst.Attribute) and elt.func.attr.value == "get" \
            and isinstance(elt.func.value, cst.Name) and elt.func.value.value == record and elt.args:
        key = str_of(elt.args[0].value)  # r.get("amount", 0)
    return key is not None and key in _amounts(plan.kb.mappings.responses[cf.route.op.response].v1_schema)


@functools.cache
def _amounts(v1_schema: str) -> frozenset[str]:
    """The numeric fields of a v1 billing record (v1.json): what a sum over records may read."""
    props = load_schema("v1")["components"]["schemas"].get(v1_schema, {}).get("properties", {})
    return frozenset(name for name, p in props.items() if p.get("type") in ("number", "integer"))


def apply_regroup(node: cst.CSTNode, wrap: Regroup) -> cst.CSTNode:
    """`v1bridge_compat.regroup_billing("<kind>", <node>[, send=...])`, the node's own parentheses outside."""
    args = [cst.Arg(cst.SimpleString(f'"{wrap.kind}"'), comma=_COMMA),
            cst.Arg(node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node)]
    if wrap.send is not None:
        args[-1] = args[-1].with_changes(comma=_COMMA)
        args.append(cst.Arg(cst.parse_expression(wrap.send), keyword=cst.Name("send"),
                            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
    return cst.Call(func=cst.Attribute(cst.Name(compat_call.MODULE_NAME), cst.Name(REGROUP)), args=args,
                    lpar=getattr(node, "lpar", ()), rpar=getattr(node, "rpar", ()))


_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))

APPLIES = {"compat-regroup": apply_regroup}


def plan_param(cf: CallFact, key_node, name: str, spec, plan) -> None:
    """`"grouping": "podId"` (or `params["grouping"] = "podId"`) with a value v2 applies natively: it goes. Where
    the drop would take a comment with it, or the statement does more, it stays flagged under its own rule."""
    src = plan.facts.source
    holder = src.parent(key_node)
    if name == "grouping":  # sent on every run, or on some: v1's default grouping applies on the others
        sent = plan.scratch.setdefault("grouping-sent", {})
        sent[plan.unit] = "sometimes" if _conditional(src, key_node) or sent.get(plan.unit) == "sometimes" \
            else "always"
    if isinstance(holder, cst.DictElement):
        dropped, change = holder, ("drop-element", src.parent(holder), "Q25", name)
    elif isinstance(holder, cst.Arg):  # a keyword of the call (`grouping="podId"`): kept, its rule says so
        plan.flag(key_node, spec.rule or "R10", "param", cf.route)
        return
    else:
        stmt = src.statement_of(key_node)
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            plan.flag(key_node, spec.rule or "R10", "param", cf.route)
            return
        dropped, change = stmt, ("drop-statement", stmt, "Q25", drop_data(src, stmt))
    if "#" in _comments(src, dropped):
        plan.flag(key_node, spec.rule or "R10", "param", cf.route, "a comment sits on the v1 parameter; drop "
                  f"{name} by hand ({spec.native.ref})")
        return
    plan.change(*change)
    plan.find(key_node, "Q25", "param", f"query parameter {name}: v2 does it natively, dropped ({spec.native.ref})",
              True, cf.route)


def _conditional(src, node: cst.CSTNode) -> bool:
    """Is NODE under an `if`, a loop or a `try` of its function (so it may not run before the call)?"""
    cur = src.parent(node)
    while cur is not None and not isinstance(cur, (cst.FunctionDef, cst.Module)):
        if isinstance(cur, (cst.If, cst.For, cst.While, cst.Try, cst.IfExp)):
            return True
        cur = src.parent(cur)
    return False


def _comments(src, node: cst.CSTNode) -> str:
    """The source a comment of NODE would be in: a statement with its comment lines; a dict element's lines, from
    the line after the element (or brace) before it to the line it ends on."""
    if isinstance(node, cst.SimpleStatementLine):
        return cst.Module([]).code_for_node(node)
    elements = list(src.parent(node).elements)
    at = elements.index(node)
    first = src.span(elements[at - 1]).end.line + 1 if at else src.span(src.parent(node)).start.line
    return "\n".join(src.lines[first - 1: src.span(node).end.line])
