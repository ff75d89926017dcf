"""Q25 billing-records: billing answers are `{records, metadata}`; `amount` is `totalAmount`, `time` is `startTime`.

List reads of a billing answer unwrap `["records"]` (as Q02 does for
resource lists); field reads are renamed from the billing response map.
"""
from __future__ import annotations

from codemod.analysis import CallFact, Read
from codemod.rules import Rule
from codemod.rules.l02_field_renames import rename_read
from codemod.rules.q02_list_envelope import plan_unwrap

rule = Rule("Q25", __name__, order=51)


@rule.read
def plan_read(read: Read, cf: CallFact, plan) -> None:
    if read.kind == "list":
        plan_unwrap(read, cf, plan, "Q25")
    else:
        rename_read(read, cf, plan, "Q25")
