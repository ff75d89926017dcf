"""Q01 billing-endpoints-meaning: v1 `/billing/endpoints` (serverless spend) is v2 `/billing/serverless`.

On v2 the old path bills public endpoints, so the path is respelled, and the
query parameters whose mapping names Q01 (`endpointId` -> `serverlessId`)
are renamed with it; without the rename v2 ignores the filter and answers
the whole account's spend.
"""
from __future__ import annotations

from codemod.analysis.facts import CallFact
from codemod.rules.l01_path_renames import rename_segments


def plan_call(cf: CallFact, plan) -> None:
    route = cf.route
    if "Q01" not in route.op.rules or route.action_body or len(route.v1_segments) != len(route.v2_segments):
        return
    changed = rename_segments(cf, plan, "Q01")
    if changed is None:
        plan.flag(cf.call, "Q01", "call", route)
        return
    plan.find(cf.call, "Q01" if changed else "L01", "call", f"{route.label()} -> {route.v2_label()}", True, route)


def plan_param(cf: CallFact, key_node, name: str, spec, plan) -> None:
    plan.change("key", key_node, "Q01", spec.to)
    plan.find(key_node, "Q01", "param", f"query parameter {name} -> {spec.to}", True, cf.route)
