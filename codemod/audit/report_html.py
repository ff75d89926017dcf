"""HTML report: one self-contained file a platform team can read at a thousand findings.

No external asset: inline CSS, one inline script allowed by its sha256 in the page's
Content-Security-Policy (nothing can be fetched: `default-src 'none'`). The page has

- the verdict, the counts, and two bar charts (findings by class, by route) drawn with
  HTML bars whose labels wrap instead of being clipped;
- the findings grouped by file (default) or by rule, each group a collapsible section with
  its count, sortable by count or name;
- one filter box (path, rule, route, message) and class / severity / language selects that
  narrow every group at once, and column sorting in each group's table;
- the files by status.

Without JavaScript every group is open and every finding listed: the script only sorts,
filters and regroups what is already in the page.
"""
from __future__ import annotations

import base64
import hashlib
from html import escape

from codemod.audit.catalogue import catalogue, rule_url
from codemod.audit.model import STATUSES, AuditFinding, AuditReport

COLOURS = {"loud": "#c0392b", "quiet": "#b9770e", "removed": "#6c3483", "retiring": "#1f618d"}
CLASSES = ("loud", "removed", "quiet", "retiring")

SCRIPT = r"""
(function () {
  const $ = (s, r) => (r || document).querySelector(s);
  const $$ = (s, r) => Array.from((r || document).querySelectorAll(s));
  const views = { file: $('#by-file'), rule: $('#by-rule') };
  const q = $('#q'), cls = $('#f-class'), sev = $('#f-severity'), lang = $('#f-language');
  function apply() {
    const text = q.value.trim().toLowerCase();
    let shown = 0;
    for (const view of Object.values(views)) {
      for (const group of $$('details.group', view)) {
        let n = 0;
        for (const row of $$('tr.finding', group)) {
          const ok = (!text || row.dataset.search.includes(text))
            && (!cls.value || row.dataset.class === cls.value)
            && (!sev.value || row.dataset.severity === sev.value)
            && (!lang.value || row.dataset.language === lang.value);
          row.hidden = !ok;
          if (ok) n++;
        }
        group.hidden = n === 0;
        $('.shown', group).textContent = n;
        if (view === views[current]) shown += n;
      }
    }
    $('#shown').textContent = shown;
  }
  let current = 'file';
  function show(view) {
    current = view;
    for (const [name, el] of Object.entries(views)) el.hidden = name !== view;
    for (const b of $$('button[data-view]')) b.setAttribute('aria-pressed', String(b.dataset.view === view));
    apply();
  }
  for (const b of $$('button[data-view]')) b.addEventListener('click', () => show(b.dataset.view));
  for (const el of [q, cls, sev, lang]) el.addEventListener('input', apply);
  $('#expand').addEventListener('click', () => $$('details.group').forEach(d => d.open = true));
  $('#collapse').addEventListener('click', () => $$('details.group').forEach(d => d.open = false));
  $('#group-sort').addEventListener('input', (e) => {
    for (const view of Object.values(views)) {
      const groups = $$('details.group', view);
      groups.sort((a, b) => e.target.value === 'name'
        ? a.dataset.name.localeCompare(b.dataset.name)
        : (+b.dataset.count - +a.dataset.count) || a.dataset.name.localeCompare(b.dataset.name));
      groups.forEach(g => view.appendChild(g));
    }
  });
  for (const th of $$('th[data-key]')) {
    th.tabIndex = 0;
    const sort = () => {
      const table = th.closest('table'), body = table.tBodies[0], key = th.dataset.key;
      const dir = th.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
      $$('th[data-key]', table).forEach(h => h.removeAttribute('aria-sort'));
      th.setAttribute('aria-sort', dir === 1 ? 'ascending' : 'descending');
      const num = key === 'line';
      Array.from(body.rows).sort((a, b) => {
        const x = a.dataset[key], y = b.dataset[key];
        return dir * (num ? (+x - +y) : x.localeCompare(y, undefined, { numeric: true }));
      }).forEach(r => body.appendChild(r));
    };
    th.addEventListener('click', sort);
    th.addEventListener('keydown', (e) => { if (e.key === 'Enter') sort(); });
  }
  if ($$('details.group', views.file).length > 12) $$('details.group').forEach((d, i) => { d.open = i < 12; });
  show('file');
})();
"""

