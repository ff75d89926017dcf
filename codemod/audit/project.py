"""The audit's project-wide view of the parsed languages (shell, Go, JavaScript/TypeScript, PowerShell).

Each parsed file reports what it defines and what it calls by name (`FileFacts`, picklable: the workers send
it back): variables holding a base, wrappers (a function that sends one of its parameters after a base),
functions that hand a parameter on to another function (`Get(path)` -> `c.do(ctx, "GET", path, ...)`), the
routes it passes to functions it does not define, and what it imports or sources. `resolve` joins them into
the shared project model (`codemod.project_model`: a `Definition` per base and helper, a `Use` per call
through one), looking names up only where the language can see them:

- shell: every shell file of the run (libraries are sourced by path, often through a loop or `$DIR`);
- Go: the files of the same package (folder), and of the packages the file imports;
- JavaScript/TypeScript: the file itself and the modules it imports by a relative path;
- PowerShell: every PowerShell file of the run (dot-sourced).

`apply` then reads only that model: a call through a helper whose base is v1 is a v1 call (its finding
carries the helper's and the base's file and line, `AuditFinding.related`); a call through a helper whose
base no file sets stays `review` and says which base could not be found.
"""
from __future__ import annotations

import ast
import dataclasses
import posixpath
import re
from collections import Counter
from dataclasses import dataclass, field

from codemod.audit import markers as markers_mod
from codemod.audit.catalogue import catalogue
from codemod.audit.matching import HOLE, IMPORT_LIKE, Lines, method_near
from codemod.audit.model import AuditFinding, FileResult
from codemod.audit.status import finish
from codemod.project_model import Definition, ProjectIndex, Use
from codemod.compat_call import ACALL_V1, CALL_V1, MODULE_NAME

MAX_ROUNDS = 8  # helper chains longer than this (a -> b -> ... -> base) are not followed
JS_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


@dataclass(frozen=True)
class Helper:
    """A wrapper found in one file: NAME sends its argument INDEX after a base."""

    name: str
    api: str  # v1 | v2
    index: int
    line: int
    base: str | None  # the variable holding the base, when it is one
    method: str | None = None  # the method its request always sends, when fixed there


@dataclass(frozen=True)
class Pending:
    """A wrapper whose base is a variable this file does not set (`"${RP_API}${path}"`)."""

    name: str
    var: str
    index: int
    line: int
    finding: AuditFinding | None  # its request line, reported when the base is v1
    method: str | None = None  # the method its request always sends, when fixed there


@dataclass(frozen=True)
class Forward:
    """NAME hands its parameter INDEX on as argument POSITION of a call to CALLEE (with METHOD, when fixed)."""

    name: str
    index: int
    callee: str
    position: int
    method: str | None
    line: int


@dataclass
class FileFacts:
    language: str
    helpers: list[Helper] = field(default_factory=list)
    bases: dict[str, tuple[str, int]] = field(default_factory=dict)  # name -> (v1|v2, line)
    base_from: dict[str, str] = field(default_factory=dict)  # a base set from another (`baseURL: DefaultBaseURL`)
    pending: list[Pending] = field(default_factory=list)
    forwards: list[Forward] = field(default_factory=list)
    calls: list[tuple[str, AuditFinding]] = field(default_factory=list)  # (callee name, finding if v1)
    imports: tuple[str, ...] = ()


def renamed(facts: FileFacts, path: str) -> FileFacts:
    """FACTS of a file read under another name (a script without a suffix, read by its shebang)."""
    return dataclasses.replace(
        facts,
        pending=[dataclasses.replace(p, finding=dataclasses.replace(p.finding, path=path) if p.finding else None)
                 for p in facts.pending],
        calls=[(c, dataclasses.replace(f, path=path)) for c, f in facts.calls])


