"""Q29 error-shape: v2 errors are RFC 9457 problems; `["message"]` / `["error"]` reads become `["detail"]`.

The v1 keys come from `v1_error_keys_read`, the v2 key from `v2_error_key` in
mappings/data/conventions.yaml. Reads on the answer of a v1 call, in the
`except` blocks around it, and in the helper that makes it.
"""
from __future__ import annotations

from codemod.analysis.facts import CallFact, Read


def plan_read(read: Read, cf: CallFact, plan, rule_id: str) -> None:
    if read.matched and not plan.kb.mappings.conventions.error_wording_kept:
        # the words of the v1 message are tested: v2's detail says it differently, renaming the key would make
        # the test silently never (or wrongly) match
        plan.flag(read.node, "Q29", "error-read", read.route,
                  f"the v1 error text [{read.key!r}] is matched against its words at line {read.matched}; v2 "
                  f"problems word it differently: re-check the test by hand ({plan.rule_text('Q29')})")
        return
    new = plan.kb.v2_error_key
    plan.change("key", read.node, "Q29", new)
    plan.find(read.node, "Q29", "error-read", f"error body read [{read.key!r}] -> [{new!r}]", True, read.route)