CSS = """
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;margin:0 auto;padding:1.5em 2em;max-width:1400px;color:#222;line-height:1.35}
#verdict{font-size:1.3em;padding:.6em 1em;border-left:8px solid var(--verdict);background:#f6f6f6;margin:.5em 0}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(380px,1fr));gap:1.5em;margin:1em 0}
figure{margin:0}figcaption{font-weight:bold;margin-bottom:.4em}
.bars{display:grid;grid-template-columns:minmax(8em,max-content) 1fr;gap:3px 8px;align-items:center;font-size:.85em}
.bars .label{overflow-wrap:anywhere;font-family:ui-monospace,monospace}
.bars .track{display:flex;align-items:center;gap:6px;min-width:0}
.bars .bar{height:14px;border-radius:2px;min-width:2px}
.controls{position:sticky;top:0;background:#fff;padding:.6em 0;border-bottom:1px solid #ddd;display:flex;flex-wrap:wrap;
 gap:.5em;align-items:center;z-index:1}
.controls input[type=search]{flex:1 1 16em;min-width:10em;padding:.35em}
button[aria-pressed=true]{font-weight:bold;background:#dde}
details.group{border:1px solid #ccc;border-radius:4px;margin:.5em 0}
details.group>summary{cursor:pointer;padding:.4em .7em;background:#f4f4f4;overflow-wrap:anywhere}
details.group>summary .count{float:right;color:#555}
table{border-collapse:collapse;width:100%;table-layout:fixed}
td,th{border-top:1px solid #e2e2e2;padding:4px 6px;vertical-align:top;text-align:left;overflow-wrap:anywhere;
 word-break:break-word}
th{background:#fafafa;font-weight:600}th[data-key]{cursor:pointer}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
col.c-loc{width:16%}section#by-file col.c-loc{width:6em}col.c-rule{width:5em}col.c-sev{width:9em}col.c-route{width:18%}col.c-msg{width:auto}col.c-fix{width:24%}
code{font-family:ui-monospace,monospace;font-size:.85em;white-space:pre-wrap}
.tag{display:inline-block;padding:0 .4em;border-radius:3px;color:#fff;font-size:.8em}
.muted{color:#666}
table.plain{width:auto;table-layout:auto}
"""


def _bars(title: str, chart_id: str, items: list[tuple[str, int, str]]) -> str:
    """A horizontal bar chart in HTML: each label in full (it wraps), a bar and its count."""
    if not items:
        return f'<figure id="{chart_id}"><figcaption>{escape(title)}</figcaption><p>none</p></figure>'
    top = max(n for _, n, _ in items) or 1
    rows = []
    for label, n, colour in items:
        rows.append(f'<span class="label">{escape(label)}</span><span class="track">'
                    f'<span class="bar" data-label="{escape(label)}" data-count="{n}" '
                    f'style="width:{max(0.5, 100 * n / top):.1f}%;background:{colour}"></span><span>{n}</span></span>')
    return (f'<figure id="{chart_id}"><figcaption>{escape(title)}</figcaption>'
            f'<div class="bars">{"".join(rows)}</div></figure>')


# chart labels for findings without a route: words for readers, not the finding kinds' internal names
KIND_LABELS = {"base-url": "v1 base addresses", "body-field": "request body fields",
               "response-field": "fields read from answers", "param": "query parameters", "call": "calls",
               "error-read": "error messages read", "indirect": "values passed to a call"}


