"""The audit's view of `mappings/`: routes, hosts, fields and params indexed by rule.

Nothing here is a v1/v2 fact of its own: every list is derived from the
mapping data (operations, rules, requests, responses, queries, conventions)
and the v2 schema, so adding a field to the mapping makes the audit see it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import urlsplit

from mappings import Mappings, default_mappings, load_schema
from mappings.models import Operation, Rule

CLASS_ORDER = {"removed": 0, "loud": 1, "quiet": 2}
SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2}
PARAM = re.compile(r"\{[^}]*\}")


@dataclass(frozen=True)
class RouteInfo:
    """One v1 path template (all methods) and what it becomes on v2."""

    path: str
    segments: tuple[str, ...]  # "{}" for a path parameter
    operations: tuple[Operation, ...]
    v1_only: bool  # the path (without /v2) is not a v2 path: only v1 code writes it

    def methods(self) -> list[str]:
        return sorted({op.v1.method for op in self.operations})

    def operation(self, method: str | None) -> Operation | None:
        if method is None:
            return self.operations[0] if len(self.operations) == 1 else None
        for op in self.operations:
            if op.v1.method == method.upper():
                return op
        return None


@dataclass
class Catalogue:
    mappings: Mappings
    rules: dict[str, Rule]
    routes: list[RouteInfo]
    v2_relative: set[tuple[str, ...]]  # v2 paths without the /v2 prefix, params as "{}"
    field_rules: dict[str, tuple[str, ...]]
    param_rules: dict[str, tuple[str, ...]]
    distinctive: frozenset[str]  # v1 names that cannot be read as v2 code or plain words
    v1_hosts: tuple[str, ...]  # host[/prefix] strings that mean v1 (scheme stripped)
    v2_hosts: tuple[str, ...]
    runtime_hosts: tuple[str, ...]
    v1_prefix: str
    v2_prefix: str
    runtime_paths: frozenset[str]
    first_segments: frozenset[str]
    base_url_rule: str | None  # the loud rule for "this base URL is v1"
    _route_rules: dict[tuple[str, str | None], tuple[str, ...]] = field(default_factory=dict)

    # ------------------------------------------------------------------ routes

    def match_route(self, segments: tuple[str, ...]) -> RouteInfo | None:
        """The v1 route whose template matches these path segments ("{}" = unknown value)."""
        for route in self.routes:
            if len(route.segments) != len(segments):
                continue
            if all(t == "{}" or s == t for t, s in zip(route.segments, segments)):
                return route
        return None

    def is_v2_relative(self, segments: tuple[str, ...]) -> bool:
        for cand in self.v2_relative:
            if len(cand) == len(segments) and all(c == "{}" or c == s for c, s in zip(cand, segments)):
                return True
        return False

    def route_rules(self, route: RouteInfo, method: str | None) -> tuple[str, ...]:
        """Rule IDs a call to ROUTE (METHOD, or any method when None) is concerned by, primary first.

        Rules naming the exact path and listed by the operation(s); when none of
        them is loud or removed, the loud rule naming the path's resource prefix
        (the path itself still changes on v2).
        """
        key = (route.path, method)
        if key in self._route_rules:
            return self._route_rules[key]
        ops = [op for op in route.operations if method is None or op.v1.method == method]
        if not ops:
            ops = list(route.operations)
        common = set(ops[0].rules)
        for op in ops[1:]:
            common &= set(op.rules)
        exact = [r for r in self.rules.values() if route.path in r.concerns.paths and r.id in common]
        if not any(r.rule_class in ("loud", "removed") for r in exact):
            prefixed = [
                r for r in self.rules.values()
                if r.rule_class == "loud"
                and any(route.path == p or route.path.startswith(p.rstrip("/") + "/") for p in r.concerns.paths)
            ]
            prefixed.sort(key=lambda r: (r.id not in common, list(self.rules).index(r.id)))
            if prefixed and ops[0].v2 is not None:
                exact.insert(0, prefixed[0])
        exact.sort(key=lambda r: CLASS_ORDER[r.rule_class])
        ids = tuple(dict.fromkeys(r.id for r in exact))
        self._route_rules[key] = ids
        return ids

    def v2_target(self, route: RouteInfo, method: str | None) -> str:
        op = route.operation(method)
        if op is None:
            targets = {f"{o.v2.path}" for o in route.operations if o.v2}
            return " | ".join(sorted(targets))
        if op.v2 is None:
            return "no v2 equivalent"
        body = ""
        if op.v2.body:
            body = " " + ", ".join(f"{{{k}: {v}}}" for k, v in op.v2.body.items())
        return f"{op.v2.method} {op.v2.path}{body}"

    # ------------------------------------------------------------------ hosts

    def host_kind(self, text: str) -> str | None:
        """'v1', 'v2' or 'runtime' for a string holding one of the configured hosts."""
        low = text.lower()
        for kind, hosts in (("v1", self.v1_hosts), ("runtime", self.runtime_hosts), ("v2", self.v2_hosts)):
            if any(h in low for h in hosts):
                return kind
        return None


def _segments(path: str) -> tuple[str, ...]:
    return tuple("{}" if PARAM.fullmatch(s) else s for s in path.strip("/").split("/") if s)


def _schema_paths() -> list[str]:
    try:
        return list(load_schema("v2").get("paths", {}))
    except Exception:  # pragma: no cover - the schema ships with mappings
        return []


def _v2_property_names() -> set[str]:
    names: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict):
                names.update(props)
            for param in node.get("parameters", []) if isinstance(node.get("parameters"), list) else []:
                if isinstance(param, dict) and "name" in param:
                    names.add(param["name"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    try:
        walk(load_schema("v2"))
    except Exception:  # pragma: no cover
        pass
    return names


def _host(url: str) -> str:
    parts = urlsplit(url if "://" in url else f"https://{url}")
    return (parts.netloc + parts.path.rstrip("/")).lower()


def build(m: Mappings) -> Catalogue:
    conv = m.conventions
    by_path: dict[str, list[Operation]] = {}
    for op in m.operations:
        by_path.setdefault(op.v1.path, []).append(op)
    v2_prefix = conv.v2_prefix.strip("/")
    v2_relative: set[tuple[str, ...]] = set()
    for p in _schema_paths() + [op.v2.path for op in m.operations if op.v2]:
        segs = _segments(p)
        if segs and segs[0] == v2_prefix:
            v2_relative.add(segs[1:])
    routes = [
        RouteInfo(path, _segments(path), tuple(ops), _segments(path) not in v2_relative)
        for path, ops in by_path.items()
    ]
    # Longer templates first so /pods/{podId}/stop wins over nothing shorter; all are exact-length anyway.
    routes.sort(key=lambda r: (-len(r.segments), r.path))

    field_rules: dict[str, list[str]] = {}
    param_rules: dict[str, list[str]] = {}
    for rule in m.rules.values():
        for name in rule.concerns.fields:
            field_rules.setdefault(name, []).append(rule.id)
        for name in rule.concerns.params:
            param_rules.setdefault(name, []).append(rule.id)
    for rmap in m.requests.values():
        for name, spec in rmap.fields.items():
            if spec.rule and spec.rule not in field_rules.get(name, []) and name in field_rules:
                field_rules[name].append(spec.rule)
    for qmap in m.queries.values():
        for name, spec in qmap.params.items():
            if spec.rule and name in param_rules and spec.rule not in param_rules[name]:
                param_rules[name].append(spec.rule)
    for neutral, brand in conv.neutral_spellings.items():
        for index in (field_rules, param_rules):
            if brand in index and neutral not in index:
                index[neutral] = list(index[brand])

    v2_names = _v2_property_names()
    # A v1 name is distinctive when v2 has no such name and it is a compound
    # (camelCase) word: `desiredStatus` is v1 wherever it appears as a key;
    # `message`, `time` or `ports` are not evidence on their own.
    distinctive = frozenset(
        n for n in set(field_rules) | set(param_rules) if n not in v2_names and any(c.isupper() for c in n[1:])
    )
    runtime_paths = frozenset(conv.serverless_runtime_paths)
    # The rule for a v1 base URL: the loud rule that names the most resource roots.
    roots = {"/" + r.segments[0] for r in routes if r.segments}
    loud = [r for r in m.rules.values() if r.rule_class == "loud"]
    loud.sort(key=lambda r: -len(roots & set(r.concerns.paths)))
    base_url_rule = loud[0].id if loud and roots & set(loud[0].concerns.paths) else None
    return Catalogue(
        mappings=m,
        rules=dict(m.rules),
        routes=routes,
        v2_relative=v2_relative,
        field_rules={k: tuple(v) for k, v in field_rules.items()},
        param_rules={k: tuple(v) for k, v in param_rules.items()},
        distinctive=distinctive,
        v1_hosts=tuple(_host(h) for h in conv.hosts.v1) + tuple(urlsplit(h).netloc.lower() for h in conv.hosts.v1),
        v2_hosts=tuple(urlsplit(h).netloc.lower() for h in conv.hosts.v2),
        runtime_hosts=tuple(urlsplit(h).netloc.lower() for h in conv.hosts.serverless_runtime),
        v1_prefix=conv.v1_prefix,
        v2_prefix=conv.v2_prefix,
        runtime_paths=runtime_paths,
        first_segments=frozenset(r.segments[0] for r in routes if r.segments),
        base_url_rule=base_url_rule,
    )


@lru_cache(maxsize=1)
def catalogue() -> Catalogue:
    return build(default_mappings())
