"""From raw findings to audit findings (catalogue + markers) and a status per file."""
from __future__ import annotations

from codemod.audit.catalogue import Catalogue
from codemod.audit.markers import MarkerMap
from codemod.audit.model import AuditFinding, FileResult, RawFinding, Signals


def enrich(raw: list[RawFinding], path: str, language: str, cat: Catalogue, markers: MarkerMap) -> list[AuditFinding]:
    out = []
    for f in raw:
        rule = cat.rules.get(f.rule)
        marker = markers.lookup(f.line) if markers else None
        out.append(AuditFinding(
            rule=f.rule,
            name=rule.name if rule else f.rule,
            rule_class=rule.rule_class if rule else "loud",
            severity=rule.severity if rule else "medium",
            path=path,
            line=f.line,
            column=f.column,
            source_line=f.source_line.strip(),
            message=f.message,
            remedy=rule.remedy if rule else "",
            # the rewrite only touches Python; elsewhere nothing is fixed automatically. A rule it cannot fix in
            # place is fixed when the call goes to v2 through the compat module (issue 21's state 2)
            fixable=bool(f.fixable and language == "python"
                         and ((rule.fixable if rule else True) or getattr(f, "compat", False))),
            kind=f.kind,
            route=f.route,
            v2_target=f.v2_target,
            language=language,
            # through a helper whose request a rewrite wrapped in the run-time translation (codemod.decide)
            suppressed=marker.kind if marker else ("compat" if f.kind == "compat-helper" else None),
            marker=marker.text if marker else ("v1bridge_compat.call_v1" if f.kind == "compat-helper" else None),
        ))
    return out


def file_status(findings: list[AuditFinding], signals: Signals) -> str | None:
    """needs-migration | review | kept-v1 | ignored | v2-compat | v2 | not-control-plane | None (does not talk to
    the API).

    Unresolved findings decide first (direct ones: needs-migration; only
    indirect ones: review). A file whose every finding carries a marker is
    kept-v1 when any marker says keep-v1, else ignored. With no v1 finding,
    the v2 host or v2 paths make it v2, the serverless runtime alone makes it
    not-control-plane.
    """
    unresolved = [f for f in findings if f.suppressed is None]
    if unresolved:
        return "review" if all(f.kind == "indirect" for f in unresolved) else "needs-migration"
    if any(f.suppressed == "keep-v1" for f in findings):
        return "kept-v1"
    if any(f.suppressed == "ignore" for f in findings):
        return "ignored"
    if any(f.suppressed == "compat" for f in findings):
        return "v2-compat"
    if signals.uses_v2:
        return "v2"
    if signals.serverless_runtime:
        return "not-control-plane"
    if signals.uses_v1:
        return "review"
    return None


def finish(result: FileResult) -> FileResult:
    result.status = file_status(result.findings, result.signals)
    if result.compat and result.status in (None, "v2", "not-control-plane", "review") and not result.unresolved:
        result.status = "v2-compat"  # v2 code that keeps a v1 behaviour through the compat module
    if result.file_marker and not result.unresolved and result.status in (None, "v2", "not-control-plane"):
        # a file marked as a whole is listed as such, also when nothing in it is a finding (its own routes,
        # a fixture): the marker is honoured, not the file dropped
        result.status = "kept-v1" if result.file_marker == "keep-v1" else "ignored"
    return result
