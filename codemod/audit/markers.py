"""Suppression markers: `v1bridge: keep-v1` (legacy kept on purpose) and `v1bridge: ignore` (false positive).

Markers live in a comment of any syntax (`#`, `//`, `--`, `/* */`, `<!-- -->`).
The provider's own scanner spells them `rp-migrate: keep-v1` / `rp-migrate: ignore`;
both spellings are honoured. Scopes:

- trailing a line of code: that line;
- alone on a comment line: the next non-blank line (and the marker line);
- `... start` / `... end` (also `begin`): every line of the region, inclusive
  (an unclosed region runs to the end of the file);
- `... file`: the whole file.

The two kinds are kept apart everywhere: a keep-v1 region never turns a
finding into "ignored", and the innermost scope wins where they overlap
(line over region over file).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

TOOLS = ("v1bridge", "rp-migrate")
KINDS = ("keep-v1", "ignore")

MARKER = re.compile(
    r"(?P<opener>#|//|--|/\*|<!--)[ \t*#/!-]*"
    r"(?P<tool>v1bridge|rp-migrate)\s*:\s*(?P<kind>keep-v1|ignore)"
    r"(?:[ \t]*[-:]?[ \t]*(?P<scope>start|begin|end|file|next-line|line)\b)?",
    re.IGNORECASE,
)
_COMMENT_ONLY = re.compile(r"^\s*(?:#|//|--|/\*|<!--|\*)")


@dataclass(frozen=True)
class Marker:
    line: int
    kind: str  # keep-v1 | ignore
    scope: str  # line | next-line | start | end | file
    tool: str
    text: str


@dataclass
class MarkerMap:
    """Which lines of one file are suppressed, and by which marker."""

    markers: list[Marker] = field(default_factory=list)
    file_kind: Marker | None = None
    lines: dict[int, Marker] = field(default_factory=dict)  # line and next-line scopes
    regions: list[tuple[int, int, Marker]] = field(default_factory=list)
    unclosed: list[Marker] = field(default_factory=list)

    def lookup(self, line: int) -> Marker | None:
        if line in self.lines:
            return self.lines[line]
        inner: tuple[int, Marker] | None = None
        for start, end, marker in self.regions:
            if start <= line <= end and (inner is None or end - start < inner[0]):
                inner = (end - start, marker)
        if inner:
            return inner[1]
        return self.file_kind

    def __bool__(self) -> bool:
        return bool(self.markers)


def has_marker(text: str) -> bool:
    low = text.lower()
    return any(t in low for t in TOOLS) and MARKER.search(text) is not None


def parse(text: str) -> MarkerMap:
    result = MarkerMap()
    if not has_marker(text):
        return result
    lines = text.splitlines()
    open_regions: dict[str, list[Marker]] = {k: [] for k in KINDS}
    for index, raw in enumerate(lines, start=1):
        found = MARKER.search(raw)
        if not found:
            continue
        kind = found.group("kind").lower()
        scope = (found.group("scope") or "").lower()
        own_line = not raw[: found.start()].strip() or bool(_COMMENT_ONLY.match(raw[: found.start()] + "#"))
        if scope in ("", "line", "next-line"):
            scope = "next-line" if (scope == "next-line" or (scope == "" and own_line)) else "line"
        elif scope == "begin":
            scope = "start"
        marker = Marker(index, kind, scope, found.group("tool").lower(), found.group(0).strip())
        result.markers.append(marker)
        if scope == "file":
            # keep-v1 outranks ignore when a file carries both (it is the stronger statement)
            if result.file_kind is None or kind == "keep-v1":
                result.file_kind = marker
        elif scope == "line":
            result.lines[index] = marker
        elif scope == "next-line":
            result.lines.setdefault(index, marker)
            target = index + 1
            while target <= len(lines) and not lines[target - 1].strip():
                target += 1
            if target <= len(lines):
                result.lines.setdefault(target, marker)
        elif scope == "start":
            open_regions[kind].append(marker)
        elif scope == "end":
            if open_regions[kind]:
                start = open_regions[kind].pop()
                result.regions.append((start.line, index, start))
    for kind, pending in open_regions.items():
        for start in pending:
            result.unclosed.append(start)
            result.regions.append((start.line, len(lines), start))
    return result
