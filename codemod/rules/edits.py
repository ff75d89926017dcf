"""Edit primitives every rule uses: spans of a string literal, a renamed key, a dropped statement or dict
element, a rule comment.

Rule modules plan with these (through `codemod.changes.Plan`) and own the
appliers of the edit kinds only they make (an action body, a list envelope,
a nested read, a converted body).
"""
from __future__ import annotations

import re

import libcst as cst

from codemod.changes import MARK, NOTE
_LINE_REF = re.compile(r"(?:\s(?:at|on))?\s?\bline \d+(?::\s)?")


def _splice(value: str, spans) -> str:
    for start, end, text, _rule in sorted(spans, reverse=True):
        value = value[:start] + text + value[end:]
    return value


def apply_string(node: cst.CSTNode, spans) -> cst.CSTNode:
    """(start, end, text) spans of a literal's value; planned only where source offsets equal value offsets."""
    if isinstance(node, cst.SimpleString):
        prefix, quote = node.prefix, node.quote
        inner = node.value[len(prefix) + len(quote): len(node.value) - len(quote)]
        return node.with_changes(value=prefix + quote + _splice(inner, spans) + quote)
    if isinstance(node, cst.FormattedStringText):
        return node.with_changes(value=_splice(node.value, spans))
    return node


def apply_key(node: cst.CSTNode, new: str) -> cst.CSTNode:
    """"desiredStatus" -> "status", "message" -> "detail": same quotes and prefix; a keyword that is a query
    parameter (`get("/billing/endpoints", endpointId=x)`) by its new name."""
    if isinstance(node, cst.Name):
        return node.with_changes(value=new)
    if not isinstance(node, cst.SimpleString):
        return node
    prefix, quote = node.prefix, node.quote
    return node.with_changes(value=f"{prefix}{quote}{new}{quote}")


def apply_name(node: cst.CSTNode, new: str) -> cst.CSTNode:
    """session.post -> session.patch, _post -> _patch (a helper of the same module)."""
    return node.with_changes(value=new) if isinstance(node, cst.Name) else node


def drop_statement(node: cst.CSTNode, data) -> cst.CSTNode | cst.RemovalSentinel:
    """A statement v2 has no use for goes (`payload["volumeInGb"] = 0`, `params["grouping"] = "podId"`, an `if`
    whose every statement went); planned with "pass" when it is the only statement of its block (the block must
    keep one)."""
    if isinstance(node, cst.If) and data != "pass":
        return cst.RemovalSentinel.REMOVE
    if not isinstance(node, cst.SimpleStatementLine):
        return node
    if data == "pass":
        return node.with_changes(body=[cst.Pass()], trailing_whitespace=cst.TrailingWhitespace())
    return cst.RemovalSentinel.REMOVE


def drop_data(src, stmt: cst.CSTNode) -> str | None:
    """The data of a `drop-statement` edit: "pass" when STMT is the only statement of its block."""
    block = src.parent(stmt)
    return "pass" if isinstance(block, cst.IndentedBlock) and len(block.body) == 1 else None


def drop_element(node: cst.CSTNode, key: str) -> cst.CSTNode:
    """The element of a dict literal whose literal key is KEY goes; the comma style of the others is kept (a
    trailing comma stays trailing)."""
    if not isinstance(node, cst.Dict):
        return node
    elements = list(node.elements)
    at = next((i for i, el in enumerate(elements) if isinstance(el, cst.DictElement)
               and isinstance(el.key, cst.SimpleString) and el.key.evaluated_value == key), None)
    if at is None:
        return node
    gone = elements.pop(at)
    if at == len(elements) and elements:
        elements[-1] = elements[-1].with_changes(comma=gone.comma)
    return node.with_changes(elements=elements)


def has_comment(node: cst.CSTNode, text: str) -> bool:
    parts = text.split()
    rule = parts[2] if len(parts) > 2 else text
    for line in getattr(node, "leading_lines", ()):
        if line.comment is not None and (line.comment.value + " ").startswith(f"{MARK} {rule} "):
            return True
    return False


def comment_text(rule: str, cause: str | None, remedy: str) -> str:
    """`# v1bridge: RULE <cause>: <remedy>` on one line (the cause alone when it already gives the remedy)."""
    # line numbers shift as comments go in: the comment names none (the summary does)
    if cause == NOTE:
        return f"{MARK} {rule} {NOTE} {remedy}".rstrip()
    cause = _LINE_REF.sub("", " ".join((cause or "").split()))
    if not cause or cause == remedy:
        body = remedy
    elif remedy and remedy in cause:
        body = cause
    else:
        body = f"{cause}: {remedy}" if remedy else cause
    return f"{MARK} {rule} {body}".rstrip()


def build_comment(change, plan):
    """A flag's comment: `# v1bridge: RULE <cause>: <remedy>` (the remedy from mappings/data/rules.yaml)."""
    from codemod.changes import Edit

    rule, cause = change.data
    return Edit("comment", change.node, rule, comment_text(rule, cause, plan.rule_text(rule)))


def apply_comment(node: cst.CSTNode, text: str) -> cst.CSTNode:
    if not hasattr(node, "leading_lines") or has_comment(node, text):
        return node
    line = cst.EmptyLine(indent=True, whitespace=cst.SimpleWhitespace(""), comment=cst.Comment(text))
    return node.with_changes(leading_lines=[*node.leading_lines, line])


def apply_uncomment(node: cst.CSTNode, _data) -> cst.CSTNode:
    """Every `# v1bridge:` line above the statement goes (the comments this run plans are added after)."""
    lines = getattr(node, "leading_lines", None)
    if not lines:
        return node
    kept = [line for line in lines if line.comment is None or not line.comment.value.startswith(MARK)
            or line.comment.value.split(" ", 3)[3:4] and line.comment.value.split(" ", 3)[3].startswith(NOTE)]
    return node if len(kept) == len(lines) else node.with_changes(leading_lines=kept)
