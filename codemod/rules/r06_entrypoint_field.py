"""R06 entrypoint_field: `dockerEntrypoint` becomes `entrypoint` (string array, exec form), no longer a removed capability.

The conversion is made by the proxy's own request translator inside the L02
body edit (one dict, converted whole). This module decides whether a value
can be converted where it stands: a plain rename, so a value only known at run time moves too.
"""
from __future__ import annotations

from codemod.rules import Rule
from codemod.rules.l02_field_renames import static_only

rule = Rule("R06", __name__, order=41)


@rule.body_field
def convertible(field_spec, value, plan) -> bool:
    return static_only(field_spec, value)
