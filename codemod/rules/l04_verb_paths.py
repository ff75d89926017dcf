"""L04 verb-paths-gone: `POST /pods/{id}/start|stop|restart` -> `POST /v2/pods/{id}/action {"action": ...}`;
`POST .../update` -> `PATCH` on the resource.

The action body comes from the operation in mappings/data/operations.yaml, so
start, stop and restart stay three different calls. A call that already sends
a body, or whose method or body keyword cannot be set, is flagged instead.
"""
from __future__ import annotations

import libcst as cst

from codemod.analysis.facts import CallFact
from codemod.analysis.syntax import literal_value, snippet_expression, span_origin
from codemod.render import Code, render
from codemod.rules.l01_path_renames import rename_segments, segment_offsets
from mappings.index import HTTP_METHODS


def plan_call(cf: CallFact, plan) -> None:
    route, site = cf.route, cf.site
    v1s, v2 = route.v1_segments, route.v2_segments
    label = route.label()
    path_rule = "Q01" if "Q01" in route.op.rules else "L01"
    if cf.verb is not None:
        _plan_verb_choice(cf, plan, path_rule)
        return
    if route.action_body and len(v1s) == len(v2):
        offsets = segment_offsets(site.url, cf.path)
        for i, (a, b) in enumerate(zip(v1s, v2)):
            if a.startswith("{") or a == b:
                continue
            origin = span_origin(site.url.pieces, *offsets[i])
            if origin is None:
                plan.flag(cf.call, "L04", "call", route)
                return
            plan.string_edit(origin[0], origin[1], origin[2], b, "L04" if i == len(v1s) - 1 else path_rule)
        if not _add_action_body(cf, plan):
            plan.flag(cf.call, "L04", "call", route)
            return
        plan.find(cf.call, "L04", "call", f"{label} -> {route.v2_label()} {route.action_body}", True, route)
        return
    if len(v2) == len(v1s) - 1 and (v1s[:-1] == v2 or route.v2_method != route.method):
        # POST .../update -> PATCH on the resource: drop the last segment (and its slash)
        s, e = segment_offsets(site.url, cf.path)[-1]
        origin = span_origin(site.url.pieces, s - 1, e)
        if origin is None or not _method_edit(cf, plan):
            plan.flag(cf.call, "L04", "call", route)
            return
        if rename_segments(cf, plan, path_rule, count=len(v1s) - 1) is None:
            plan.flag(cf.call, "L04", "call", route)
            return
        _drop_span(origin, plan)
        plan.find(cf.call, "L04", "call", f"{label} -> {route.v2_label()}", True, route)


def _plan_verb_choice(cf: CallFact, plan, path_rule: str) -> None:
    """`f"/pods/{pod_id}/{verb}"`, verb guarded to start/stop/restart -> `f"/pods/{pod_id}/action"` with the body
    `{"action": verb}`: only when every value's v2 body is that one key holding the value itself."""
    choice, route, site = cf.verb, cf.route, cf.site
    keys = {tuple(r.action_body) for r in choice.routes.values()}
    if len(keys) != 1 or len(next(iter(keys))) != 1 or any(
            r.action_body[next(iter(keys))[0]] != value for value, r in choice.routes.items()):
        plan.flag(cf.call, "L04", "call", route)  # the v2 bodies do not follow the verb: a person maps them
        return
    key = next(iter(keys))[0]
    v1s, v2 = route.v1_segments, route.v2_segments
    if len(v1s) != len(v2):
        plan.flag(cf.call, "L04", "call", route)
        return
    offsets = segment_offsets(site.url, cf.path)
    for i, (a, b) in enumerate(zip(v1s[:-1], v2[:-1])):
        if a.startswith("{") or a == b:
            continue
        origin = span_origin(site.url.pieces, *offsets[i])
        if origin is None:
            plan.flag(cf.call, "L04", "call", route)
            return
        plan.string_edit(origin[0], origin[1], origin[2], b, path_rule)
    if not _add_action_body(cf, plan, {key: Code(choice.name.value)}):
        plan.flag(cf.call, "L04", "call", route)
        return
    plan.change("verb-segment", choice.part, "L04", v2[-1])
    values = ", ".join(choice.routes)
    plan.find(cf.call, "L04", "call", f"POST .../{{{choice.name.value}}} ({values}) -> {route.v2_label()} "
                                      f"{{{key!r}: {choice.name.value}}}", True, route)


def verb_segment(node: cst.CSTNode, text: str) -> cst.CSTNode:
    """`{verb}` in the f-string -> the fixed v2 segment (`action`)."""
    if not isinstance(node, cst.FormattedStringExpression):
        return node
    return cst.FormattedStringText(text)


def _drop_span(origin, plan) -> None:
    """Remove `/update` from the URL: a literal that is nothing else (`ITEM_URL + "/update"`) goes with its `+`."""
    node, start, end = origin
    value, _editable = literal_value(node) if isinstance(node, cst.SimpleString) else (None, False)
    binop = plan.facts.source.parent(node)
    if value is not None and (start, end) == (0, len(value)) and isinstance(binop, cst.BinaryOperation) \
            and isinstance(binop.operator, cst.Add) and binop.right is node:
        plan.string_edit(node, start, end, "", "L04")  # ties the literal to the call's family, like any span
        plan.change("drop-operand", binop, "L04")
        return
    plan.string_edit(node, start, end, "", "L04")


