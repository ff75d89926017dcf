"""L02 field-renames: flat v1 request bodies become nested v2 bodies; renamed answer fields are read by their v2 name.

Bodies go through `mappings.translate.translators().request(...)`, the call
the proxy makes, so the rewritten code sends what the proxy would send.
Values that are expressions travel through it as opaque markers when their
field is a plain move or rename; a field that needs a converter on a value
only known at run time is decided by the module of that field's rule (Q04,
Q09, L03, L07, Q07 convert statically known values; anything else is
flagged). A field the translation drops because v2 has no place for it is
flagged with its removed rule.

Answer reads: `pod["workersMin"]` -> `pod["workers"]["min"]`, `.get(...)` chains
likewise; Q13, Q14 and Q25 rename their own fields through `rename_read`.
"""
from __future__ import annotations

import ast

import libcst as cst

from codemod.analysis import CallFact, Read
from codemod.analysis.syntax import str_of
from codemod.plan import Edit
from codemod.render import Code, render
from codemod.rules import RULES, Rule
from mappings.translate import InvalidValue, NeedsLookup, PolicyRefused, translators

rule = Rule("L02", __name__, order=40)


class _Marker(str):
    """An expression whose value is only known at run time, carried through the translator as a sentinel string.

    A str (the translator checks types), compared by identity afterwards: a marker found in the v2 body as
    the same object was moved or renamed, and its source is put back; a sentinel found inside another string
    was consumed by a conversion, which a value only known at run time does not allow.
    """

    code: str

    def __new__(cls, code: str, n: int):
        self = super().__new__(cls, f"\x00v1bridge-value-{n}\x00")
        self.code = code
        return self


_SENTINEL = "\x00v1bridge-value-"


def _substitute(value):
    if isinstance(value, _Marker):
        return Code(value.code)
    if isinstance(value, dict):
        return {k: _substitute(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v) for v in value]
    return value


def has_marker(value) -> bool:
    if isinstance(value, _Marker):
        return True
    if isinstance(value, dict):
        return any(has_marker(v) for v in value.values())
    if isinstance(value, list):
        return any(has_marker(v) for v in value)
    return False