def _rule_link(f: AuditFinding) -> str:
    """The rule ID as a link to its page, its title on hover."""
    rule = catalogue().rules.get(f.rule)
    title = f"{f.rule} {f.name}" + (f": {rule.summary}" if rule is not None else "")
    return (f'<a class="tag" href="{escape(rule_url(f.rule))}" title="{escape(title)}" style="background:{COLOURS.get(f.rule_class, "#555")}">{escape(f.rule)}</a>')


def _via(f: AuditFinding) -> str:
    """Where a call through a helper gets its base (helper first, base last): why a neutral path is v1."""
    return "".join(f'<br><span class="muted via">via <code>{escape(path)}:{line}</code> {escape(what)}</span>'
                   for path, line, what in f.related)


def _row(f: AuditFinding, first: str) -> str:
    search = " ".join((f.path, f.rule, f.name, f.route or "", f.message, f.source_line, f.language)).lower()
    # grouped by file: the group names the file, the row its line; grouped by rule: the full location
    where = (f"<code>{f.line}:{f.column}</code>" if first == "path"
             else f"<code>{escape(f.path)}:{f.line}:{f.column}</code>")
    new = ' <span class="tag" style="background:#117a65">new</span>' if f.baseline == "new" else ""
    return (
        f'<tr class="finding {escape(f.rule_class)}" data-path="{escape(f.path)}" data-line="{f.line}" '
        f'data-rule="{escape(f.rule)}" data-class="{escape(f.rule_class)}" data-severity="{escape(f.severity)}" '
        f'data-language="{escape(f.language)}" data-route="{escape(f.route or "")}" data-search="{escape(search)}">'
        f"<td>{where}</td>"
        f"<td>{_rule_link(f)}</td>"
        f"<td>{escape(f.rule_class)}<br><span class=muted>{escape(f.severity)}"
        f"{', fixable' if f.fixable else ''}</span>{new}</td>"
        f"<td><code>{escape(f.route or '')}</code></td>"
        f"<td>{escape(f.message)}<br><code>{escape(f.source_line)}</code>{_via(f)}</td>"
        f"<td>{escape(f.remedy)}</td></tr>"
    )


def _table(findings: list[AuditFinding], first: str) -> str:
    head = ("<colgroup><col class=c-loc><col class=c-rule><col class=c-sev><col class=c-route><col class=c-msg>"
            "<col class=c-fix></colgroup><thead><tr>"
            f'<th data-key="{"line" if first == "path" else "path"}">{"line" if first == "path" else "location"}</th>'
            '<th data-key="rule">rule</th><th data-key="class">class</th><th data-key="route">route</th>'
            "<th>finding</th><th>v2 remedy</th></tr></thead>")
    return f"<table>{head}<tbody>{''.join(_row(f, first) for f in findings)}</tbody></table>"


def _groups(view_id: str, groups: dict[str, list[AuditFinding]], label, first: str, hidden: bool) -> str:
    parts = [f'<section id="{view_id}"{" hidden" if hidden else ""}>']
    for key, items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        parts.append(
            f'<details class="group" open data-name="{escape(key)}" data-count="{len(items)}">'
            f'<summary>{label(key, items)}<span class="count"><span class="shown">{len(items)}</span> / {len(items)}'
            f"</span></summary>{_table(items, first)}</details>")
    parts.append("</section>")
    return "".join(parts)


