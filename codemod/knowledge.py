"""What the codemod needs from mappings/, indexed once per process.

Nothing here knows a path, a field or a host by itself: every fact is read
from `mappings.default_mappings()`. The codemod and the audit import this
module; the proxy never does.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from mappings import default_mappings
from mappings.loader import Mappings
from mappings.models import Operation

HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
HOLE = "\x00"


@dataclass(frozen=True)
class Host:
    """A base address split into host (scheme://netloc) and path prefix."""

    origin: str
    prefix: str

    @property
    def netloc(self) -> str:
        return urlsplit(self.origin).netloc


def _split_base(url: str) -> Host:
    parts = urlsplit(url)
    return Host(f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/"))


@dataclass(frozen=True)
class Route:
    """One v1 operation as segments, with the v2 segments they become."""

    op: Operation
    v1_segments: tuple[str, ...]
    v2_segments: tuple[str, ...] | None  # without the v2 prefix

    @property
    def method(self) -> str:
        return self.op.v1.method

    @property
    def v2_method(self) -> str | None:
        return self.op.v2.method if self.op.v2 else None

    @property
    def action_body(self) -> dict | None:
        return self.op.v2.body if self.op.v2 else None

    def label(self) -> str:
        return f"{self.op.v1.method} {self.op.v1.path}"

    def v2_label(self) -> str | None:
        return f"{self.op.v2.method} {self.op.v2.path}" if self.op.v2 else None


@dataclass
class Knowledge:
    mappings: Mappings
    v1_hosts: list[Host]
    v2_hosts: list[Host]
    runtime_netlocs: set[str]
    v1_prefix: str
    v2_prefix: str
    routes: list[Route]
    resources: set[str]  # first segments of v1 paths (pods, endpoints, ...)
    runtime_paths: set[str]
    error_keys: list[str]
    v2_error_key: str
    field_names: set[str] = field(default_factory=set)

    @property
    def default_v2_base(self) -> str:
        host = self.v2_hosts[0]
        return host.origin + (host.prefix or self.v2_prefix)

    def match(self, path: str, method: str | None) -> list[Route]:
        """Routes whose v1 template matches `path` (holes match a parameter segment)."""
        segments = tuple(path.strip("/").split("/")) if path.strip("/") else ()
        found = []
        for route in self.routes:
            if method is not None and route.method != method:
                continue
            if len(route.v1_segments) != len(segments):
                continue
            for tmpl, seg in zip(route.v1_segments, segments):
                if tmpl.startswith("{"):
                    if not seg or "?" in seg:
                        break
                elif tmpl != seg:
                    break
            else:
                found.append(route)
        return found

    def is_runtime_path(self, path: str) -> bool:
        """/v2/{endpoint_id}/run and friends: the serverless job API, never v1 nor the v2 control plane."""
        segments = path.strip("/").split("/")
        prefix = self.v2_prefix.strip("/")
        return len(segments) >= 3 and segments[0] == prefix and segments[2] in self.runtime_paths

    def list_key(self, route: Route) -> str | None:
        if route.op.shape in ("list", "billing") and route.op.resource:
            return self.mappings.conventions.list_keys.get(route.op.resource)
        return None


def _segments(path: str) -> tuple[str, ...]:
    return tuple(s for s in path.strip("/").split("/") if s)


@functools.cache
def knowledge() -> Knowledge:
    m = default_mappings()
    conv = m.conventions
    v2_prefix = conv.v2_prefix
    routes = []
    for op in m.operations:
        v2_segments = None
        if op.v2 is not None:
            segs = _segments(op.v2.path)
            if segs and "/" + segs[0] == v2_prefix:
                segs = segs[1:]
            v2_segments = segs
        routes.append(Route(op, _segments(op.v1.path), v2_segments))
    fields: set[str] = set()
    for request in m.requests.values():
        fields.update(request.fields)
    for response in m.responses.values():
        fields.update(response.fields)
    error_keys = list(conv.v1_error_keys_read)
    v2_error_key = getattr(conv, "v2_error_key", None) or "detail"
    return Knowledge(
        mappings=m,
        v1_hosts=[_split_base(h) for h in conv.hosts.v1],
        v2_hosts=[_split_base(h) for h in conv.hosts.v2],
        runtime_netlocs={urlsplit(h).netloc for h in conv.hosts.serverless_runtime},
        v1_prefix=conv.v1_prefix,
        v2_prefix=v2_prefix,
        routes=routes,
        resources={r.v1_segments[0] for r in routes if r.v1_segments},
        runtime_paths=set(conv.serverless_runtime_paths),
        error_keys=error_keys,
        v2_error_key=v2_error_key,
        field_names=fields,
    )


SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


def _v2_names(node: object, names: set[str]) -> set[str]:
    if isinstance(node, dict):
        props = node.get("properties")
        if isinstance(props, dict):
            names.update(props)
        for value in node.values():
            _v2_names(value, names)
    elif isinstance(node, list):
        for value in node:
            _v2_names(value, names)
    return names


@functools.cache
def handed_in_fields() -> dict[str, tuple[str, ...]]:
    """v1 response fields recognisable on any object: {name: rule ids}.

    A read of one of these names is v1 even when the detector cannot tell where
    the object came from (a parameter, an attribute): v2 has no field of that
    name and the name is a camelCase compound, so it is not a plain word.
    Built from the response maps and the rules' concerns of mappings/.
    """
    from mappings import load_schema

    m = default_mappings()
    rules: dict[str, list[str]] = {}
    for rule in m.rules.values():
        for name in rule.concerns.fields:
            rules.setdefault(name, []).append(rule.id)
    for response in m.responses.values():
        for name, spec in response.fields.items():
            if spec.source == name and spec.rule is None:
                continue
            found = rules.setdefault(name, [])
            rule = spec.rule or "L02"
            if rule not in found and not found:
                found.append(rule)
    v2 = _v2_names(load_schema("v2"), set())
    return {
        name: tuple(ids)
        for name, ids in sorted(rules.items())
        if ids and name not in v2 and any(c.isupper() for c in name[1:])
    }
