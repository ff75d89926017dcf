"""L01 path-renames: v1 base addresses become the v2 base; renamed resource segments are respelled.

`https://rest.runpod.io/v1` -> `https://api.runpod.io/v2` (a base on another host
keeps its host and swaps `/v1` for `/v2`); `/endpoints` -> `/serverless`,
`/networkvolumes` -> `/network-volumes`, `/containerregistryauth` -> `/registries`.
The edit lands in the one literal that spells the text, wherever it is
(a constant, a default argument, a class attribute).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from codemod.analysis.facts import CallFact
from codemod.analysis.syntax import span_origin

if TYPE_CHECKING:  # pragma: no cover
    from codemod.analysis.facts import UrlInfo


def host_edit(info: UrlInfo, plan, rule_id: str = "L01") -> bool:
    if info.host_edit is None:
        return False
    a, b, repl = info.host_edit
    origin = span_origin(info.pieces, a, b)
    if origin is None:
        return False
    node, s, e = origin
    plan.string_edit(node, s, e, repl, rule_id)
    return True


def segment_offsets(info: UrlInfo, path: str) -> list[tuple[int, int]]:
    """Flat-text offsets of each segment of the v1 path of a call."""
    offsets = []
    pos = info.path_start + (1 if path.startswith("/") else 0)
    for seg in path.strip("/").split("/"):
        offsets.append((pos, pos + len(seg)))
        pos += len(seg) + 1
    return offsets


def rename_segments(cf: CallFact, plan, rule_id: str, count: int | None = None) -> bool | None:
    """Respell the first `count` renamed segments; True if one changed, None if a segment has no literal."""
    info, route = cf.site.url, cf.route
    offsets = segment_offsets(info, cf.path)
    changed = False
    pairs = list(zip(route.v1_segments, route.v2_segments or ()))[:count]
    for i, (a, b) in enumerate(pairs):
        if a.startswith("{") or a == b:
            continue
        origin = span_origin(info.pieces, *offsets[i])
        if origin is None:
            return None
        plan.string_edit(origin[0], origin[1], origin[2], b, rule_id)
        changed = True
    return changed


def owns_path(cf: CallFact) -> bool:
    """L01 plans the path of a call unless L04 (verb paths) or Q01 (billing) does."""
    route = cf.route
    v1s, v2 = route.v1_segments, route.v2_segments or ()
    return not route.action_body and len(v1s) == len(v2) and "Q01" not in route.op.rules and "L04" not in route.op.rules


def plan_call(cf: CallFact, plan) -> None:
    site, route = cf.site, cf.route
    based = False
    if site.url.host_edit is not None:
        based = host_edit(site.url, plan)
    elif site.base is not None and site.base.kind == "v1" and site.base.host_edit is not None:
        based = host_edit(site.base, plan)
    if not based:
        # the v1 base is not spelled in one literal the rewrite can change (or it was never traced to this
        # service's host): changing the path alone would send a v2 path to a v1 base
        plan.flag(cf.call, "L01", "call", route,
                  "the v1 base address of this call is not traced to one literal; migrate base and path by hand ("
                  + plan.rule_text("L01") + ")")
        return
    if len(route.v2_segments) not in (len(route.v1_segments), len(route.v1_segments) - 1):
        plan.flag(cf.call, "L04" if "L04" in route.op.rules else "L01", "call", route)
        return
    if not owns_path(cf):
        return
    changed = rename_segments(cf, plan, "L01")
    if changed is None:
        plan.flag(cf.call, "L01", "call", route)
        return
    label = f"{route.label()} -> {route.v2_label()}"
    if changed or site.url.host_edit is not None or (site.helper and site.helper.base and site.helper.base.host_edit):
        plan.find(cf.call, "L01", "call", label, True, route)
    else:
        plan.find(cf.call, route.op.rules[0] if route.op.rules else "L01", "call", label, True, route)


def plan_file(plan) -> None:
    """A string spelling a v1 address: reported where it is. It changes only with the calls traced through it
    (a constant no traced call uses is left as it is: it may serve code the rewrite cannot see)."""
    used: dict[int, int] = {}
    # calls of this service's v1 whose route is only known at run time count too (units after the calls, as in
    # codemod.decide): their base moves with them when they go through the run-time translation
    sites = [cf.site for cf in plan.facts.calls] + [site for site, _path, _candidates in plan.facts.unmatched]
    for i, site in enumerate(sites):
        for info in (site.url, site.base):
            for piece in info.pieces if info is not None else ():
                if piece.node is not None:
                    used.setdefault(id(piece.node), i)
    for node, info, flat in plan.facts.v1_strings:
        shared = plan.facts.source.shared_constant(node)
        if shared is not None and shared.state in ("go", "stay"):
            continue  # a constant other files import: decided with them (codemod.decide._cross_file)
        unit = next((used[id(p.node)] for p in info.pieces if p.node is not None and id(p.node) in used), None)
        if unit is not None:
            plan.find(node, "L01", "base-url", f"v1 base address -> {plan.facts.source.v2_base}", True, unit=unit)
        elif not plan.facts.source.is_ours(flat):
            continue  # a /v1 base on another host no v1 call goes through: not provably this service's
        elif _is_used(plan.facts.source, node):
            # read somewhere the analysis cannot follow to a call: the calls it serves stay v1, and say so
            plan.flag(node, "L01", "base-url", None, "v1 base address used where the rewrite cannot follow it to "
                      "a call; migrate it with its calls by hand (" + plan.rule_text("L01") + ")")
        else:
            plan.find(node, "L01", "base-url", "v1 base address that no code reads; left as it is ("
                      + plan.rule_text("L01") + ")", False)


def _is_used(src, node) -> bool:
    """Is the variable this string is assigned to (or the parameter it defaults) read anywhere?"""
    import libcst as cst

    cur = src.parent(node)
    while cur is not None and not isinstance(cur, (cst.Assign, cst.AnnAssign, cst.Param, cst.BaseStatement)):
        cur = src.parent(cur)
    if isinstance(cur, cst.Assign) and len(cur.targets) == 1:
        target = cur.targets[0].target
    elif isinstance(cur, cst.AnnAssign):
        target = cur.target
    elif isinstance(cur, cst.Param):
        target = cur.name
    else:
        return True  # a URL in an expression (a call argument, a dict): in use where it stands
    if not isinstance(target, (cst.Name, cst.Attribute)):
        return True
    name = target.attr.value if isinstance(target, cst.Attribute) else target.value
    return any(r is not target for r in src.references(target)) or bool(src.attribute_uses(name))
