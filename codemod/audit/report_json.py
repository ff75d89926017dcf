"""JSON report: a stable, versioned schema (documented in docs/audit.md)."""
from __future__ import annotations

import json
from typing import Any

from codemod.audit.catalogue import catalogue
from codemod.audit.model import SCHEMA_ID, SCHEMA_VERSION, STATUSES, AuditReport

FINDING_KEYS = ("rule", "name", "class", "severity", "path", "line", "column", "fixable", "message", "remedy",
                "kind", "route", "v2_target", "language", "source_line", "fingerprint")


def _finding(f, with_marker: bool = False) -> dict[str, Any]:
    data = f.to_json()
    out = {k: data[k] for k in FINDING_KEYS}
    # where a call through a helper gets its base (helper first, base last)
    out["related"] = [{"path": p, "line": line, "message": what} for p, line, what in f.related]
    if data["baseline"] is not None:
        out["baseline"] = data["baseline"]
    if with_marker:
        out["suppressed"] = data["suppressed"]
        out["marker"] = data["marker"]
    return out


def to_dict(report: AuditReport) -> dict[str, Any]:
    findings = report.findings
    suppressed = report.suppressed
    by_class = {c: 0 for c in ("loud", "quiet", "removed")}
    by_severity = {s: 0 for s in ("high", "medium", "low")}
    by_rule: dict[str, int] = {}
    for f in findings:
        by_class[f.rule_class] = by_class.get(f.rule_class, 0) + 1
        by_severity[f.severity] = by_severity.get(f.severity, 0) + 1
        by_rule[f.rule] = by_rule.get(f.rule, 0) + 1
    verdict, sentence = report.verdict()
    cat = catalogue()
    return {
        "schema": SCHEMA_ID,
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "v1bridge", "version": "0.1.0"},
        "kind": "code",
        "verdict": verdict,
        "verdict_text": sentence,
        "summary": {
            "files_scanned": report.scanned,
            "files_talking_to_api": len(report.api_files),
            "findings": len(findings),
            "fixable": sum(1 for f in findings if f.fixable),
            "kept_v1": sum(1 for f in suppressed if f.suppressed == "keep-v1"),
            "ignored": sum(1 for f in suppressed if f.suppressed == "ignore"),
            "compat": sum(1 for f in suppressed if f.suppressed == "compat"),  # v1 findings inside compat calls
            "compat_calls": sum(len(fr.compat) for fr in report.files),  # calls through v1bridge_compat
            "by_class": by_class,
            "by_severity": by_severity,
            "by_rule": dict(sorted(by_rule.items())),
            "by_status": {s: report.status_counts()[s] for s in STATUSES},
            "skipped": len(report.skipped),
            "not_read": len(report.not_read),
            "errors": len(report.errors),
        },
        "scope": report.scope,
        "selection": {"select": list(report.selection[0]), "ignore": list(report.selection[1])},
        **({"baseline": report.baseline} if report.baseline is not None else {}),
        "findings": [_finding(f) for f in findings],
        "suppressed": [_finding(f, with_marker=True) for f in suppressed],
        "files": [
            {
                "path": fr.path,
                "status": fr.status,
                "language": fr.language,
                "findings": fr.count(None),
                "kept_v1": fr.count("keep-v1"),
                "ignored": fr.count("ignore"),
                "compat": len(fr.compat),
            }
            for fr in report.api_files
        ],
        "rules": {
            rid: {"name": r.name, "class": r.rule_class, "severity": r.severity, "summary": r.summary,
                  "remedy": r.remedy, "fixable": r.fixable}
            for rid, r in sorted(cat.rules.items()) if rid in by_rule or any(f.rule == rid for f in suppressed)
        },
        "skipped": [{"path": p, "reason": reason} for p, reason in report.skipped],
        "errors": [{"path": fr.path, "error": fr.error} for fr in report.errors],
        "not_read": [{"path": p, "reason": reason} for p, reason in report.not_read],
    }


def render(report: AuditReport) -> str:
    return json.dumps(to_dict(report), indent=2, ensure_ascii=False) + "\n"
