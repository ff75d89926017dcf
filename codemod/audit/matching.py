"""Matching helpers shared by the text scanner (`scan_text`) and the parsed languages (`parsed/`).

One place for what both read the same way: the catalogue's path, host and name patterns, where a path
starts (`anchor`), its version prefix, the method of a call written near it, catalogue names in key or
property position, a path whose variable part stands where v1 routes have a fixed word (`match_loose`),
and the line/column map of a file. A finding's text is built by each scanner.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from codemod.audit.catalogue import Catalogue, RouteInfo, catalogue
from codemod.audit.model import RawFinding

HOLE = "{}"


@dataclass(frozen=True)
class Language:
    name: str
    line_comments: tuple[str, ...]
    block_comments: tuple[tuple[str, str], ...]
    quotes: str  # string delimiters
    hash_needs_space: bool = False  # `#` starts a comment only at line start or after whitespace
    config: bool = False  # data, not code: only hosts, routes and distinctive names count


@dataclass
class Patterns:
    path: re.Pattern[str]
    host: re.Pattern[str]
    names: re.Pattern[str]
    call_args: re.Pattern[str]
    method_near: re.Pattern[str]
    v2_relative: re.Pattern[str]  # a `/v2/<resource>` path written relative to a base


# Interpolations that stand for an unknown value inside a path or before it.
INTERP = r"(?:\$\{[^}\n]*\}|\{[^}\n/]*\}|\$\([^)\n]*\)|\$[A-Za-z_][A-Za-z0-9_]*|%[sdvq]|:[A-Za-z_][A-Za-z0-9_]*|<[A-Za-z_][A-Za-z0-9_]*>)"
SEG = r"(?:[A-Za-z0-9._~-]|" + INTERP + r")+"
TYPE_ANNOTATION = re.compile(r"\s*\??\s*:\s*(?:string|number|boolean|unknown|any|bigint|[A-Z][\w.]*)\b")
IMPORT_LIKE = {"require", "import", "include", "load", "require_relative", "source", "getLogger", "get_logger",
               "from", "Symbol", "describe", "it", "test"}

@lru_cache(maxsize=1)
def patterns() -> Patterns:
    cat = catalogue()
    firsts = "|".join(sorted((re.escape(s) for s in cat.first_segments), key=len, reverse=True))
    path = re.compile(r"(?<![/])(?:/v\d+)?/(?:" + firsts + r")(?![A-Za-z0-9_-])(?:/" + SEG + r")*/?")
    hosts = sorted({*cat.v1_hosts, *cat.v2_hosts, *cat.runtime_hosts}, key=len, reverse=True)
    host = re.compile(r"(?:[a-z][a-z0-9+.-]*://)?(?:" + "|".join(re.escape(h) for h in hosts) + r")(?![A-Za-z0-9-])",
                      re.IGNORECASE)
    names = sorted(set(cat.field_rules) | set(cat.param_rules), key=len, reverse=True)
    name_re = re.compile(r"(?<![A-Za-z0-9_$])(?P<name>" + "|".join(re.escape(n) for n in names) + r")(?![A-Za-z0-9_$])")
    lit = r"""(?:"[^"\n]*"|'[^'\n]*'|`[^`\n]*`)"""
    arg = r"(?:" + lit + r"|[\w.$\[\]]+)"
    call_args = re.compile(r"(?P<callee>[A-Za-z_$][\w$.]*)\s*\(\s*(?P<args>" + arg + r"(?:\s*,\s*" + arg + r")*)\s*\)")
    method_near = re.compile(
        r"""(?:\bmethod\s*[:=]\s*["']?|-X\s*|--request[\s=]+|\.|\bhttp\.Method|\bNewRequest(?:WithContext)?\(\s*(?:ctx\s*,\s*)?["']|\bMethod\s*[:=]\s*["'])"""
        r"(?P<m>GET|POST|PUT|PATCH|DELETE|get|post|put|patch|delete|Get|Post|Put|Patch|Delete)\b"
    )
    v2_relative = re.compile(r"(?<![A-Za-z0-9_.])" + re.escape(cat.v2_prefix) + r"/(?:" + "|".join(
        re.escape(s[0]) for s in sorted(cat.v2_relative) if s) + r")\b")
    return Patterns(path, host, name_re, call_args, method_near, v2_relative)


