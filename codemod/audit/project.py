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

import dataclasses
import posixpath
from dataclasses import dataclass, field

from codemod.audit.model import AuditFinding, FileResult
from codemod.audit.status import finish
from codemod.project_model import Definition, ProjectIndex, Use

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


@dataclass(frozen=True)
class Pending:
    """A wrapper whose base is a variable this file does not set (`"${RP_API}${path}"`)."""

    name: str
    var: str
    index: int
    line: int
    finding: AuditFinding | None  # its request line, reported when the base is v1


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

    def visible(self, path: str) -> list[str]:
        """Files whose definitions PATH can use, itself first."""
        if path in self._visible:
            return self._visible[path]
        facts = self.facts[path]
        out = [path]
        if facts.language in ("shell", "powershell"):
            out += [p for p in self.by_language.get(facts.language, []) if p != path]
        elif facts.language == "go":
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
            defs[(path, name)] = Definition("base", name, path, line, api=api)
    for path, facts in scope.facts.items():
        for h in facts.helpers:
            if (path, h.name) in defs:
                continue
            base = (path, h.base) if h.base and (path, h.base) in defs else None
            defs[(path, h.name)] = Definition("helper", h.name, path, h.line, api=h.api, base=base)
            helper_index[(path, h.name)] = h.index

    def lookup(path: str, name: str, kind: str) -> Definition | None:
        for other in scope.visible(path):
            d = defs.get((other, name))
            if d is not None and d.kind == kind:
                return d
        return None

    for path, facts in scope.facts.items():
        for p in facts.pending:
            if (path, p.name) in defs:
                continue
            base = lookup(path, p.var, "base")
            if base is not None:
                defs[(path, p.name)] = Definition("helper", p.name, path, p.line, api=base.api, base=base.key)
            else:
                defs[(path, p.name)] = Definition(
                    "helper", p.name, path, p.line, api="unknown",
                    reason=f"its base `{p.var}` is not set in any file of the project (read from the environment?)")
            helper_index[(path, p.name)] = p.index
    methods: dict[tuple[str, str], str] = {}
    for _ in range(MAX_ROUNDS):
        added = False
        for path, facts in scope.facts.items():
            for f in facts.forwards:
                if (path, f.name) in defs:
                    continue
                target = lookup(path, f.callee, "helper")
                if target is None or helper_index.get(target.key, -1) not in (f.position, -1):
                    continue
                defs[(path, f.name)] = Definition("helper", f.name, path, f.line, api=target.api,
                                                  reason=target.reason, base=target.key)
                helper_index[(path, f.name)] = f.index
                if f.method:
                    methods[(path, f.name)] = f.method
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
        for callee, finding in facts.calls:
            name = callee[1:] if callee.startswith("$") else callee
            d = _resolved(index, path, finding.line, name)
            if d is None:
                continue
            origin = index.origin(d)
            links = related(index, d)
            if d.api == "v1" and origin.api == "v1":
                additions.append(dataclasses.replace(finding, kind="call" if finding.kind == "indirect" else finding.kind,
                                                     related=links))
            elif d.api == "unknown" and d.reason:
                additions.append(dataclasses.replace(
                    finding, kind="indirect", related=links,
                    message=f"{finding.message} (review: the call goes through `{d.name}`, {d.reason})"))
        if additions:
            _merge(r, additions)
            changed = True
        if changed:
            r.findings.sort(key=lambda f: (f.line, f.column, f.rule))
            finish(r)
        r.facts = None  # read once


def _resolved(index: ProjectIndex, path: str, line: int, name: str) -> Definition | None:
    for use in index.uses_in(path):
        if use.line == line and use.definition[1] == name:
            return index.resolve(use)
    return None


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
