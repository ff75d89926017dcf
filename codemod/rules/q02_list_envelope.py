"""Q02 list-envelope: a v1 list (a bare array) is `{<key>: [...]}` on v2; read `[<key>]` where the JSON is parsed.

The key comes from `list_keys` in mappings/data/conventions.yaml (pods,
endpoints, templates, networkVolumes, registries). The unwrap goes where the
answer is parsed, so everything downstream (loops, comprehensions,
`isinstance(x, list)` checks, the client's own `list_pods()`) keeps working.
"""
from __future__ import annotations

import libcst as cst

from codemod.analysis.facts import CallFact, Read


def plan_unwrap(read: Read, cf: CallFact, plan, rule_id: str) -> None:
    if plan.kb.page_limit(read.route):  # a paginated v2 list: every page is read (Q30), unwrapped page by page
        from codemod.rules.q30_list_pagination import plan_pages

        plan_pages(read, cf, plan)
        return
    parent = plan.facts.source.parent(read.node)
    if isinstance(parent, cst.BooleanOperation) and isinstance(parent.operator, cst.Or) and parent.left is read.node:
        # `answer or []` tolerates no answer (None): `(answer or {}).get(key, [])` keeps tolerating it
        plan.change("subscript", parent, rule_id, (read.key, "or"))
    else:
        plan.change("subscript", read.node, rule_id, read.key)
    plan.find(read.node, rule_id, "list-read", f"v2 wraps the list: read [{read.key!r}]", True, read.route)


def plan_read(read: Read, cf: CallFact, plan, rule_id: str) -> None:
    plan_unwrap(read, cf, plan, rule_id)


def apply(node: cst.CSTNode, key) -> cst.CSTNode:
    if isinstance(key, tuple) and isinstance(node, cst.BooleanOperation):
        key, _or = key
        left = node.left.with_changes(lpar=[], rpar=[]) if getattr(node.left, "lpar", None) else node.left
        held = cst.BooleanOperation(left=left, operator=node.operator, right=cst.Dict([]),
                                    lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return cst.Call(func=cst.Attribute(value=held, attr=cst.Name("get")),
                        args=[cst.Arg(cst.SimpleString(f'"{key}"')), cst.Arg(node.right)],
                        lpar=node.lpar, rpar=node.rpar)
    value = node
    if isinstance(node, cst.Await) and not node.lpar:
        value = node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Subscript(
        value=value,  # type: ignore[arg-type]
        slice=[cst.SubscriptElement(slice=cst.Index(value=cst.SimpleString(f'"{key}"')))],
    )


APPLIES = {"subscript": apply}
