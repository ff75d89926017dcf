"""Q25 billing-records: billing answers are `{records, metadata}`; `amount` is `totalAmount`, `time` is `startTime`.

List reads of a billing answer unwrap `["records"]` (as Q02 does for
resource lists); field reads are renamed from the billing response map.

Records are per resource on v2: a `grouping` whose value v2 applies by itself
(`native` in mappings/data/queries.yaml: `podId` on pod billing, `endpointId`
on serverless billing) is dropped from the query, the dict element or the
`params["grouping"] = ...` statement. Any other grouping keeps its own rule
(R10, flagged): v2 cannot give it.
"""
from __future__ import annotations

import libcst as cst

from codemod.analysis.facts import CallFact, Read
from codemod.rules.edits import drop_data
from codemod.rules import l02_field_renames
from codemod.rules.q02_list_envelope import plan_unwrap


def plan_read(read: Read, cf: CallFact, plan, rule_id: str) -> None:
    if read.kind == "list":
        plan_unwrap(read, cf, plan, rule_id)
    else:
        l02_field_renames.plan_read(read, cf, plan, rule_id)


def plan_param(cf: CallFact, key_node, name: str, spec, plan) -> None:
    """`"grouping": "podId"` (or `params["grouping"] = "podId"`) with a value v2 applies natively: it goes. Where
    the drop would take a comment with it, or the statement does more, it stays flagged under its own rule."""
    src = plan.facts.source
    holder = src.parent(key_node)
    if isinstance(holder, cst.DictElement):
        dropped, change = holder, ("drop-element", src.parent(holder), "Q25", name)
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


def _comments(src, node: cst.CSTNode) -> str:
    """The source a comment of NODE would be in: a statement with its comment lines; a dict element's lines, from
    the line after the element (or brace) before it to the line it ends on."""
    if isinstance(node, cst.SimpleStatementLine):
        return cst.Module([]).code_for_node(node)
    elements = list(src.parent(node).elements)
    at = elements.index(node)
    first = src.span(elements[at - 1]).end.line + 1 if at else src.span(src.parent(node)).start.line
    return "\n".join(src.lines[first - 1: src.span(node).end.line])
