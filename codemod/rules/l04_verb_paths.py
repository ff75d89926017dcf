"""L04: per-verb pod paths become POST .../action {action}; POST .../update becomes PATCH."""
from __future__ import annotations

import libcst as cst

from codemod.render import render


def rename(node: cst.CSTNode, new: str) -> cst.CSTNode:
    """session.post -> session.patch, _post -> _patch (a helper of the same module)."""
    return node.with_changes(value=new) if isinstance(node, cst.Name) else node


def add_body(node: cst.CSTNode, data) -> cst.CSTNode:
    """Append `json={"action": "start"}` (or the helper's own body keyword) to the call."""
    if not isinstance(node, cst.Call):
        return node
    keyword, body = data
    args = list(node.args)
    arg = cst.Arg(
        keyword=cst.Name(keyword),
        value=cst.parse_expression(render(body)),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )
    if args:
        last = args[-1]
        if last.comma is cst.MaybeSentinel.DEFAULT or not isinstance(last.comma, cst.Comma):
            args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            args.append(arg)
        else:
            # trailing comma already there (often a multi-line call): keep its layout
            ws = last.comma.whitespace_after
            args[-1] = last.with_changes(comma=last.comma.with_changes(whitespace_after=ws))
            args.append(arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(""))))
            if isinstance(ws, cst.ParenthesizedWhitespace):
                # put the new argument on its own line, like the others
                pass
    else:
        args.append(arg)
    return node.with_changes(args=args)
