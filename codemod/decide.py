"""The whole-client decision, in one place, after every rule has planned.

Flags become `# v1bridge: RULE remedy` comments on their statements.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from codemod.plan import Plan


def decide(plan: "Plan") -> None:
    for flags in plan.flags.values():
        for flag in flags:
            plan.comment(flag.node, flag.rule)
