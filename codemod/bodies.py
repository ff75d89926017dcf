"""Request bodies: a flat v1 dict literal becomes the nested v2 body, as the proxy would send it.

The conversion is `mappings.translate.translators().request(...)`, the same
call the proxy makes, so the rewritten code and the proxy agree. Values that
are expressions travel through it as opaque markers when their field is a
plain move or rename; a field that needs a converter or a composer on a value
only known at run time is left to a person (one comment, nothing dropped).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import libcst as cst

from codemod.render import Code, render
from mappings.translate import InvalidValue, NeedsLookup, PolicyRefused, translators

if TYPE_CHECKING:  # pragma: no cover
    from codemod.detect import Analyzer, CallSite
    from codemod.knowledge import Route


class _Marker:
    """An expression whose value is only known at run time."""

    def __init__(self, code: str) -> None:
        self.code = code


def _substitute(value, markers: dict[int, _Marker]):
    if isinstance(value, _Marker):
        return Code(value.code)
    if isinstance(value, dict):
        return {k: _substitute(v, markers) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, markers) for v in value]
    return value


def _has_marker(value) -> bool:
    if isinstance(value, _Marker):
        return True
    if isinstance(value, dict):
        return any(_has_marker(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_marker(v) for v in value)
    return False


def plan_body(an: "Analyzer", site: "CallSite", route: "Route", map_id: str, node: cst.Dict) -> None:
    from codemod.detect import Edit, _str_of

    kb = an.kb
    spec = kb.mappings.requests[map_id]
    body: dict = {}
    quote = '"'
    for element in node.elements:
        if not isinstance(element, cst.DictElement):
            an._body_manual(site, route)
            return
        key = _str_of(element.key)
        if key is None:
            an._body_manual(site, route)
            return
        if isinstance(element.key, cst.SimpleString):
            quote = element.key.quote if len(element.key.quote) == 1 else quote
        code = an.code_of(element.value)
        try:
            body[key] = ast.literal_eval(code.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            body[key] = _Marker(code.strip())
    for key, value in body.items():
        field = spec.fields.get(key)
        if field is None:
            an._manual(node, "L02", "body-field", route, f"v1 body field {key!r} is not in the mapping; check it by hand")
            return
        if _has_marker(value) and (field.convert or field.compose or field.selects):
            an._manual(node, field.rule or "L02", "body-field", route,
                       f"v1 body field {key!r} needs a conversion its run-time value does not allow here: "
                       + an._rule_text(field.rule or "L02"))
            return
    strict = {policy: False for policy in kb.mappings.policies}
    try:
        result = translators().request(map_id, body, strict=strict)
    except NeedsLookup:
        rule = next((f.rule for k, f in spec.fields.items() if k in body and f.compose and f.rule), "L02")
        an._manual(node, rule, "body-field", route)
        return
    except (InvalidValue, PolicyRefused) as exc:
        an._manual(node, "L02", "body-field", route, f"v1 body cannot be translated: {exc}")
        return
    # what the translation drops or cannot express is a person's decision
    for key in body:
        field = spec.fields[key]
        rule = field.rule
        policy = kb.mappings.policies.get(field.policy) if field.policy else None
        if rule and kb.mappings.rules[rule].rule_class == "removed" and (
            field.to is None or (policy is not None and policy.id in result.emulations)
        ):
            an._manual(node, rule, "body-field", route, f"v1 body field {key!r}: {an._rule_text(rule)}")
    for key in result.ignored:
        if key in body and key in spec.fields:
            continue  # a field of the other compute family: v1 ignored it too
    new_body = _substitute(result.body, {})
    original = an.code_of(node)
    multiline = "\n" in original
    # libcst indents continuation lines by the enclosing block itself: render relative to it
    code = render(new_body, quote=quote, indent="    " if multiline else None, level="")
    if code == original:
        return
    an._edit(Edit("dict", node, "L02", code))
    changed = [k for k in body if spec.fields[k].to != k]
    added = [k for k in result.body if k not in body]
    detail = ", ".join(f"{k} -> {spec.fields[k].to or 'dropped'}" for k in changed)
    if added:
        detail += ("; " if detail else "") + "explicit v2 values for v1 defaults: " + ", ".join(added)
    an._find(node, "L02", "body-field", f"v1 body -> v2 body ({detail})", True, route)