def _dir(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


class _Scope:
    """Which files a name used in a file can come from."""

    def __init__(self, results: list[FileResult]) -> None:
        self.facts = {r.path: r.facts for r in results if r.facts is not None}
        self.by_language: dict[str, list[str]] = {}
        self.by_dir: dict[str, list[str]] = {}
        self.js_modules: dict[str, str] = {}  # path without suffix (and without /index) -> path
        for path, facts in self.facts.items():
            family = "js" if facts.language in ("javascript", "typescript") else facts.language
            self.by_language.setdefault(family, []).append(path)
            self.by_dir.setdefault(_dir(path), []).append(path)
            if family == "js":
                stem = path.rsplit(".", 1)[0]
                self.js_modules.setdefault(stem, path)
                if stem.endswith("/index"):
                    self.js_modules.setdefault(stem[: -len("/index")], path)
        self._visible: dict[str, list[str]] = {}

    def family(self, path: str) -> str:
        language = self.facts[path].language
        return "js" if language in ("javascript", "typescript") else language

    def sees(self, path: str, other: str) -> bool:
        """Whether a name used in PATH can be defined in OTHER."""
        if other == path:
            return True
        if self.family(path) != self.family(other):
            return False
        if self.family(path) in ("shell", "powershell"):
            return True  # sourced or dot-sourced: any file of the run
        return other in self.visible(path)

    def visible(self, path: str) -> list[str]:
        """Go and JS/TS files whose definitions PATH can use, itself first."""
        if path in self._visible:
            return self._visible[path]
        facts = self.facts[path]
        out = [path]
        if facts.language == "go":
            out += [p for p in self.by_dir.get(_dir(path), []) if p != path and self.facts[p].language == "go"]
            for spec in facts.imports:
                for folder, files in self.by_dir.items():
                    if folder and (spec == folder or spec.endswith("/" + folder)):
                        out += [p for p in files if self.facts[p].language == "go" and p not in out]
        elif facts.language in ("javascript", "typescript"):
            for spec in facts.imports:
                if not spec.startswith("."):
                    continue
                target = posixpath.normpath(posixpath.join(_dir(path), spec))
                stem = target.rsplit(".", 1)[0] if target.endswith(JS_SUFFIXES) else target
                found = self.js_modules.get(stem)
                if found and found not in out:
                    out.append(found)
        self._visible[path] = out
        return out


def resolve(results: list[FileResult]) -> ProjectIndex:
    """Definitions (bases, helpers) and uses (calls through a helper) of the parsed files of one run."""
    scope = _Scope(results)
    defs: dict[tuple[str, str], Definition] = {}
    helper_index: dict[tuple[str, str], int] = {}  # (file, helper) -> argument carrying the path
    for path, facts in scope.facts.items():
        for name, (api, line) in facts.bases.items():
            origin = facts.base_from.get(name)
            defs[(path, name)] = Definition("base", name, path, line, api=api,
                                            base=(path, origin) if origin in facts.bases else None)
    methods: dict[tuple[str, str], str] = {}  # helper -> the method every call through it sends
    for path, facts in scope.facts.items():
        for h in facts.helpers:
            if (path, h.name) in defs:
                continue
            if h.method:
                methods[(path, h.name)] = h.method
            base = (path, h.base) if h.base and (path, h.base) in defs else None
            defs[(path, h.name)] = Definition("helper", h.name, path, h.line, api=h.api, base=base)
            helper_index[(path, h.name)] = h.index

    by_name: dict[str, list[Definition]] = {}

    def add(d: Definition) -> None:
        defs[d.key] = d
        by_name.setdefault(d.name, []).append(d)

    for d in list(defs.values()):
        by_name.setdefault(d.name, []).append(d)

    def lookup(path: str, name: str, kind: str) -> Definition | None:
        """The definition of NAME that PATH sees: its own first, then the first other file that defines it."""
        own = defs.get((path, name))
        if own is not None and own.kind == kind:
            return own
        return next((d for d in by_name.get(name, ()) if d.kind == kind and scope.sees(path, d.file)), None)

    for path, facts in scope.facts.items():
        for p in facts.pending:
            if (path, p.name) in defs:
                continue
            base = lookup(path, p.var, "base")
            if base is not None:
                add(Definition("helper", p.name, path, p.line, api=base.api, base=base.key))
            else:
                add(Definition("helper", p.name, path, p.line, api="unknown",
                               reason=f"its base `{p.var}` is not set in any file of the project (read from the "
                                      f"environment?)"))
            helper_index[(path, p.name)] = p.index
            if p.method:
                methods[(path, p.name)] = p.method
    for _ in range(MAX_ROUNDS):
        added = False
        for path, facts in scope.facts.items():
            for f in facts.forwards:
                if (path, f.name) in defs:
                    continue
                target = lookup(path, f.callee, "helper")
                if target is None or helper_index.get(target.key, -1) not in (f.position, -1):
                    continue
                add(Definition("helper", f.name, path, f.line, api=target.api, reason=target.reason, base=target.key))
                helper_index[(path, f.name)] = f.index
                if f.method or target.key in methods:
                    methods[(path, f.name)] = f.method or methods[target.key]
                added = True
        if not added:
            break
    uses = []
    for path, facts in scope.facts.items():
        for callee, finding in facts.calls:
            if callee.startswith("$"):
                d = lookup(path, callee[1:], "base")
            else:
                d = lookup(path, callee, "helper")
            if d is not None:
                uses.append(Use(path, finding.line, d.key, methods.get(d.key), finding.route))
    return ProjectIndex(tuple(defs.values()), tuple(dict.fromkeys(uses)))


def related(index: ProjectIndex, definition: Definition) -> tuple[tuple[str, int, str], ...]:
    """Where a call through DEFINITION gets its base: the helper (and each helper it goes through) and the base."""
    out = []
    current: Definition | None = definition
    seen = set()
    while current is not None and current.key not in seen:
        seen.add(current.key)
        if current.kind == "base":
            out.append((current.file, current.line, f"{current.api} base `{current.name}` set here"))
        else:
            out.append((current.file, current.line, f"through `{current.name}`"))
        current = index.definition(current.base) if current.base else None
    return tuple(out)


def apply(results: list[FileResult], index: ProjectIndex) -> None:
    """Give every call through a helper of the project its verdict, from INDEX only."""
    by_path = {r.path: r for r in results}
    for path, r in by_path.items():
        facts = r.facts
        if facts is None:
            continue
        changed = False
        for p in facts.pending:
            d = index.definition((path, p.name))
            if d is not None and index.origin(d).api == "v1" and d.api == "v1" and p.finding is not None:
                r.findings.append(dataclasses.replace(p.finding, related=related(index, index.origin(d))))
                changed = True
        additions: list[AuditFinding] = []
        retold: set[tuple[int, int]] = set()
        for callee, finding in facts.calls:
            name = callee[1:] if callee.startswith("$") else callee
            use = _use(index, path, finding.line, name)
            d = index.resolve(use) if use is not None else None
            if d is None:
                continue
            origin = index.origin(d)
            links = related(index, d)
            if d.api == "v1" and origin.api == "v1":
                kind, why = ("call" if finding.kind == "indirect" else finding.kind), ""
            elif d.api == "unknown" and d.reason:
                kind, why = "indirect", f" (review: the call goes through `{d.name}`, {d.reason})"
            else:
                continue
            told = [finding]
            if use.method and finding.route and finding.route.split(" ", 1)[0] != use.method:
                # the helper fixes the method (`client.del(path)` is a DELETE; curl with no -X is a GET)
                if (finding.line, finding.column) in retold:
                    continue
                retold.add((finding.line, finding.column))
                told = _with_method(finding, use.method)
                r.findings = [f for f in r.findings if (f.line, f.column) != (finding.line, finding.column)
                              or f.route is None]
            additions.extend(dataclasses.replace(f, kind=kind, related=links, message=f.message + why) for f in told)
        if additions:
            _merge(r, additions)
            changed = True
        if changed:
            r.findings.sort(key=lambda f: (f.line, f.column, f.rule))
            finish(r)
        r.facts = None  # read once


def _use(index: ProjectIndex, path: str, line: int, name: str) -> Use | None:
    for use in index.uses_in(path):
        if use.line == line and use.definition[1] == name:
            return use
    return None


def _with_method(finding: AuditFinding, method: str) -> list[AuditFinding]:
    """FINDING's call told again with the method its helper fixes: that method's rules and v2 target."""
    cat = catalogue()
    path = finding.route.split(" ", 1)[1] if finding.route and " " in finding.route else None
    route = next((r for r in cat.routes if r.path == path), None)
    if route is None or method not in route.methods():
        return [finding]
    label = f"{method} {route.path}"
    target = cat.v2_target(route, method)
    out = []
    for rule_id in cat.route_rules(route, method):
        rule = cat.rules[rule_id]
        out.append(dataclasses.replace(
            finding, rule=rule_id, name=rule.name, rule_class=rule.rule_class, severity=rule.severity,
            remedy=rule.remedy, message=f"v1 {label} -> {target}: {rule.summary}", route=label, v2_target=target))
    return out


def _merge(result: FileResult, additions: list[AuditFinding]) -> None:
    """A call through a v1 helper replaces the guess made at the same place (an `indirect` finding) and gives
    an existing finding of the same rule its related locations."""
    places = {(f.line, f.column) for f in additions if f.kind != "indirect"}
    kept = [f for f in result.findings if not (f.kind == "indirect" and (f.line, f.column) in places)]
    by_key = {(f.rule, f.line, f.column): i for i, f in enumerate(kept)}
    for f in additions:
        i = by_key.get((f.rule, f.line, f.column))
        if i is None:
            if f.kind == "indirect" and any(k.line == f.line and k.kind != "indirect" for k in kept):
                continue  # already a v1 call on that line
            by_key[(f.rule, f.line, f.column)] = len(kept)
            kept.append(f)
        elif not kept[i].related:
            kept[i] = dataclasses.replace(kept[i], related=f.related)
    result.findings = kept


# ------------------------------------------------------------------ Python: path segments kept in constants


def _segment_routes() -> dict[str, "object"]:
    """Segment words that only v1 paths start with (`containerregistryauth`, `networkvolumes`), each with one
    of its routes; derived from the catalogue: every route starting with the word is a v1-only spelling."""
    cat = catalogue()
    by_first: dict[str, list] = {}
    for route in cat.routes:
        if route.segments:
            by_first.setdefault(route.segments[0], []).append(route)
    return {word: min(routes, key=lambda r: len(r.segments)) for word, routes in by_first.items()
            if all(r.v1_only for r in routes)}


def python_segments(results: list[FileResult], read) -> ProjectIndex:
    """Python module constants holding a v1-only path segment (`_REGISTRY_AUTH_PATH = "containerregistryauth"`)
    that a v1 call of the run is built from, in the defining file or in a file importing them: each constant
    is a `path` Definition, each such call a Use, and the constant's line gets its finding (the call's line has
    its own). READ(path) returns a file's text (to find the constant's line)."""
    from codemod import crossfile

    words = _segment_routes()
    facts = [r.module_facts for r in results if r.module_facts is not None]
    if not facts or not words:
        return ProjectIndex()
    table = crossfile.Table(facts)
    by_path = {r.path: r for r in results}
    defs: list[Definition] = []
    uses: list[Use] = []
    for f in facts:
        segs = {name: value.strip("/") for name, value in f.constants.items() if value.strip("/") in words}
        if not segs:
            continue
        importers = [(p, local, ext.name) for p, names in table.imported.items() for local, ext in names.items()
                     if ext.origin == f.path and ext.name in segs]
        readers = [(f.path, name, name) for name in segs] + importers
        text = read(f.path)
        for reader, local, name in readers:
            result = by_path.get(reader)
            if result is None or text is None:
                continue
            word = segs[name]
            calls = [x for x in result.findings if x.route and x.kind == "call"
                     and x.route.split(" ", 1)[-1].strip("/").split("/")[0] == word]
            if not calls:
                continue
            reader_text = text if reader == f.path else read(reader)
            if reader_text is None or not re.search(r"\b" + re.escape(local) + r"\b", _after_definition(reader_text, local)):
                continue
            line = _constant_line(text, name)
            if line is None:
                continue
            d = Definition("path", name, f.path, line, value=word, api="v1")
            if d not in defs:
                defs.append(d)
            uses.extend(Use(reader, c.line, d.key, None, c.route) for c in calls)
    return ProjectIndex(tuple(defs), tuple(dict.fromkeys(uses)))


def _after_definition(text: str, name: str) -> str:
    """TEXT without the lines that assign NAME (a constant is used where it is read)."""
    return "\n".join(line for line in text.splitlines() if not re.match(r"\s*" + re.escape(name) + r"\s*(?::[^=]*)?=", line))


def _constant_line(text: str, name: str) -> int | None:
    for i, line in enumerate(text.splitlines(), start=1):
        if re.match(re.escape(name) + r"\s*(?::[^=]*)?=", line):
            return i
    return None


def apply_segments(results: list[FileResult], index: ProjectIndex, read, markers_of) -> None:
    """The finding of each path-segment constant of INDEX, on the constant's line, in the defining file
    (READ(path): its text; MARKERS_OF(path, line): the marker covering that line, if any)."""
    cat = catalogue()
    words = _segment_routes()
    by_path = {r.path: r for r in results}
    for d in index.definitions:
        if d.kind != "path":
            continue
        result = by_path.get(d.file)
        if result is None or any(f.line == d.line and f.kind == "call" for f in result.findings):
            continue
        route = words[d.value]
        users = sorted({u.file for u in index.uses_of(d)})
        rule_id = (cat.route_rules(route, None) or (cat.base_url_rule,))[0]
        rule = cat.rules[rule_id]
        marker = markers_of(d.file, d.line)
        result.findings.append(AuditFinding(
            rule=rule_id, name=rule.name, rule_class=rule.rule_class, severity=rule.severity, path=d.file,
            line=d.line, column=1, source_line=_source_line(read(d.file), d.line), kind="call",
            message=f"v1 path segment `{d.value}` in `{d.name}`, used for {route.path} (in {', '.join(users)}): "
                    f"{rule.remedy}",
            remedy=rule.remedy, fixable=False, route=None, v2_target=cat.v2_target(route, None),
            language=result.language, suppressed=marker.kind if marker else None,
            marker=marker.text if marker else None,
            related=tuple((u.file, u.line, f"used for {u.path}") for u in index.uses_of(d))))
        result.findings.sort(key=lambda f: (f.line, f.column, f.rule))
        finish(result)


def _source_line(text: str | None, line: int) -> str:
    lines = (text or "").splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


# ------------------------------------------------------------------ Python: v1-only paths handed to code not in sight

_COMPAT_CALLS = {f"{MODULE_NAME}.{name}" for name in (CALL_V1, ACALL_V1)}
_ANALYSIS_HOLE = "\x00"  # codemod.knowledge.HOLE: a segment of a path argument with an interpolated part
_NEWLINES = re.compile(r"\r\n?|\n")  # as CPython counts lines


def _v1_only_arguments(path_arguments) -> list:
    """(callee, route, line, column from 0 in characters, the call's first line, its statement's lines) of each path
    argument (`codemod.analysis.facts.PathArgument`, the analysis' facts) that only v1 spells, in the order the calls
    are met.
    A call importing something (`require("/pods")`) and the compat module's run-time translation (v1 paths on
    purpose: v2 when it runs) are not API calls."""
    cat = catalogue()
    out = []
    for arg in path_arguments:
        if arg.callee.rsplit(".", 1)[-1] in IMPORT_LIKE or arg.callee in _COMPAT_CALLS:
            continue
        segments = tuple(HOLE if s == _ANALYSIS_HOLE else s for s in arg.segments)
        if segments[0] not in cat.first_segments:
            continue
        route = cat.match_route(segments)
        if route is not None and route.v1_only:
            out.append((arg.callee, route, arg.line, arg.column, arg.call_line, arg.statement))
    return out


def _in_walk_order(candidates: list, text: str, byte_column) -> list:
    """CANDIDATES, those of a statement where two of them share a line in `ast.walk`'s order (breadth first: the
    order that has always decided which call on a line takes it). Only such a statement (rare: two v1-only paths on
    one line) is parsed, alone; the others keep the analysis' order."""
    lines = Counter(line for c in candidates for line in {c[2], c[4]})
    shared = {c[5] for c in candidates if lines[c[2]] > 1 or lines[c[4]] > 1}
    if not shared:
        return candidates
    source = text.split("\n")
    rank: dict[tuple[int, int], int] = {}
    for first, last in sorted(shared):
        try:
            tree = ast.parse("\n" * (first - 1) + "\n".join(source[first - 1:last]))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                for arg in node.args:
                    rank.setdefault((arg.lineno, arg.col_offset), len(rank))
    return sorted(candidates, key=lambda c: (c[5], rank.get((c[2], byte_column(c[2], c[3])), -1)) if c[5] in shared
                  else (c[5], -1))


def _byte_columns(text: str):
    """(line, column in characters from 0) -> the column as CPython's `ast` counts it (UTF-8 bytes from 0)."""
    if text.isascii():
        return lambda _line, column: column
    starts = [0] + [m.end() for m in _NEWLINES.finditer(text)]
    return lambda line, column: len(text[starts[line - 1]:starts[line - 1] + column].encode("utf-8", "surrogatepass"))


def python_v1_only_paths(result: FileResult, text: str, path_arguments) -> None:
    """A path only v1 spells (`/networkvolumes/{id}`, `/billing/endpoints`), handed to a function the Python
    analysis cannot follow (an SDK's `fetch_json`, a client whose type it cannot see), is a v1 call wherever its
    base comes from, as in every other language: its line gets the route's finding, and a `review` made there
    for it becomes a call. TEXT: the file's text; PATH_ARGUMENTS: the analysis' facts of its calls
    (`codemod.analysis.facts.PathArgument`): read from them, the module is not parsed again. The first call on a
    line takes it."""
    candidates = _v1_only_arguments(path_arguments)
    if not candidates or result.language != "python" or result.error:
        return
    cat = catalogue()
    text = _NEWLINES.sub("\n", text) if "\r" in text else text  # lines as the file reads in text mode
    lines, byte_column = Lines(text), _byte_columns(text)
    marker_map = None
    routed = {f.line for f in result.findings if f.route and f.kind != "indirect"}
    found: list[AuditFinding] = []
    for callee, route, line, column, call_line, _statement in _in_walk_order(candidates, text, byte_column):
        # a call the analysis read is reported on its first line, the path maybe lines below (`post(\n"/x",`)
        if line in routed or call_line in routed:
            continue
        verb = callee.rsplit(".", 1)[-1].upper()
        method = verb if verb in route.methods() else method_near(lines, line, route)
        if method is None and len(route.methods()) == 1:
            method = route.methods()[0]
        label = f"{method or '|'.join(route.methods())} {route.path}"
        target = cat.v2_target(route, method)
        if marker_map is None:
            marker_map = markers_mod.parse(text)
        marker = marker_map.lookup(line)
        for rule_id in cat.route_rules(route, method):
            rule = cat.rules[rule_id]
            found.append(AuditFinding(
                rule=rule_id, name=rule.name, rule_class=rule.rule_class, severity=rule.severity,
                path=result.path, line=line, column=byte_column(line, column) + 1,
                source_line=lines.source(line).strip(), kind="call",
                message=f"v1 {label} -> {target}: {rule.summary} (a path only v1 spells, handed to "
                        f"`{callee or 'a call'}`: v1 wherever its base comes from)",
                remedy=rule.remedy, fixable=False, route=label, v2_target=target, language="python",
                suppressed=marker.kind if marker else None, marker=marker.text if marker else None))
        routed.add(line)
    if not found:
        return
    lines_found = {f.line for f in found}
    result.findings = [f for f in result.findings if not (f.kind == "indirect" and f.line in lines_found)]
    result.findings.extend(found)
    result.findings.sort(key=lambda f: (f.line, f.column, f.rule))
    finish(result)


def package_facts(passed_over: list[tuple[str, str]]) -> list:
    """The facts of the packages' `__init__` files the prefilter passed over (no API sign of their own), as the
    rewrite reads them (`codemod.engine.package_facts`): a client class imported as `from runpodctl import
    RunPodClient` is followed through them to the module defining it. PASSED_OVER: (path on disk, path in the
    run)."""
    from codemod.engine import package_facts as facts_of

    out = []
    for path, rel in passed_over:
        if rel.rsplit("/", 1)[-1] != "__init__.py":
            continue
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                facts = facts_of(handle.read(), rel)
        except OSError:
            continue
        if facts is not None:
            out.append(facts)
    return out