def suffix_of(path: str) -> str:
    """`PurePosixPath(path).suffix.lower()` (a Windows path's separators too), with string operations only: a
    PurePath per file was a part of each file's scan."""
    name = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:].lower() if 0 < dot < len(name) - 1 else ""
@dataclass
class Hit:
    kind: str  # call | base-url | indirect | field kinds
    rule: str
    line: int
    column: int
    message: str
    route: str | None = None
    v2_target: str | None = None


class Lines:
    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for i, ch in enumerate(text):
            if ch == "\n":
                self.starts.append(i + 1)
        self.lines = text.split("\n")

    def locate(self, offset: int) -> tuple[int, int]:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - self.starts[lo] + 1

    def source(self, line: int) -> str:
        return self.lines[line - 1].rstrip("\r") if 0 < line <= len(self.lines) else ""
def split_version(raw: str, cat: Catalogue) -> tuple[str, str]:
    """A matched path's API version ('v1', 'v2', 'other', or '' when it has none) and the path after it.

    One place for both scanners, so a `/v3/...` or `/v2/...` path is never read as a v1 route by one and not the other.
    """
    vm = re.match(r"/v\d+", raw)
    if not vm or re.match(r"/v\d+/?$", raw):
        return "", raw
    prefix = vm.group(0).lower()
    if prefix == cat.v2_prefix.lower():
        return "v2", raw[len(prefix):]
    if prefix != cat.v1_prefix.lower():
        return "other", raw[len(prefix):]
    return "v1", raw[len(prefix):]


def normalise(path: str) -> tuple[str, ...]:
    path = path.split("?", 1)[0].split("#", 1)[0]
    segs = []
    for seg in path.strip("/").split("/"):
        if not seg:
            continue
        segs.append(HOLE if re.search(INTERP, seg) else seg)
    return tuple(segs)


def path_anchor(view: str, start: int, cat: Catalogue, lang: Language) -> str:
    """What precedes a path: 'v1' host, 'v2' host, 'runtime', 'other-host', 'base' (string start,
    interpolation, concatenation, line start) or 'word' (inside something longer)."""
    line_start = view.rfind("\n", 0, start) + 1
    before = view[line_start:start]
    hm = re.search(r"(?:[a-z][a-z0-9+.-]*://)?[A-Za-z0-9.-]+\.[A-Za-z]{2,}(?::\d+)?$", before, re.IGNORECASE)
    if hm:
        kind = cat.host_kind(hm.group(0))
        return kind or "other-host"
    if before.endswith(("localhost", "127.0.0.1")) or re.search(r"localhost:\d+$|127\.0\.0\.1:\d+$", before):
        return "other-host"
    if not before.strip():
        return "base"
    last = before[-1]
    if last in "\"'`(=,[ \t:" or re.search(INTERP + r"$", before):
        return "base"
    return "word"


METHOD_KEY = re.compile(r"""\bmethod\s*[:=]\s*["'](?P<m>GET|POST|PUT|PATCH|DELETE)\b""", re.IGNORECASE)
CURL = re.compile(r"\bcurl\b")
CURL_DATA = re.compile(r"\s(?:-d|--data(?:-raw|-binary|-urlencode)?|-F|--form|--json)[\s=]")


def method_near(lines: Lines, line: int, route: RouteInfo) -> str | None:
    """The HTTP method of the call on LINE: on the line itself (fetch options, -X, .post(, NewRequest),
    else a `method:` key on the next three lines, else curl's own default (GET, POST with data)."""
    allowed = set(route.methods())
    src = lines.source(line)
    for m in patterns().method_near.finditer(src):
        method = m.group("m").upper()
        if method in allowed:
            return method
    for ln in (line + 1, line + 2, line + 3):
        m = METHOD_KEY.search(lines.source(ln))
        if m and m.group("m").upper() in allowed:
            return m.group("m").upper()
    if CURL.search(src):
        method = "POST" if CURL_DATA.search(src) else "GET"
        return method if method in allowed else None
    return None


