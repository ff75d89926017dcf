"""Q13 status_observed_not_desired: `desiredStatus` (intent) is read as `status` (observed). A loop waiting on it also gets the Q13 remedy as a comment: v2 may answer ERROR, which v1 never did."""
from __future__ import annotations

from codemod.analysis import CallFact, Read
from codemod.rules import Rule
from codemod.rules.l02_field_renames import rename_read

rule = Rule("Q13", __name__, order=53)


@rule.read
def plan_read(read: Read, cf: CallFact, plan) -> None:
    rename_read(read, cf, plan, "Q13")
