"""Text report: verdict first; rich tables on a terminal, plain lines when piped or written to a file."""
from __future__ import annotations

import io

from codemod.audit.model import STATUSES, AuditReport


def render_plain(report: AuditReport) -> str:
    verdict, sentence = report.verdict()
    lines = [f"verdict: {verdict} - {sentence}"]
    findings = report.findings
    suppressed = report.suppressed
    counts = report.status_counts()
    lines.append(
        f"files: {report.scanned} scanned, " + (f"{len(report.not_read)} not read, " if report.not_read else "")
        + f"{len(report.api_files)} talk to the API ("
        + ", ".join(f"{s} {counts[s]}" for s in STATUSES) + ")"
    )
    lines.append(
        f"findings: {len(findings)} unresolved ({sum(f.fixable for f in findings)} fixable by rewrite), "
        f"{sum(f.suppressed == 'keep-v1' for f in suppressed)} kept on v1 on purpose, "
        f"{sum(f.suppressed == 'ignore' for f in suppressed)} marked false positive, "
        f"{sum(len(fr.compat) for fr in report.files)} call(s) through the compat module"
    )
    if report.baseline is not None:
        b = report.baseline
        lines.append(f"baseline: {b['new']} new finding(s); {b['matched']} of {b['entries']} known finding(s) "
                     f"still present, {b['fixed']} fixed since")
    if findings:
        lines.append("")
        for f in findings:
            fix = " [fixable]" if f.fixable else ""
            fix += " [new]" if f.baseline == "new" else ""
            lines.append(f"{f.path}:{f.line}:{f.column}: {f.rule} {f.rule_class}/{f.severity}{fix} {f.message}")
            lines.append(f"    {f.source_line}")
            for path, line, what in f.related:
                lines.append(f"    via {path}:{line}: {what}")
            lines.append(f"    remedy: {f.remedy}")
    if report.api_files:
        lines.append("")
        lines.append("files:")
        for fr in report.api_files:
            lines.append(f"  {fr.status:<18} {fr.path}")
    not_read = {p for p, _ in report.not_read}
    for fr in report.errors:
        if fr.path not in not_read:
            lines.append(f"error: {fr.path}: {fr.error}")
    lines.extend(f"not read: {path}: {reason}" for path, reason in report.not_read)
    return "\n".join(lines) + "\n"


def render_rich(report: AuditReport, width: int = 120) -> str:
    from rich.console import Console
    from rich.table import Table

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=width)
    verdict, sentence = report.verdict()
    style = {"legacy": "bold red", "review": "bold yellow", "incomplete": "bold yellow", "clean": "bold green"}[verdict]
    console.print(f"[{style}]{verdict.upper()}[/] {sentence}")
    counts = report.status_counts()
    summary = Table(title="files", show_header=True)
    for s in STATUSES:
        summary.add_column(s, justify="right")
    summary.add_row(*(str(counts[s]) for s in STATUSES))
    console.print(summary)
    findings = report.findings
    if findings:
        table = Table(title=f"{len(findings)} unresolved finding(s)", show_lines=False)
        for col in ("location", "rule", "class", "sev", "fix", "finding", "remedy"):
            table.add_column(col, overflow="fold")
        for f in findings:
            table.add_row(f"{f.path}:{f.line}:{f.column}", f.rule, f.rule_class, f.severity,
                          "yes" if f.fixable else "", f.message, f.remedy)
        console.print(table)
    suppressed = report.suppressed
    if report.baseline is not None:
        b = report.baseline
        console.print(f"baseline: [bold]{b['new']} new[/] finding(s); {b['matched']} of {b['entries']} known "
                      f"still present, {b['fixed']} fixed since")
    console.print(
        f"kept on v1 on purpose: {sum(f.suppressed == 'keep-v1' for f in suppressed)}; "
        f"marked false positive: {sum(f.suppressed == 'ignore' for f in suppressed)}; "
        f"skipped: {len(report.skipped)}"
    )
    not_read = {p for p, _ in report.not_read}
    for fr in report.errors:
        if fr.path not in not_read:
            console.print(f"[red]error[/] {fr.path}: {fr.error}")
    for path, reason in report.not_read:
        console.print(f"[yellow]not read[/] {path}: {reason}")
    return buffer.getvalue()


def render(report: AuditReport, terminal: bool = False) -> str:
    return render_rich(report) if terminal else render_plain(report)
