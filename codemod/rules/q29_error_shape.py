"""Q29 error-shape: v2 errors are RFC 9457 problems; `["message"]` / `["error"]` reads become `["detail"]`.

The v1 keys come from `v1_error_keys_read`, the v2 key from `v2_error_key` in
mappings/data/conventions.yaml. Reads on the answer of a v1 call, in the
`except` blocks around it, and in the helper that makes it.
"""
from __future__ import annotations

from codemod.analysis import CallFact, Read
from codemod.plan import Edit
from codemod.rules import Rule

rule = Rule("Q29", __name__, order=52)


@rule.read
def plan_read(read: Read, cf: CallFact, plan) -> None:
    new = plan.kb.v2_error_key
    plan.edit(Edit("key", read.node, "Q29", new))
    plan.find(read.node, "Q29", "error-read", f"error body read [{read.key!r}] -> [{new!r}]", True, read.route)
