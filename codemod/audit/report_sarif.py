"""SARIF 2.1.0 report for code-scanning tools: one result per unresolved finding, suppressions kept apart."""
from __future__ import annotations

import json
from typing import Any

from codemod.audit.catalogue import catalogue, rule_url
from codemod.audit.model import AuditReport

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {"high": "error", "medium": "warning", "low": "note"}


def to_dict(report: AuditReport) -> dict[str, Any]:
    cat = catalogue()
    rule_ids = sorted(cat.rules)
    index = {rid: i for i, rid in enumerate(rule_ids)}
    rules = []
    for rid in rule_ids:
        r = cat.rules[rid]
        rules.append({
            "id": rid,
            "name": r.name,
            "helpUri": rule_url(rid),
            "shortDescription": {"text": r.summary},
            "fullDescription": {"text": f"{r.summary}. Class: {r.rule_class}."},
            "help": {"text": f"v2 remedy: {r.remedy}",
                     "markdown": f"**v2 remedy:** {r.remedy}\n\n{'Fixed by `v1bridge rewrite` in Python.' if r.fixable else 'Not fixed automatically.'}"},
            "defaultConfiguration": {"level": LEVEL[r.severity]},
            "properties": {"class": r.rule_class, "severity": r.severity, "fixable": r.fixable,
                           "tags": ["v1-migration", r.rule_class], "problem.severity": LEVEL[r.severity]},
        })
    results = []
    for f in report.findings + report.suppressed:
        result: dict[str, Any] = {
            "ruleId": f.rule,
            "level": LEVEL.get(f.severity, "warning"),
            "message": {"text": f.message},  # the remedy is the rule's help, shown once beside it
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": f.path, "uriBaseId": "SRCROOT"},
                    "region": {"startLine": f.line, "startColumn": f.column, "snippet": {"text": f.source_line}},
                }
            }],
            "partialFingerprints": {"v1bridge/v1": f.fingerprint},
            "properties": {"class": f.rule_class, "kind": f.kind, "fixable": f.fixable,
                           **({"route": f.route} if f.route else {}),
                           **({"v2Target": f.v2_target} if f.v2_target else {})},
        }
        if f.related:
            result["relatedLocations"] = [{
                "id": i,
                "physicalLocation": {"artifactLocation": {"uri": path, "uriBaseId": "SRCROOT"},
                                     "region": {"startLine": line}},
                "message": {"text": what},
            } for i, (path, line, what) in enumerate(f.related, start=1)]
        if f.rule in index:
            result["ruleIndex"] = index[f.rule]
        if f.baseline is not None:
            result["baselineState"] = f.baseline
        if f.suppressed:
            result["suppressions"] = [{
                "kind": "inSource",
                "status": "accepted",
                "justification": {"keep-v1": "kept on v1 on purpose", "ignore": "false positive",
                                  "compat": "v2 through the compat module"}[f.suppressed] + f" ({f.marker})",
            }]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "v1bridge", "version": "0.1.0", "semanticVersion": "0.1.0",
                                "informationUri": "https://github.com/v1bridge/v1bridge", "rules": rules}},
            "originalUriBaseIds": {"SRCROOT": {"description": {"text": "the audited folder"}}},
            "results": results,
            # candidate files not read: a code-scanning tool shows them as the run's warnings
            "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": [
                {"level": "warning", "message": {"text": f"not read: {reason}"},
                 "locations": [{"physicalLocation": {"artifactLocation": {"uri": path, "uriBaseId": "SRCROOT"}}}]}
                for path, reason in report.not_read]}],
            "columnKind": "unicodeCodePoints",
            "properties": {"verdict": report.verdict()[0],
                           "keptV1": sum(f.suppressed == "keep-v1" for f in report.suppressed),
                           "ignored": sum(f.suppressed == "ignore" for f in report.suppressed),
                           "filesKeptV1": report.status_counts()["kept-v1"],
                           "filesIgnored": report.status_counts()["ignored"],
                           "compatCalls": sum(len(fr.compat) for fr in report.files)},
        }],
    }


def render(report: AuditReport) -> str:
    return json.dumps(to_dict(report), indent=2, ensure_ascii=False) + "\n"
