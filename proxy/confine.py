"""What the /v2 pass-through may forward: a v2 route of the current schema, or the mapping's allow-list.

The raw path is checked as sent, before anything is forwarded, for what can move it out of /v2: a dot segment,
an empty segment, a backslash, and the escapes of '/', '.', '\\', NUL and '%' itself (decoded twice, `%252e` is a
'.'); a '%' that starts no escape. Any other escape passes as sent: v2 ids may need them (a GPU type id holds spaces:
`/v2/catalog/gpus/NVIDIA%20A40`). Every path parameter is 1 to 128 path characters (RFC 3986 pchar, an escape
counting as one), not starting with '.'. Only then is it matched against the routes of v2.json plus
`conventions.passthrough_allow`. So `GET /v2/../admin`, `/v2/%2e%2e/admin` or `/v2/pods/..%2f..%2fadmin` never
reach the upstream host.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from mappings import Mappings, load_schema

# a path parameter as sent: RFC 3986 pchar (unreserved, sub-delims, ':', '@', and the escapes not refused below),
# 1 to 128 of them (an escape is one), not starting with '.'
_PCHAR = r"(?:[A-Za-z0-9_~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})"
_ID = rf"{_PCHAR}(?:{_PCHAR}|\.){{0,127}}"
# escapes that can move a path out of /v2, or change what the upstream reads: '/', '.', '\', NUL, and '%' itself
_REFUSED = {"2f": "'/'", "2e": "'.'", "5c": "backslash", "00": "NUL", "25": "'%' (a double encoding)"}
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})?")
_PARAM = re.compile(r"\\\{[A-Za-z_][A-Za-z0-9_]*\\\}")
_METHODS = ("get", "put", "post", "patch", "delete")


@dataclass(frozen=True)
class Refusal:
    """Why a pass-through request is not forwarded: the v2 problem's status and detail, and Allow on 405."""

    status: int
    detail: str
    allow: str | None = None


class PassThroughRoutes:
    """The v2 routes the pass-through forwards, compiled once from v2.json and the mapping."""

    def __init__(self, mappings: Mappings) -> None:
        allowed: dict[str, set[str]] = {}
        for path, item in load_schema("v2").get("paths", {}).items():
            methods = {m.upper() for m in item if m in _METHODS}
            if methods:
                allowed.setdefault(path, set()).update(methods)
        for path, methods in mappings.conventions.passthrough_allow.items():
            allowed.setdefault(path, set()).update(m.upper() for m in methods)
        prefix = mappings.conventions.v2_prefix + "/"
        self.prefix = prefix
        # literal paths first (/v2/registries/delegations before /v2/registries/{id} does not matter for
        # forwarding, but the Allow header of a 405 is the union of every template the path matches)
        self._routes = [
            (re.compile("^" + _PARAM.sub(_ID, re.escape(path)) + "$"), frozenset(methods))
            for path, methods in sorted(allowed.items())
            if path.startswith(prefix)
        ]

    def check(self, method: str, raw_path: str) -> Refusal | None:
        """None when `method raw_path` (query excluded) may be forwarded as sent; else why not."""
        path = raw_path.split("?", 1)[0]
        if "\\" in path:
            return Refusal(400, "the path may not contain a backslash")
        if "%" in path:
            for escape in _ESCAPE.finditer(path):
                code = escape.group(1)
                if code is None:
                    return Refusal(400, "the path may not contain a '%' that starts no escape (%XX)")
                refused = _REFUSED.get(code.lower())
                if refused is not None:
                    return Refusal(400, f"the path may not contain an encoded {refused} ({escape.group(0)})")
        if not path.startswith(self.prefix):
            return Refusal(400, f"the path must stay under {self.prefix}")
        segments = path[len(self.prefix):].split("/")
        if any(s in (".", "..") for s in segments):
            return Refusal(400, "the path may not contain dot segments ('.' or '..')")
        if any(s == "" for s in segments[:-1]) or path.endswith("/"):
            return Refusal(400, "the path may not contain empty segments or end with '/'")
        methods: set[str] = set()
        for pattern, allowed in self._routes:
            if pattern.match(path):
                methods |= allowed
        if not methods:
            return Refusal(404, f"no such v2 route: {path} is not a path of the v2 API")
        if method not in methods:
            allow = ", ".join(sorted(methods))
            return Refusal(405, f"method {method} is not allowed on {path}; allowed: {allow}", allow)
        return None
