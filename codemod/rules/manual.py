"""What cannot be rewritten safely gets one `# v1bridge: <RULE-ID> <remedy>` line above the statement."""
from __future__ import annotations

import libcst as cst

MARK = "# v1bridge:"


def has_comment(node: cst.CSTNode, text: str) -> bool:
    rule = text.split()[2] if len(text.split()) > 2 else text
    for line in getattr(node, "leading_lines", ()):
        if line.comment is not None and line.comment.value.startswith(f"{MARK} {rule}"):
            return True
    return False


def apply(node: cst.CSTNode, text: str) -> cst.CSTNode:
    if not hasattr(node, "leading_lines") or has_comment(node, text):
        return node
    line = cst.EmptyLine(indent=True, whitespace=cst.SimpleWhitespace(""), comment=cst.Comment(text))
    return node.with_changes(leading_lines=[*node.leading_lines, line])
