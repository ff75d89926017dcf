"""HTML report: one self-contained file (inline CSS and SVG, no script, no external asset)."""
from __future__ import annotations

from html import escape

from codemod.audit.model import STATUSES, AuditReport

COLOURS = {"loud": "#c0392b", "quiet": "#d68910", "removed": "#6c3483"}


def _bars(title: str, chart_id: str, items: list[tuple[str, int, str]]) -> str:
    """A horizontal bar chart as inline SVG; each bar carries its label and count as text."""
    if not items:
        return f'<figure id="{chart_id}"><figcaption>{escape(title)}</figcaption><p>none</p></figure>'
    top = max(n for _, n, _ in items) or 1
    row, label_w, bar_w = 22, 260, 360
    height = row * len(items) + 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{escape(title)}" '
             f'width="{label_w + bar_w + 60}" height="{height}">']
    for i, (label, n, colour) in enumerate(items):
        y = 5 + i * row
        w = max(2, int(bar_w * n / top))
        parts.append(f'<text x="{label_w - 6}" y="{y + 14}" text-anchor="end" font-size="12">{escape(label)}</text>')
        parts.append(f'<rect class="bar" data-label="{escape(label)}" data-count="{n}" x="{label_w}" y="{y}" '
                     f'width="{w}" height="{row - 6}" fill="{colour}"/>')
        parts.append(f'<text x="{label_w + w + 4}" y="{y + 14}" font-size="12">{n}</text>')
    parts.append("</svg>")
    return f'<figure id="{chart_id}"><figcaption>{escape(title)}</figcaption>{"".join(parts)}</figure>'


def render(report: AuditReport) -> str:
    verdict, sentence = report.verdict()
    findings = report.findings
    suppressed = report.suppressed
    by_class: dict[str, int] = {}
    by_route: dict[str, int] = {}
    for f in findings:
        by_class[f.rule_class] = by_class.get(f.rule_class, 0) + 1
        key = f.route or f"({f.kind})"
        by_route[key] = by_route.get(key, 0) + 1
    class_items = [(c, by_class[c], COLOURS[c]) for c in ("loud", "quiet", "removed") if c in by_class]
    route_items = [(r, n, "#2e86c1") for r, n in sorted(by_route.items(), key=lambda kv: (-kv[1], kv[0]))[:25]]
    counts = report.status_counts()
    rows = "".join(
        f"<tr class=\"finding {escape(f.rule_class)}\"><td><code>{escape(f.path)}:{f.line}:{f.column}</code></td>"
        f"<td>{escape(f.rule)}</td><td>{escape(f.rule_class)}</td><td>{escape(f.severity)}</td>"
        f"<td>{'yes' if f.fixable else 'no'}</td><td>{escape(f.message)}<br><code>{escape(f.source_line)}</code></td>"
        f"<td>{escape(f.remedy)}</td></tr>"
        for f in findings
    )
    status_rows = "".join(f"<tr><td>{s}</td><td>{counts[s]}</td></tr>" for s in STATUSES)
    file_rows = "".join(f"<tr><td><code>{escape(fr.path)}</code></td><td>{escape(fr.status or '')}</td></tr>"
                        for fr in report.api_files)
    colour = {"legacy": "#c0392b", "review": "#d68910", "clean": "#1e8449"}[verdict]
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>v1bridge audit: {escape(verdict)}</title>
<style>
body{{font-family:system-ui,sans-serif;margin:2em;color:#222}}
#verdict{{font-size:1.4em;padding:.6em 1em;border-left:8px solid {colour};background:#f6f6f6}}
table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #ccc;padding:4px 8px;vertical-align:top;text-align:left}}
figure{{display:inline-block;margin:1em 2em 1em 0}}figcaption{{font-weight:bold}}code{{font-size:.9em}}
</style></head><body>
<h1>v1bridge audit</h1>
<p id="verdict" data-verdict="{escape(verdict)}"><strong>{escape(verdict.upper())}</strong> {escape(sentence)}</p>
<p id="counts">{len(findings)} unresolved finding(s); {sum(f.fixable for f in findings)} fixable by rewrite;
{sum(f.suppressed == 'keep-v1' for f in suppressed)} kept on v1 on purpose;
{sum(f.suppressed == 'ignore' for f in suppressed)} marked false positive; {report.scanned} file(s) scanned.</p>
{_bars("Findings by class", "chart-class", class_items)}
{_bars("Findings by route", "chart-route", route_items)}
<h2>Files by status</h2><table id="statuses"><tr><th>status</th><th>files</th></tr>{status_rows}</table>
<h2>Findings</h2>
<table id="findings"><tr><th>location</th><th>rule</th><th>class</th><th>severity</th><th>fixable</th><th>finding</th><th>v2 remedy</th></tr>
{rows}</table>
<h2>Files</h2><table id="files"><tr><th>file</th><th>status</th></tr>{file_rows}</table>
</body></html>
"""
