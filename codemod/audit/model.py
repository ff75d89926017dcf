"""Data the audit passes between scanning, markers, status and the reports."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

from codemod.changes import Finding

SCHEMA_VERSION = 1
SCHEMA_ID = "v1bridge.audit.code/1"
TRAFFIC_SCHEMA_ID = "v1bridge.audit.traffic/1"

Status = Literal["needs-migration", "review", "v2-compat", "v2", "kept-v1", "ignored", "not-control-plane"]
STATUSES: tuple[str, ...] = ("needs-migration", "review", "v2-compat", "v2", "kept-v1", "ignored",
                             "not-control-plane")
# keep-v1 / ignore: a marker; compat: a call through the generated compat module (working v2 code, v1 behaviour
# kept at run time), listed apart so a team can see what is left to simplify
Suppression = Literal["keep-v1", "ignore", "compat"]
KINDS = ("call", "base-url", "body-field", "response-field", "error-read", "list-read", "param", "indirect")


# What a scanner saw, before the catalogue and the markers are applied: the
# rewrite's own detector type, so Python and the text scanners feed one pipeline.
RawFinding = Finding


@dataclass(frozen=True)
class Signals:
    """File-level evidence, besides the findings, used to give the file a status."""

    uses_v1: bool = False
    uses_v2: bool = False
    serverless_runtime: bool = False
    indirect_only: bool = False


@dataclass(frozen=True)
class AuditFinding:
    rule: str
    name: str
    rule_class: str
    severity: str
    path: str
    line: int
    column: int
    source_line: str
    message: str
    remedy: str
    fixable: bool
    kind: str
    route: str | None = None
    v2_target: str | None = None
    language: str = "text"
    suppressed: str | None = None  # "keep-v1" | "ignore" | None (unresolved)
    marker: str | None = None  # the marker text that suppressed it
    fingerprint: str = ""  # codemod.audit.baseline: rule + file + normalised source, with occurrence
    baseline: str | None = None  # with --baseline: "unchanged" (in it) or "new"
    # where a call through a helper gets its base: (path, line, what is there), helper first, base last
    related: tuple[tuple[str, int, str], ...] = ()

    def but(self, **changes: Any) -> "AuditFinding":
        """This finding with CHANGES to some of its fields: `dataclasses.replace`, for a report's every finding
        (the fields copied as they are, not passed through `__init__` one at a time: a large module's fingerprints
        took twice as long)."""
        if not changes.keys() <= _FINDING_FIELDS:
            raise TypeError(f"AuditFinding has no field {sorted(changes.keys() - _FINDING_FIELDS)}")
        new = object.__new__(AuditFinding)
        new.__dict__.update(self.__dict__, **changes)
        return new

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["class"] = data.pop("rule_class")
        return data

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, self.rule)


_FINDING_FIELDS = frozenset(f.name for f in fields(AuditFinding))


@dataclass
class FileResult:
    path: str  # relative to the scanned root, "/" separators
    language: str
    findings: list[AuditFinding] = field(default_factory=list)
    signals: Signals = Signals()
    status: str | None = None  # None: the file does not talk to the API
    error: str | None = None
    markers: int = 0
    file_marker: str | None = None  # a marker for the whole file: "ignore" | "keep-v1"
    compat: list[tuple[int, str]] = field(default_factory=list)  # (line, function) of v1bridge_compat calls
    skip_reason: str | None = None  # read, then left out of the audit (the generated compat module)
    # Go: v1 error reads decided with the other files of the package ("@DIR", finding)
    deferred: list[tuple[str, "AuditFinding"]] = field(default_factory=list)
    facts: Any = field(default=None, repr=False, compare=False)  # parsed languages: codemod.audit.project.FileFacts
    # Python: constants and imports other files of the run may read (codemod.crossfile.ModuleFacts)
    module_facts: Any = field(default=None, repr=False, compare=False)
    verdicts: Any = field(default=None, repr=False, compare=False)  # crossfile.Verdict per shared constant
    # Python: the analysis' literal resource paths handed to calls (codemod.analysis.facts.PathArgument), read once
    path_arguments: Any = field(default=None, repr=False, compare=False)

    @property
    def unresolved(self) -> list[AuditFinding]:
        return [f for f in self.findings if f.suppressed is None]

    def count(self, suppressed: str | None) -> int:
        return sum(1 for f in self.findings if f.suppressed == suppressed)


@dataclass
class AuditReport:
    roots: list[str]
    files: list[FileResult]
    scanned: int
    skipped: list[tuple[str, str]] = field(default_factory=list)
    # candidate files not read or not analysed (path, reason): too large, unreadable, the analysis failed
    not_read: list[tuple[str, str]] = field(default_factory=list)
    elapsed_s: float = 0.0
    jobs: int = 1
    scope: str = "all"
    selection: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    baseline: dict[str, int] | None = None  # entries, matched, fixed, new (with --baseline)
    project: Any = field(default=None, repr=False)  # codemod.project_model.ProjectIndex of the run

    @property
    def findings(self) -> list[AuditFinding]:
        out = [f for fr in self.files for f in fr.findings if f.suppressed is None]
        return sorted(out, key=AuditFinding.sort_key)

    @property
    def suppressed(self) -> list[AuditFinding]:
        out = [f for fr in self.files for f in fr.findings if f.suppressed is not None]
        return sorted(out, key=AuditFinding.sort_key)

    @property
    def api_files(self) -> list[FileResult]:
        return sorted((f for f in self.files if f.status is not None), key=lambda f: f.path)

    @property
    def errors(self) -> list[FileResult]:
        return [f for f in self.files if f.error]

    def status_counts(self) -> dict[str, int]:
        counts = {s: 0 for s in STATUSES}
        for f in self.api_files:
            counts[f.status] += 1  # type: ignore[index]
        return counts

    @property
    def legacy_remaining(self) -> bool:
        """Unresolved v1 usage (markers excluded; with a baseline, only findings not in it):
        what --fail-on-legacy fails on."""
        if self.baseline is not None:
            return any(f.baseline == "new" for f in self.findings)
        return bool(self.findings)

    def verdict(self) -> tuple[str, str]:
        """(code, sentence) summing the audit up, for the first line of every report.

        "clean" only when every candidate file was read: an unread file may hold v1 calls ("incomplete")."""
        counts = self.status_counts()
        direct = counts["needs-migration"]
        review = counts["review"]
        unread = f"{len(self.not_read)} candidate file(s) not read"
        also = f"; {unread}" if self.not_read else ""
        if direct:
            return "legacy", (
                f"v1 still in use: {len(self.findings)} finding(s) in {direct} file(s) need migration"
                + (f", {review} file(s) need review" if review else "") + also
            )
        if review:
            return "review", f"no direct v1 call left; {review} file(s) need review (indirect signals only)" + also
        if self.not_read:
            return "incomplete", f"{unread}, so no verdict of clean (listed under not_read)"
        kept = counts["kept-v1"]
        return "clean", "no unresolved v1 usage" + (f" ({kept} file(s) kept on v1 on purpose)" if kept else "")
