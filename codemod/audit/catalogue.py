"""The audit's view of the shared index (`mappings/index.py`): routes grouped by path, rules per route.

Hosts, v1 names, field -> rule, param -> rule and the path roots come from
`mappings.index.index()`, the same object the rewrite reads; this module only
adds the audit's grouping of operations by v1 path and its choice of the
primary rule of a call.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import urlsplit

from mappings import Mappings, default_mappings
from mappings.index import build as build_index, index
from mappings.models import Operation, Rule

CLASS_ORDER = {"removed": 0, "loud": 1, "quiet": 2}
PARAM = re.compile(r"\{[^}]*\}")


@dataclass(frozen=True)
class RouteInfo:
    """One v1 path template (all methods) and what it becomes on v2."""

    path: str
    segments: tuple[str, ...]  # "{}" for a path parameter
    operations: tuple[Operation, ...]
    v1_only: bool  # only v1 code writes this spelling: v2 has no such path, or v2 moved every one of its operations

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


def _v1_spelling(path: str, ops: list[Operation], v2_relative: set, v2_prefix: str) -> bool:
    """A path only v1 code writes: v2 has no such path (`/networkvolumes`, `/pods/{id}/stop`), or v2 serves every
    operation of it under another path, so the same words on v2 mean something else (`/billing/endpoints` is
    `/v2/billing/serverless`; `/v2/billing/endpoints` bills public endpoints). Only paths of the API's resources:
    a page such as `/docs` (no resource) is too common a word to mean v1 on its own."""
    if not all(getattr(op, "resource", None) for op in ops):
        return False
    segs = _segments(path)
    if segs not in v2_relative:
        return True
    moved = [op.v2 is not None and _segments(op.v2.path.removeprefix(v2_prefix)) != segs for op in ops]
    return bool(moved) and all(moved)


def _host(url: str) -> str:
    parts = urlsplit(url if "://" in url else f"https://{url}")
    return (parts.netloc + parts.path.rstrip("/")).lower()


def build(m: Mappings) -> Catalogue:
    conv = m.conventions
    by_path: dict[str, list[Operation]] = {}
    for op in m.operations:
        by_path.setdefault(op.v1.path, []).append(op)
    ix = index() if m is default_mappings() else build_index(m)
    v2_relative = set(ix.v2_relative)
    routes = [RouteInfo(path, _segments(path), tuple(ops), _v1_spelling(path, ops, v2_relative, conv.v2_prefix))
              for path, ops in by_path.items()]
    # Longer templates first so /pods/{podId}/stop wins over nothing shorter; all are exact-length anyway.
    routes.sort(key=lambda r: (-len(r.segments), r.path))

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
        field_rules=dict(ix.field_rules),
        param_rules=dict(ix.param_rules),
        distinctive=ix.v1_only_names,
        v1_hosts=tuple(_host(h) for h in conv.hosts.v1) + tuple(urlsplit(h).netloc.lower() for h in conv.hosts.v1),
        v2_hosts=tuple(urlsplit(h).netloc.lower() for h in conv.hosts.v2),
        runtime_hosts=tuple(urlsplit(h).netloc.lower() for h in conv.hosts.serverless_runtime),
        v1_prefix=conv.v1_prefix,
        v2_prefix=conv.v2_prefix,
        runtime_paths=runtime_paths,
        first_segments=ix.resources,
        base_url_rule=base_url_rule,
    )


@lru_cache(maxsize=1)
def catalogue() -> Catalogue:
    return build(default_mappings())


@lru_cache(maxsize=1)
def docs_url() -> str:
    """The docs site's root, from the package's `Documentation` URL (pyproject.toml [project.urls])."""
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        urls = metadata("v1bridge").get_all("Project-URL") or []
    except PackageNotFoundError:  # a source tree never installed
        urls = []
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() == "documentation":
            return url.strip().rstrip("/") + "/"
    return "https://v1bridge.readthedocs.io/en/latest/"


def rule_url(rule_id: str) -> str:
    """The rule's section of the generated rules page (docs/rules.md, built by MkDocs into rules/)."""
    return f"{docs_url()}rules/#{rule_id.lower()}"