def name_hits(view: str, lines: Lines, cat: Catalogue, lang: Language, generic: bool) -> list[Hit]:
    """Catalogue names in key, subscript, property or query position.

    generic=False: distinctive names only (v1 wherever they are keys);
    generic=True: the other catalogue names (ports, size, message...), in keys and subscripts only.
    """
    out: list[Hit] = []
    pats = patterns()
    error_keys = set(cat.mappings.conventions.v1_error_keys_read)
    for m in pats.names.finditer(view):
        name = m.group("name")
        if (name in cat.distinctive) == generic:
            continue
        s, e = m.start(), m.end()
        prev = view[s - 1] if s else ""
        nxt = view[e] if e < len(view) else ""
        after = view[e:e + 3]
        before2 = view[max(0, s - 2):s]
        kind = None
        if prev in "\"'" and nxt == prev:
            kind = "body-field" if re.match(r"""["']\s*[:=]""", view[e:e + 4]) else (
                "response-field" if view[max(0, s - 2):s - 1] == "[" else "body-field")
            if lang.config and not re.match(r"""["']\s*:""", view[e:e + 4]):
                kind = None if generic else kind
        elif re.match(r"\s*:(?![:/=])", after) and prev in " \t\n{,(":
            kind = "body-field"
            if name not in cat.field_rules and TYPE_ANNOTATION.match(view, e):
                continue  # `endpointId: string` is a parameter declaration, not a query parameter
        elif prev == "." and not generic and not lang.config:
            kind = "response-field"
        elif prev in "?&" and nxt == "=":
            kind = "param"
        if kind is None:
            continue
        if generic and name in error_keys and not (prev in "\"'" and before2.endswith("[" + prev)):
            continue
        rule_ids = cat.param_rules.get(name, ()) if kind == "param" else (
            cat.field_rules.get(name) or cat.param_rules.get(name, ()))
        line, col = lines.locate(s)
        for rule_id in rule_ids:
            rule = cat.rules[rule_id]
            what = "query parameter" if kind == "param" or name not in cat.field_rules else "field"
            out.append(Hit(kind, rule_id, line, col, f"v1 {what} `{name}`: {rule.summary}"))
    return out


@dataclass(frozen=True)
class LooseRoute(RouteInfo):
    """A path whose variable part stands where v1 routes have a fixed word (`/pods/$id/$action`):
    every v1 route it can be, reported together."""

    members: tuple[RouteInfo, ...] = ()


def match_loose(cat: Catalogue, segs: tuple[str, ...]) -> RouteInfo | None:
    route = cat.match_route(segs)
    if route is not None or not segs or segs[0] == HOLE or HOLE not in segs[1:]:
        return route
    members = tuple(r for r in cat.routes if len(r.segments) == len(segs)
                    and all(t == HOLE or s == HOLE or s == t for t, s in zip(r.segments, segs))
                    and any(s == HOLE and t != HOLE for t, s in zip(r.segments, segs)))
    if not members:
        return None
    if len(members) == 1:
        return members[0]
    parts = []
    for i, s in enumerate(segs):
        words = sorted({r.segments[i] for r in members})
        if s != HOLE or all(w == HOLE for w in words):
            parts.append(members[0].path.strip("/").split("/")[i])
        else:
            parts.append("{" + "|".join(w for w in words if w != HOLE) + "}")
    path = "/" + "/".join(parts)
    ops = tuple(op for r in members for op in r.operations)
    return LooseRoute(path, segs, ops, all(r.v1_only for r in members), members)


def dedupe(hits: list, lines) -> list[RawFinding]:
    seen: set[tuple[str, int, int]] = set()
    out: list[RawFinding] = []
    for h in sorted(hits, key=lambda h: (h.line, h.column, h.rule)):
        key = (h.rule, h.line, h.column)
        if key in seen:
            continue
        seen.add(key)
        out.append(RawFinding(h.rule, h.line, h.column, h.message, False, h.route, h.v2_target, h.kind,
                              lines.source(h.line)))
    return out
