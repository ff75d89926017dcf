"""L01 path-renames: v1 base addresses become the v2 base; renamed resource segments are respelled.

`https://rest.runpod.io/v1` -> `https://api.runpod.io/v2` (a base on another host
keeps its host and swaps `/v1` for `/v2`); `/endpoints` -> `/serverless`,
`/networkvolumes` -> `/network-volumes`, `/containerregistryauth` -> `/registries`.
The edit lands in the one literal that spells the text, wherever it is
(a constant, a default argument, a class attribute).
"""
from __future__ import annotations

from codemod.analysis import CallFact, UrlInfo
from codemod.analysis.syntax import span_origin
from codemod.rules import Rule

rule = Rule("L01", __name__, order=10)


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


@rule.call
def plan_call(cf: CallFact, plan) -> None:
    site, route = cf.site, cf.route
    if site.url.host_edit is not None and site.helper is None:
        host_edit(site.url, plan)
    if site.helper is not None and site.helper.base is not None and site.helper.base.kind == "v1":
        host_edit(site.helper.base, plan)
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


def plan_strings(plan) -> None:
    """A v1 address in a string no call was traced through (a base constant, a URL in a dict)."""
    kb = plan.kb
    for node, info, flat in plan.facts.v1_strings:
        host_edit(info, plan)
        path = flat[info.path_start:].split("?")[0]
        if path.strip("/"):
            routes = kb.match(path.rstrip("/"), None)
            targets = {(r.v2_segments, bool(r.action_body), r.v2_method == r.method) for r in routes}
            if len(targets) == 1 and routes[0].v2_segments is not None and not routes[0].action_body \
                    and len(routes[0].v2_segments) == len(routes[0].v1_segments):
                route = routes[0]
                segs = path.strip("/").split("/")
                pos = info.path_start + 1
                for i, (a, b) in enumerate(zip(route.v1_segments, route.v2_segments)):
                    if not a.startswith("{") and a != b:
                        o = span_origin(info.pieces, pos, pos + len(segs[i]))
                        if o is not None:
                            plan.string_edit(o[0], o[1], o[2], b, "Q01" if "Q01" in route.op.rules else "L01")
                    pos += len(segs[i]) + 1
        plan.find(node, "L01", "base-url", f"v1 base address -> {plan.an.v2_base}", True)


rule.plan_strings = plan_strings  # type: ignore[attr-defined]
