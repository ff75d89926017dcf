"""Python source for the JSON-like values the rewrite inserts (bodies, action payloads)."""
from __future__ import annotations

import json
from typing import Any


class Code:
    """A value that is already source code (an expression kept from the original)."""

    def __init__(self, code: str) -> None:
        self.code = code

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Code({self.code!r})"


class Spread:
    """A dict key whose value is unpacked into the dict (`**value`): a part of a body made when the code runs."""

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return "Spread()"


def _str(value: str, quote: str) -> str:
    text = json.dumps(value, ensure_ascii=False)
    if quote == "'":
        inner = text[1:-1].replace('\\"', '"').replace("'", "\\'")
        return f"'{inner}'"
    return text


def render(value: Any, *, quote: str = '"', indent: str | None = None, level: str = "") -> str:
    """Source for `value`; `indent` set: one top-level entry per line at level+indent."""
    if isinstance(value, Code):
        return value.code
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return _str(value, quote)
    if isinstance(value, dict):
        items = [f"**{render(v, quote=quote)}" if isinstance(k, Spread) else f"{render(k, quote=quote)}: {render(v, quote=quote)}"
                 for k, v in value.items()]
        if indent is not None and items:
            inner = level + indent
            return "{\n" + "".join(f"{inner}{item},\n" for item in items) + level + "}"
        return "{" + ", ".join(items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(render(v, quote=quote) for v in value) + "]"
    raise TypeError(f"cannot render {type(value).__name__}")
