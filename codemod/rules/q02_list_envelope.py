"""Q02 / Q25: a v1 list (a bare array) is `{<key>: [...]}` in v2; read `[<key>]` where the JSON is parsed."""
from __future__ import annotations

import libcst as cst


def apply(node: cst.CSTNode, key: str) -> cst.CSTNode:
    value = node
    if isinstance(node, cst.Await) and not node.lpar:
        value = node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Subscript(
        value=value,  # type: ignore[arg-type]
        slice=[cst.SubscriptElement(slice=cst.Index(value=cst.SimpleString(f'"{key}"')))],
    )