def drop_operand(node: cst.CSTNode, _data) -> cst.CSTNode:
    """`ITEM_URL + ""` -> `ITEM_URL` (the right operand was the removed `/update`)."""
    if not isinstance(node, cst.BinaryOperation):
        return node
    return node.left.with_changes(lpar=[*node.lpar, *node.left.lpar], rpar=[*node.left.rpar, *node.rpar])


def _method_edit(cf: CallFact, plan) -> bool:
    site, route = cf.site, cf.route
    new = route.v2_method
    node = site.method_node
    if isinstance(node, cst.Name) and node.value.upper() == site.method:
        plan.change("name", node, "L04", new.lower())
        return True
    if isinstance(node, cst.SimpleString):
        value, editable = literal_value(node)
        if value is None or not editable:
            return False
        plan.string_edit(node, 0, len(value), new.upper() if value.isupper() else new.lower(), "L04")
        return True
    if site.library == "helper" and isinstance(site.call.func, (cst.Attribute, cst.Name)):
        name_node = site.call.func.attr if isinstance(site.call.func, cst.Attribute) else site.call.func
        old = name_node.value
        low = old.lower()
        src = plan.facts.source
        for verb in (method.lower() for method in HTTP_METHODS):
            if verb in low:
                candidate = old.replace(verb, new.lower())
                if (fn := src.function(candidate)) is not None and src.is_helper(fn):
                    plan.change("name", name_node, "L04", candidate)
                    return True
                # a helper of another file: its sibling for the v2 method when it takes the same arguments on the
                # same base, a method of the same client (`rp.post` -> `rp.patch`), or a function imported beside
                # it (`from rpops import get, post` -> `get, patch, post`)
                mine = site.helper.sig if site.helper is not None else None
                if isinstance(site.call.func, cst.Attribute):
                    found = None
                    sig = src.sibling_method(site.call, candidate) if mine is not None else None
                else:
                    found = src.importable_helper(old, candidate) if mine is not None else None
                    sig = found[0] if found is not None else None
                if sig is not None and sig.method == new.upper() and sig.base == mine.base \
                        and sig.params == mine.params and sig.body_param == mine.body_param \
                        and sig.is_async == mine.is_async and sig.returns == mine.returns:
                    plan.change("name", name_node, "L04", candidate)
                    if found is not None:
                        plan.change("import-name", found[1], "L04", candidate)
                    return True
    return False


def import_name(node: cst.CSTNode, name: str) -> cst.CSTNode:
    """`from rpops import get, post` -> `from rpops import get, patch, post`: NAME in sorted place when the names are
    sorted (else last), once."""
    if not isinstance(node, cst.ImportFrom) or not isinstance(node.names, (list, tuple)):
        return node
    names = list(node.names)
    if any(alias.name.value == name and alias.asname is None for alias in names):
        return node
    spelled = [alias.name.value for alias in names]
    at = next((i for i, value in enumerate(spelled) if value > name), len(names)) if spelled == sorted(spelled) \
        else len(names)
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    new = cst.ImportAlias(cst.Name(name), comma=comma if at < len(names) else cst.MaybeSentinel.DEFAULT)
    if at == len(names):
        names[-1] = names[-1].with_changes(comma=comma)
    names.insert(at, new)
    return node.with_changes(names=names)


def _add_action_body(cf: CallFact, plan, body=None) -> bool:
    site, route = cf.site, cf.route
    if site.body_expr is not None or site.library == "urllib":
        return False
    kw = site.body_kw or "json"
    if site.library == "helper" and site.helper is not None:
        if site.helper.body_param:
            kw = None if _positional_fits(site, plan) else site.helper.body_param
        elif site.helper.kwargs_param:
            kw = "json"
        else:
            return False
    plan.change("add-kwarg", site.call, "L04", (kw, route.action_body if body is None else body))
    return True


def _positional_fits(site, plan) -> bool:
    """The body goes positionally when the helper's body parameter comes right after the arguments the call
    passes by position, the call passes nothing by keyword, and no other call of the helper in the module
    passes its body by keyword (the call then reads like its neighbours: `self.rest("PATCH", path, {...})`)."""
    helper, call = site.helper, site.call
    if any(a.keyword is not None or a.star for a in call.args):
        return False
    name = helper.fn.name.value
    for other in plan.facts.source.calls:
        func = other.func
        if (func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)) == name and any(
                a.keyword is not None and a.keyword.value == helper.body_param for a in other.args):
            return False
    params = list(helper.params)
    if params and params[0] in ("self", "cls") and isinstance(call.func, cst.Attribute):
        params = params[1:]
    fn_params = helper.fn.params
    positional_ok = {p.name.value for p in (*fn_params.posonly_params, *fn_params.params)}
    return helper.body_param in positional_ok and params.index(helper.body_param) == len(call.args)


def add_body(node: cst.CSTNode, data) -> cst.CSTNode:
    """Append `json={"action": "start"}` (or the helper's own body keyword; positional when KEYWORD is None)."""
    if not isinstance(node, cst.Call):
        return node
    keyword, body = data
    args = list(node.args)
    value = snippet_expression(render(body))
    arg = cst.Arg(value=value) if keyword is None else cst.Arg(
        keyword=cst.Name(keyword),
        value=value,
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )
    if args:
        last = args[-1]
        if last.comma is cst.MaybeSentinel.DEFAULT or not isinstance(last.comma, cst.Comma):
            args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            args.append(arg)
        else:  # trailing comma already there (often a multi-line call): keep its layout
            args.append(arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(""))))
    else:
        args.append(arg)
    return node.with_changes(args=args)


APPLIES = {"verb-segment": verb_segment, "drop-operand": drop_operand, "add-kwarg": add_body,
           "import-name": import_name}
