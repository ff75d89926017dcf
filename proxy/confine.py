"""What the /v2 pass-through may forward: a v2 route of the current schema, or the mapping's allow-list.

The raw path is checked as sent, before anything is forwarded: no dot segment,
no empty segment, no backslash, no percent-encoded byte (a v2 id never needs
one; an encoded '.' or '/' is how a path climbs out of /v2), and every path
parameter a safe id. Only then is it matched against the routes of v2.json
plus `conventions.passthrough_allow`. So `GET /v2/../admin`,
`/v2/%2e%2e/admin` or `/v2/pods/../../admin` never reach the upstream host.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from mappings import Mappings, load_schema

# the same id rule the v1 routes apply (proxy/v1.py): 1-128 safe characters, not starting with '.'
_ID = r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}"
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
        if "%" in path or "\\" in path:
            return Refusal(400, "the path may not contain percent-encoded characters or backslashes")
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
