"""R01 pod-reset: v2 has no reset; the call becomes the compat module's stop, wait for EXITED, start.

An operation v2 serves as several calls (`steps` in mappings/data/operations.yaml) is kept by the function its
policy names (`compat` in mappings/data/policies.yaml: `reset_pod`), called with the client's own send and the
record's id in place of the call: `_post(f"/pods/{pod_id}/reset")` becomes
`v1bridge_compat.reset_pod(v1bridge_compat.by_method(get=_get, post=_post), pod_id)`. No v1 path is left on the
line, and every step goes through the client's own helper (its auth, timeouts, retries). Planned for a call through
a helper whose paths the compat module can spell (relative to its base, with a leading slash or a helper that
strips it); otherwise the call keeps the removed rule's flag (and goes through the run-time translation).
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from codemod import compat_call
from codemod.analysis.facts import CallFact
from codemod.analysis.syntax import str_of
from codemod.rules.l01_path_renames import host_edit


@dataclass(frozen=True)
class Steps:
    """`v1bridge_compat.<fn>(<send>, <id>)`: the operation's v2 steps made through the client's own send."""

    fn: str
    send: str
    ident: str


def plan_call(cf: CallFact, plan) -> None:
    route, site, src = cf.route, cf.site, plan.facts.source
    if route.op.v2 is not None or not route.op.steps:
        return
    policy = plan.kb.mappings.policies.get(route.op.emulation or "")
    fn = policy.compat if policy is not None else None
    send = src.client_send(site) if site.library == "helper" and site.helper is not None else None
    if send is not None and f"{compat_call.MODULE_NAME}.by_method(" in send and "get=" not in send:
        send = None  # per-verb helpers with no GET: the wait between the steps reads the record
    ids = compat_call.record_id(src, site)
    if fn is None or send is None or ids is None or not _slash_ok(site):
        plan.flag(cf.call, "R01", "call", route)
        return
    if not _base_moves(site, plan):
        plan.flag(cf.call, "R01", "call", route)
        return
    fn = ("a" + fn) if site.is_async else fn
    plan.change("compat-steps", cf.call, "R01", Steps(fn, send, ids["id"]))
    plan.change("compat-import", src.module, "compat", plan.compat_import)
    label = " then ".join(step.rpartition(".")[2] for step in route.op.steps)
    settle = route.op.settle
    made = f"v2 {label}" + (f", waiting for {settle.field} {settle.value} between them" if settle else "")
    plan.find(cf.call, "R01", "call", f"{made}, through v1bridge_compat.{fn} and the client's own helper", True,
              route)
    plan.scratch.setdefault("compat-created", {})[plan.unit] = (
        f"v2 has no {route.label()}: v1bridge_compat.{fn} makes it of {made}")


def _base_moves(site, plan) -> bool:
    """The v1 base the helper joins the path to becomes the v2 base (the steps go there); False when it is not
    one literal the rewrite can change."""
    if site.url.host_edit is not None:
        return host_edit(site.url, plan)
    return site.base is not None and site.base.kind == "v1" and host_edit(site.base, plan)


def _slash_ok(site) -> bool:
    """The compat module sends paths with a leading slash: the call writes one too, or a helper on the way strips
    it before joining (`f"{base}/{path.lstrip('/')}"`)."""
    text = _head(site.url_expr)
    if text is not None and text.startswith("/"):
        return True
    helper = site.helper
    while helper is not None:
        if helper.slash_join:
            return True
        helper = helper.inner.helper if helper.inner is not None else None
    return False


def _head(node) -> str | None:
    """The literal text the path argument starts with (`f"/pods/{id}/reset"`, `"/pods/" + id + ...`)."""
    if isinstance(node, cst.FormattedString):
        first = node.parts[0] if node.parts else None
        return first.value if isinstance(first, cst.FormattedStringText) else None
    if isinstance(node, cst.BinaryOperation):
        return _head(node.left)
    return str_of(node)


def apply_steps(node: cst.CSTNode, steps: Steps) -> cst.CSTNode:
    """The call replaced by `v1bridge_compat.<fn>(<send>, <id>)` (an `await` around it stays)."""
    if not isinstance(node, cst.Call):
        return node
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return cst.Call(func=cst.Attribute(cst.Name(compat_call.MODULE_NAME), cst.Name(steps.fn)),
                    args=[cst.Arg(cst.parse_expression(steps.send), comma=comma),
                          cst.Arg(cst.parse_expression(steps.ident))], lpar=node.lpar, rpar=node.rpar)


APPLIES = {"compat-steps": apply_steps}
