"""Python source for the JSON-like values the rewrite inserts (bodies, action payloads)."""
from __future__ import annotations

import json
from dataclasses import dataclass
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


@dataclass(frozen=True)
class When:
    """`then if test else otherwise`: a v2 value chosen by the truth of a value only known at run time (v1 read 0,
    "" and None as "not set", and the mapping builds another v2 value from them)."""

    test: str
    then: Any
    otherwise: Any


@dataclass(frozen=True)
class KeyIf:
    """A dict key sent only when TEST is true, `**({key: value} if test else {})`: v1's "not set" leaves the v2 key
    out."""

    key: str
    test: str


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
    if isinstance(value, When):
        then, otherwise = (render(v, quote=quote) for v in (value.then, value.otherwise))
        return " ".join((_nested(then, value.then), "if", value.test, "else", _nested(otherwise, value.otherwise)))
    if isinstance(value, dict):
        items = [_item(k, v, quote) for k, v in value.items()]
        if indent is not None and items:
            inner = level + indent
            return "{\n" + "".join(f"{inner}{item},\n" for item in items) + level + "}"
        return "{" + ", ".join(items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(render(v, quote=quote) for v in value) + "]"
    raise TypeError(f"cannot render {type(value).__name__}")


def _nested(code: str, value: Any) -> str:
    return f"({code})" if isinstance(value, When) else code


def _item(key: Any, value: Any, quote: str) -> str:
    if isinstance(key, Spread):
        return f"**{render(value, quote=quote)}"
    if isinstance(key, KeyIf):
        return f"**({{{render(key.key, quote=quote)}: {render(value, quote=quote)}}} if {key.test} else {{}})"
    return f"{render(key, quote=quote)}: {render(value, quote=quote)}"