def _consumed(value) -> bool:
    """A sentinel inside a value that is not the marker itself: a conversion used a run-time value."""
    if isinstance(value, _Marker):
        return False
    if isinstance(value, str):
        return _SENTINEL in value
    if isinstance(value, dict):
        return any(_consumed(k) or _consumed(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_consumed(v) for v in value)
    return False


def _value(node: cst.BaseExpression, an, counter: list) -> object:
    """The JSON value of an expression: literals as they are, lists and dicts element by element, anything
    else a marker for its source."""
    if isinstance(node, (cst.List, cst.Tuple)) and all(isinstance(e, cst.Element) for e in node.elements):
        return [_value(e.value, an, counter) for e in node.elements]
    if isinstance(node, cst.Dict) and all(isinstance(e, cst.DictElement) and str_of(e.key) is not None
                                          for e in node.elements):
        return {str_of(e.key): _value(e.value, an, counter) for e in node.elements}
    code = an.code_of(node).strip()
    try:
        value = ast.literal_eval(code)
        if isinstance(value, (str, int, float, bool, type(None))):
            return value
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    counter.append(None)
    return _Marker(code, len(counter))


class Replace:
    """A body-field hook's answer: the v2 value of the field, written by the rule itself (the translator skips it)."""

    def __init__(self, value) -> None:
        self.value = value


def static_only(field_spec, value) -> bool:
    """The default body-field check. A value only known at run time goes through the translator as a
    sentinel; whether a conversion consumed it is checked on the result (`_consumed`), so nothing is
    refused here."""
    return True


def _body_flag(cf: CallFact, plan) -> None:
    plan.flag(cf.call, "L02", "body-field", cf.route,
              "request body built elsewhere; convert it to the v2 shape (" + plan.rule_text("L02") + ")")


@rule.call
def plan_call(cf: CallFact, plan) -> None:
    route = cf.route
    map_id = route.op.request
    if map_id is None or cf.site.body_expr is None:
        return
    if cf.body is None:
        _body_flag(cf, plan)
        return
    plan_body(cf, plan, map_id, cf.body)


def plan_body(cf: CallFact, plan, map_id: str, node: cst.Dict) -> None:
    an, kb, route = plan.an, plan.kb, cf.route
    spec = kb.mappings.requests[map_id]
    body: dict = {}
    replaced: dict = {}  # v1 key -> v2 value a rule module wrote itself
    counter: list = []
    quote = '"'
    for element in node.elements:
        if not isinstance(element, cst.DictElement):
            _body_flag(cf, plan)
            return
        key = str_of(element.key)
        if key is None:
            _body_flag(cf, plan)
            return
        if isinstance(element.key, cst.SimpleString):
            quote = element.key.quote if len(element.key.quote) == 1 else quote
        body[key] = _value(element.value, an, counter)
    for key, value in body.items():
        field = spec.fields.get(key)
        if field is None:
            plan.flag(node, "L02", "body-field", route, f"v1 body field {key!r} is not in the mapping; check it by hand")
            return
        owner = RULES.get(field.rule or "")
        check = owner.on_body_field if owner is not None and owner.on_body_field is not None else None
        verdict = check(field, value, plan) if check else static_only(field, value)
        if isinstance(verdict, Replace):
            replaced[key] = verdict.value
            continue
        if not verdict:
            plan.flag(node, field.rule or "L02", "body-field", route,
                      f"v1 body field {key!r} needs a conversion its run-time value does not allow here: "
                      + plan.rule_text(field.rule or "L02"))
            return
    strict = {policy: False for policy in kb.mappings.policies}
    try:
        result = translators().request(map_id, {k: v for k, v in body.items() if k not in replaced}, strict=strict)
    except NeedsLookup:
        rule_id = next((f.rule for k, f in spec.fields.items() if k in body and f.compose and f.rule), "L02")
        plan.flag(node, rule_id, "body-field", route)
        return
    except (InvalidValue, PolicyRefused) as exc:
        named = next((k for k in body if str(exc).startswith(k)), None)  # the translator names the field first
        rule_id = (spec.fields[named].rule if named else None) or "L02"
        plan.flag(node, rule_id, "body-field", route, f"v1 body cannot be translated: {exc}")
        return
    except Exception:  # a converter that needs the value itself (arithmetic, parsing) met a run-time value
        rule_id = next((spec.fields[k].rule for k, v in body.items() if has_marker(v) and spec.fields[k].rule), "L02")
        plan.flag(node, rule_id, "body-field", route, "a v1 body value only known at run time needs a conversion: "
                  + plan.rule_text(rule_id))
        return
    # what the translation drops or cannot express is a person's decision
    for key in body:
        field = spec.fields[key]
        rule_id = field.rule
        policy = kb.mappings.policies.get(field.policy) if field.policy else None
        if rule_id and kb.mappings.rules[rule_id].rule_class == "removed" and (
            field.to is None or (policy is not None and policy.id in result.emulations)
        ):
            plan.flag(node, rule_id, "body-field", route, f"v1 body field {key!r}: {plan.rule_text(rule_id)}")
    if _consumed(result.body):
        rule_id = next((spec.fields[k].rule for k, v in body.items() if has_marker(v) and spec.fields[k].rule), "L02")
        plan.flag(node, rule_id, "body-field", route, "a v1 body value only known at run time needs a conversion: "
                  + plan.rule_text(rule_id))
        return
    for key, value in replaced.items():
        target = result.body
        parts = spec.fields[key].to.split(".")
        for part in parts[:-1]:
            target = target.setdefault(part, {})
        target[parts[-1]] = value
    new_body = _substitute(result.body)
    original = an.code_of(node)
    multiline = "\n" in original
    # libcst indents continuation lines by the enclosing block itself: render relative to it, from the
    # indentation of the line the dict opens on (a dict inside a call's arguments sits deeper than its statement)
    level = _relative_indent(an, node) if multiline else ""
    code = render(new_body, quote=quote, indent="    " if multiline else None, level=level)
    if multiline:
        code = _carry_comments(node, code, spec, quote, level)
    if code == original:
        return
    plan.edit(Edit("dict", node, "L02", code))
    changed = [k for k in body if spec.fields[k].to != k]
    added = [k for k in result.body if k not in body]
    detail = ", ".join(f"{k} -> {spec.fields[k].to or 'dropped'}" for k in changed)
    if added:
        detail += ("; " if detail else "") + "explicit v2 values for v1 defaults: " + ", ".join(added)
    plan.find(node, "L02", "body-field", f"v1 body -> v2 body ({detail})", True, route)


def _comments_of(ws) -> tuple[str | None, list[str]]:
    """(comment on the same line, own-line comments after it) of a piece of whitespace."""
    if isinstance(ws, cst.ParenthesizedWhitespace):
        same = ws.first_line.comment.value if ws.first_line.comment is not None else None
        return same, [line.comment.value for line in ws.empty_lines if line.comment is not None]
    return None, []


def _relative_indent(an, node: cst.CSTNode) -> str:
    """Leading whitespace of the dict's first line beyond that of its statement's first line."""
    try:
        line = an.lines[an.pos[node].start.line - 1]
        stmt = an.statement_of(node)
        first = an.lines[an.pos[stmt].start.line - 1] if stmt is not None else line
    except (KeyError, IndexError):
        return ""
    own = line[: len(line) - len(line.lstrip(" \t"))]
    base = first[: len(first) - len(first.lstrip(" \t"))]
    return own[len(base):] if own.startswith(base) else ""


def _carry_comments(node: cst.Dict, code: str, spec, quote: str, level: str) -> str:
    """Put the comments of the v1 dict on the v2 entries their fields became (nothing is lost).

    A comment on a field's line goes to the end of the line of the v2 key the field moved into; an own-line
    comment above a field goes above that key; a comment whose field v2 drops goes above the closing brace.
    """
    elements = [el for el in node.elements if isinstance(el, cst.DictElement)]
    trailing: dict[int, list[str]] = {}
    leading: dict[int, list[str]] = {}
    head, own = _comments_of(node.lbrace.whitespace_after)
    leading.setdefault(0, []).extend(own)
    for i, el in enumerate(elements):
        ws = el.comma.whitespace_after if isinstance(el.comma, cst.Comma) else None
        if i == len(elements) - 1 and ws is None:
            ws = node.rbrace.whitespace_before
        same, own = _comments_of(ws)
        if same:
            trailing.setdefault(i, []).append(same)
        if own:
            leading.setdefault(i + 1, []).extend(own)
    if not (head or trailing or leading.get(0) or any(leading.values())):
        return code
    lines = code.split("\n")

    def line_of(v1_key: str) -> int | None:
        field = spec.fields.get(v1_key)
        target = (field.to or "").split(".")[0] if field is not None else ""
        for j, text in enumerate(lines):
            if text.startswith(f"{level}    {quote}{target}{quote}:"):
                return j
        return None

    before: dict[int | None, list[str]] = {}
    after: dict[int | None, list[str]] = {}
    for i, el in enumerate(elements):
        j = line_of(str_of(el.key) or "")
        before.setdefault(j, []).extend(leading.get(i, []))
        after.setdefault(j, []).extend(trailing.get(i, []))
    orphans = before.pop(None, []) + after.pop(None, []) + leading.get(len(elements), [])
    out = []
    for j, text in enumerate(lines):
        if j == 0 and head:
            text = f"{text}  {head}"
        if j == len(lines) - 1:
            out.extend(f"{level}    {c}" for c in orphans)
        out.extend(f"{level}    {c}" for c in before.get(j, []))
        if after.get(j):
            text = f"{text}  {'  '.join(after[j])}"
        out.append(text)
    return "\n".join(out)


@rule.applies("dict")
def replace_body(node: cst.CSTNode, code: str) -> cst.CSTNode:
    """A v1 request dict replaced by its v2 form."""
    new = cst.parse_expression(code)
    return new.with_changes(lpar=getattr(node, "lpar", ()), rpar=getattr(node, "rpar", ()))


# ------------------------------------------------------------------ answer reads

def rename_read(read: Read, cf: CallFact, plan, rule_id: str) -> None:
    """A v1 answer field read by its v2 name (flat or nested); flagged when v2 has no source for it."""
    route = read.route
    spec = plan.kb.mappings.responses[route.op.response].fields[read.key]
    name, node, how = read.key, read.node, read.how
    if spec.omit or spec.has_const or (spec.convert and not spec.convert_if_absent):
        if spec.rule is not None:
            plan.flag(node, spec.rule, "response-field", route, f"v1 field {name!r}: {plan.rule_text(spec.rule)}")
        return
    source = spec.source
    if source is None or source == name:
        return
    if isinstance(source, list):  # read from one of several v2 fields (cpu or gpu): a person picks
        plan.flag(node, rule_id, "response-field", route, f"v1 field {name!r} -> first of {', '.join(source)}")
        return
    if "." in source:
        parts = source.split(".")
        if any(part.isdigit() for part in parts):
            plan.flag(node, rule_id, "response-field", route, f"v1 field {name!r} -> {source}")
            return
        outer = plan.an.parent(node)
        while outer is not None and not isinstance(outer, (cst.Subscript, cst.Call)):
            outer = plan.an.parent(outer)
        if outer is None:
            return
        plan.edit(Edit("path-read", outer, rule_id, (how, parts, node)))
    else:
        plan.edit(Edit("key", node, rule_id, source))
    plan.find(node, rule_id, "response-field", f"v1 field {name!r} -> {source!r}", True, route)


@rule.read
def plan_read(read: Read, cf: CallFact, plan) -> None:
    rename_read(read, cf, plan, "L02")


def _key(node: cst.SimpleString | None, text: str) -> cst.SimpleString:
    quote = node.quote if node is not None and len(node.quote) == 1 else '"'
    return cst.SimpleString(f"{quote}{text}{quote}")


@rule.applies("path-read")
def nest_read(node: cst.CSTNode, data) -> cst.CSTNode:
    """x["workersMin"] -> x["workers"]["min"]; x.get("workersMin") -> x.get("workers", {}).get("min")."""
    how, parts, key_node = data
    if how == "subscript" and isinstance(node, cst.Subscript):
        value = node.value
        for part in parts:
            value = cst.Subscript(value=value, slice=[cst.SubscriptElement(slice=cst.Index(value=_key(key_node, part)))])
        return value.with_changes(lpar=node.lpar, rpar=node.rpar)
    if how == "get" and isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        receiver = node.func.value
        rest = list(node.args[1:])
        expr: cst.BaseExpression = receiver
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            args = [cst.Arg(_key(key_node, part))]
            if not last:
                args = [cst.Arg(_key(key_node, part), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                        cst.Arg(cst.Dict([]))]
            elif rest:
                args = [cst.Arg(_key(key_node, part), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), *rest]
            expr = cst.Call(func=cst.Attribute(value=expr, attr=cst.Name("get")), args=args)
        return expr
    return node
