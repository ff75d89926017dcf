"""Q39 placement_floor_defaults: `minRAMPerGPU` / `minVCPUPerGPU` become `gpu.minRamPerGpu` / `gpu.minVcpuCountPerGpu`; omitted ones are written as v1's 8 and 2.

The conversion is made by the proxy's own request translator inside the L02
body edit (one dict, converted whole). This module decides whether a value
can be converted where it stands: the floors move as they are, and omitted ones are written with v1's defaults.
"""
from __future__ import annotations

from codemod.rules import Rule
from codemod.rules.l02_field_renames import static_only

rule = Rule("Q39", __name__, order=41)


@rule.body_field
def convertible(field_spec, value, plan) -> bool:
    return static_only(field_spec, value)
