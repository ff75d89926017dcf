"""One small applier per rewrite rule; the engine dispatches each planned edit to one of them.

The detector (codemod/detect.py) decides *what* changes and records it as an
`Edit` on a node of the parsed module; these modules only know *how* to turn
that node into its v2 form, so a rule is a few lines and easy to test.
"""
from __future__ import annotations

from typing import Callable

import libcst as cst

from codemod.rules import l01_path_renames, l02_field_renames, l04_verb_paths, manual, q02_list_envelope

Applier = Callable[[cst.CSTNode, object], cst.CSTNode]

# edit kind -> applier, in the order they run on one node
APPLIERS: dict[str, Applier] = {
    "string": l01_path_renames.apply,
    "name": l04_verb_paths.rename,
    "key": l02_field_renames.rename_key,
    "path-read": l02_field_renames.nest_read,
    "dict": l02_field_renames.replace_body,
    "add-kwarg": l04_verb_paths.add_body,
    "subscript": q02_list_envelope.apply,
    "comment": manual.apply,
}
ORDER = {kind: i for i, kind in enumerate(APPLIERS)}
