"""L02 / Q13 / Q14 / Q25 / Q29 key renames, nested reads, and request bodies in the v2 shape."""
from __future__ import annotations

import libcst as cst


def rename_key(node: cst.CSTNode, new: str) -> cst.CSTNode:
    """"desiredStatus" -> "status", "message" -> "detail": same quotes and prefix."""
    if not isinstance(node, cst.SimpleString):
        return node
    prefix, quote = node.prefix, node.quote
    return node.with_changes(value=f"{prefix}{quote}{new}{quote}")


def _key(node: cst.SimpleString | None, text: str) -> cst.SimpleString:
    quote = node.quote if node is not None and len(node.quote) == 1 else '"'
    return cst.SimpleString(f"{quote}{text}{quote}")


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
                args = [cst.Arg(_key(key_node, part), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), cst.Arg(cst.Dict([]))]
            elif rest:
                args = [cst.Arg(_key(key_node, part), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), *rest]
            expr = cst.Call(func=cst.Attribute(value=expr, attr=cst.Name("get")), args=args)
        return expr
    return node


def replace_body(node: cst.CSTNode, code: str) -> cst.CSTNode:
    """A v1 request dict replaced by its v2 form (rendered by codemod.bodies)."""
    new = cst.parse_expression(code)
    return new.with_changes(lpar=getattr(node, "lpar", ()), rpar=getattr(node, "rpar", ()))