def render(report: AuditReport) -> str:
    verdict, sentence = report.verdict()
    findings = report.findings
    suppressed = report.suppressed
    by_class: dict[str, int] = {}
    by_route: dict[str, int] = {}
    by_file: dict[str, list[AuditFinding]] = {}
    by_rule: dict[str, list[AuditFinding]] = {}
    for f in findings:
        by_class[f.rule_class] = by_class.get(f.rule_class, 0) + 1
        key = f.route or KIND_LABELS.get(f.kind, "other findings")
        by_route[key] = by_route.get(key, 0) + 1
        by_file.setdefault(f.path, []).append(f)
        by_rule.setdefault(f.rule, []).append(f)
    class_items = [(c, by_class[c], COLOURS[c]) for c in CLASSES if c in by_class]
    route_items = [(r, n, "#2e86c1") for r, n in sorted(by_route.items(), key=lambda kv: (-kv[1], kv[0]))[:25]]
    counts = report.status_counts()
    status_by_path = {fr.path: fr.status for fr in report.api_files}

    def file_label(path: str, items: list[AuditFinding]) -> str:
        return f"<code>{escape(path)}</code> <span class=muted>{escape(status_by_path.get(path) or '')}</span>"

    def rule_label(rule: str, items: list[AuditFinding]) -> str:
        f = items[0]
        return (f"{_rule_link(f)} "
                f"{escape(f.name)} <span class=muted>({escape(f.rule_class)}, {escape(f.severity)})</span>")

    options = {
        "class": sorted({f.rule_class for f in findings}),
        "severity": [s for s in ("high", "medium", "low") if any(f.severity == s for f in findings)],
        "language": sorted({f.language for f in findings}),
    }
    selects = "".join(
        f'<label>{name} <select id="f-{name}"><option value="">all</option>'
        + "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in values) + "</select></label>"
        for name, values in options.items())
    status_rows = "".join(f"<tr><td>{s}</td><td>{counts[s]}</td></tr>" for s in STATUSES)
    file_rows = "".join(f"<tr><td><code>{escape(fr.path)}</code></td><td>{escape(fr.status or '')}</td>"
                        f"<td>{escape(fr.language)}</td><td>{fr.count(None)}</td></tr>"
                        for fr in report.api_files)
    colour = {"legacy": "#c0392b", "review": "#d68910", "incomplete": "#d68910", "clean": "#1e8449"}[verdict]
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode()
    baseline = ""
    if report.baseline is not None:
        b = report.baseline
        baseline = (f'<p id="baseline">baseline: <strong>{b["new"]} new</strong>; {b["matched"]} of {b["entries"]} '
                    f'known still present, {b["fixed"]} fixed since.</p>')
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; img-src data:">
<title>v1bridge audit: {escape(verdict)}</title>
<style>{CSS}</style></head><body>
<h1>v1bridge audit</h1>
<p id="verdict" data-verdict="{escape(verdict)}" style="--verdict:{colour}"><strong>{escape(verdict.upper())}</strong> {escape(sentence)}</p>
<p id="counts">{len(findings)} unresolved finding(s) in {len(by_file)} file(s); {sum(f.fixable for f in findings)} fixable by rewrite;
{sum(f.suppressed == 'keep-v1' for f in suppressed)} kept on v1 on purpose;
{sum(f.suppressed == 'ignore' for f in suppressed)} marked false positive; \
{sum(len(fr.compat) for fr in report.files)} call(s) through the compat module; {report.scanned} file(s) scanned.</p>
{baseline}
<div class="charts">{_bars("Findings by class", "chart-class", class_items)}
{_bars("Findings by route (top 25)", "chart-route", route_items)}</div>
<h2>Findings</h2>
<div class="controls" role="search">
<button type="button" data-view="file" aria-pressed="true">by file ({len(by_file)})</button>
<button type="button" data-view="rule" aria-pressed="false">by rule ({len(by_rule)})</button>
<input type="search" id="q" placeholder="filter: path, rule, route, message, code" aria-label="filter findings">
{selects}
<label>groups <select id="group-sort"><option value="count">most findings first</option><option value="name">by name</option></select></label>
<button type="button" id="expand">expand all</button><button type="button" id="collapse">collapse all</button>
<span><span id="shown">{len(findings)}</span> shown</span>
</div>
{_groups("by-file", by_file, file_label, "path", False)}
{_groups("by-rule", by_rule, rule_label, "rule", True)}
<h2>Files by status</h2><table id="statuses" class="plain"><tr><th>status</th><th>files</th></tr>{status_rows}</table>
<h2>Files</h2><table id="files" class="plain"><tr><th>file</th><th>status</th><th>language</th><th>findings</th></tr>{file_rows}</table>
<script>{SCRIPT}</script>
</body></html>
"""
