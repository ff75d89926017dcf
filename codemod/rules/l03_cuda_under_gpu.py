"""L03 cuda_under_gpu: CUDA constraints (`allowedCudaVersions`, `minCudaVersion`) move under `gpu`.

The conversion is made by the proxy's own request translator inside the L02
body edit (one dict, converted whole). This module decides whether a value
can be converted where it stands: a literal can; a value only known at run
time cannot, and the body is flagged with L03 instead.
"""
from __future__ import annotations

from codemod.rules import Rule
from codemod.rules.l02_field_renames import static_only

rule = Rule("L03", __name__, order=41)


@rule.body_field
def convertible(field_spec, value, plan) -> bool:
    return static_only(field_spec, value)
