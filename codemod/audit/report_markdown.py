"""Markdown report, sized for a pull-request comment: verdict, counts, findings table, file statuses."""
from __future__ import annotations

from codemod.audit.model import STATUSES, AuditReport

MAX_ROWS = 200  # a PR comment has a size limit; the rest is summarised


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(report: AuditReport) -> str:
    verdict, sentence = report.verdict()
    icon = {"legacy": ":x:", "review": ":warning:", "incomplete": ":warning:", "clean": ":white_check_mark:"}[verdict]
    findings = report.findings
    suppressed = report.suppressed
    counts = report.status_counts()
    out = [f"## {icon} v1bridge audit: **{verdict}**", "", sentence, ""]
    out += ["| status | files |", "|---|---:|"]
    out += [f"| {s} | {counts[s]} |" for s in STATUSES]
    out += ["", f"**{len(findings)}** unresolved finding(s), {sum(f.fixable for f in findings)} fixable by "
                f"`v1bridge rewrite`; {sum(f.suppressed == 'keep-v1' for f in suppressed)} kept on v1 on purpose; "
                f"{sum(f.suppressed == 'ignore' for f in suppressed)} marked false positive; "
                f"{sum(len(fr.compat) for fr in report.files)} call(s) through the compat module.", ""]
    if report.baseline is not None:
        b = report.baseline
        out += [f"Baseline: **{b['new']} new** finding(s) (listed first); {b['matched']} of {b['entries']} known "
                f"finding(s) still present, {b['fixed']} fixed since.", ""]
        findings = sorted(findings, key=lambda f: f.baseline != "new")
    if findings:
        out += ["| file | rule | class | severity | fixable | finding | v2 remedy |", "|---|---|---|---|---|---|---|"]
        for f in findings[:MAX_ROWS]:
            new = " **new**" if f.baseline == "new" else ""
            out.append(f"| `{_cell(f.path)}:{f.line}:{f.column}` | {f.rule}{new} | {f.rule_class} | {f.severity} | "
                       f"{'yes' if f.fixable else 'no'} | {_cell(f.message)} | {_cell(f.remedy)} |")
        if len(findings) > MAX_ROWS:
            out.append(f"\n_{len(findings) - MAX_ROWS} more finding(s) not shown; run `v1bridge audit --format json`._")
        out.append("")
    if report.not_read:
        out += [f"{len(report.not_read)} candidate file(s) not read:", ""]
        out += [f"- `{_cell(p)}`: {_cell(reason)}" for p, reason in report.not_read[:MAX_ROWS]] + [""]
    files = [f for f in report.api_files if f.status in ("needs-migration", "review", "v2-compat", "kept-v1",
                                                          "ignored")]
    if files:
        out += ["<details><summary>Files</summary>", "", "| file | status |", "|---|---|"]
        out += [f"| `{_cell(f.path)}` | {f.status} |" for f in files]
        out += ["", "</details>", ""]
    return "\n".join(out)
