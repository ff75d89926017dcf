"""Q14 cost_field: `costPerHr` is read as `cost` (0.0 while EXITED or TERMINATED)."""
from __future__ import annotations

from codemod.analysis import CallFact, Read
from codemod.rules import Rule
from codemod.rules.l02_field_renames import rename_read

rule = Rule("Q14", __name__, order=53)


@rule.read
def plan_read(read: Read, cf: CallFact, plan) -> None:
    rename_read(read, cf, plan, "Q14")
