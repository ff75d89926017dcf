"""Q04 flashboot_enum: `flashboot: true|false` becomes the enum `"FLASHBOOT"` / `"OFF"`.

The conversion is made by the proxy's own request translator inside the L02
body edit (one dict, converted whole). This module decides whether a value
can be converted where it stands: a literal can; a value only known at run
time cannot, and the body is flagged with Q04 instead.
"""
from __future__ import annotations

from codemod.render import Code, render
from codemod.rules.l02_field_renames import Replace, has_marker


def plan_body_field(field_spec, value, plan):
    """A literal goes through the translator; a boolean only known at run time becomes the conditional
    expression of the value map (`"FLASHBOOT" if x else "OFF"`, from mappings/data/values.yaml)."""
    if not has_marker(value):
        return True
    values = plan.kb.mappings.values.get("flashboot")
    forward = values.forward if values is not None else {}
    if set(forward) != {"true", "false"} or not isinstance(value, str):
        return False
    return Replace(Code(f"{render(forward['true'])} if {value.code} else {render(forward['false'])}"))
