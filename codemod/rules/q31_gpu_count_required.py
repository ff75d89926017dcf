"""Q31 gpu_count_required: a pod create always carries `gpu.count` (1 when v1 omitted gpuCount): live v2 fails creates without it.

The conversion is made by the proxy's own request translator inside the L02
body edit (one dict, converted whole). This module decides whether a value
can be converted where it stands: `gpuCount` moves to `gpu.count`, and an omitted one is written as 1.
"""
from __future__ import annotations

from codemod.rules import Rule
from codemod.rules.l02_field_renames import static_only

rule = Rule("Q31", __name__, order=41)


@rule.body_field
def convertible(field_spec, value, plan) -> bool:
    return static_only(field_spec, value)
