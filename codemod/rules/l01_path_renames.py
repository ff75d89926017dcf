"""L01 / Q01 / L04 path text: base addresses, renamed segments, dropped `/update`.

Edits are (start, end, text) spans of the literal's *value*; the detector only
plans them on literals whose source text equals their value (no escapes), so
the same offsets hold in the source and quotes and prefixes stay as written.
"""
from __future__ import annotations

import libcst as cst


def _splice(value: str, spans) -> str:
    for start, end, text, _rule in sorted(spans, reverse=True):
        value = value[:start] + text + value[end:]
    return value


def apply(node: cst.CSTNode, spans) -> cst.CSTNode:
    if isinstance(node, cst.SimpleString):
        prefix, quote = node.prefix, node.quote
        inner = node.value[len(prefix) + len(quote): len(node.value) - len(quote)]
        return node.with_changes(value=prefix + quote + _splice(inner, spans) + quote)
    if isinstance(node, cst.FormattedStringText):
        return node.with_changes(value=_splice(node.value, spans))
    return node
