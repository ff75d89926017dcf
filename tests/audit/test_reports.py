"""Report formats and the CLI contract: JSON schema, SARIF 2.1.0, markdown, HTML in Chromium, text, exit codes."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from codemod.audit import report_html, report_markdown, report_sarif, report_text
from codemod.audit.engine import audit_paths
from tests.audit.conftest import SAMPLES, audit_json
from v1bridge.cli import main
from tests.audit.tools import OFFICIAL_SARIF_SCHEMA

ROOT = Path(__file__).resolve().parents[2]
SARIF_SCHEMA = Path(__file__).parent / "schemas" / "sarif-2.1.0-subset.json"


def test_json_schema_shape_is_stable():
    """Guards against silent changes to the documented JSON schema (docs/audit.md)."""
    data = audit_json(SAMPLES / "mixed_legacy")
    assert data["schema"] == "v1bridge.audit.code/1" and data["schema_version"] == 1
    assert set(data) == {"schema", "schema_version", "tool", "kind", "verdict", "verdict_text", "summary",
                         "findings", "suppressed", "files", "rules", "skipped", "errors", "scope", "selection",
                         "not_read"}
    for f in data["findings"]:
        assert {"rule", "class", "severity", "path", "line", "column", "fixable", "message", "fingerprint"} <= set(f)
        assert not f["path"].startswith("/"), "paths must be relative to the scanned root"
    for f in data["files"]:
        assert f["status"] in {"needs-migration", "review", "v2", "kept-v1", "ignored", "not-control-plane"}
    s = data["summary"]
    assert s["findings"] == len(data["findings"]) and sum(s["by_class"].values()) == s["findings"]
    assert s["by_status"]["needs-migration"] == 6 and s["by_status"]["not-control-plane"] == 1


def test_sarif_is_valid_and_usable_by_code_scanning():
    """Guards against SARIF that code-scanning tools reject: schema, ruleId, rules with help, suppressions."""
    report = audit_paths([str(SAMPLES / "markers")])
    sarif = report_sarif.to_dict(report)
    schema = json.loads(SARIF_SCHEMA.read_text())
    jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER).validate(sarif)
    run = sarif["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert all(r["help"]["text"].startswith("v2 remedy:") for r in rules)
    assert all(r["helpUri"] == f"https://v1bridge.readthedocs.io/en/latest/rules/#{r['id'].lower()}" for r in rules)
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        # the remedy is shown once: as the rule's help, not again in every message
        assert "Remedy" not in result["message"]["text"] and "remedy" not in result["message"]["text"]
    suppressed = [r for r in run["results"] if "suppressions" in r]
    assert len(suppressed) == 13 and len(run["results"]) == 16, "suppressed results must stay, marked in source"
    assert {s["suppressions"][0]["justification"].split(" (")[0] for s in suppressed} == \
        {"kept on v1 on purpose", "false positive"}


def test_html_links_each_rule_to_its_page_with_its_title_and_charts_speak_plainly(tmp_path):
    """Guards the HTML report's rule IDs (a link to the rule's page, its title on hover) and its chart labels
    (words, never an internal finding kind such as "(body-field)")."""
    client = tmp_path / "client.py"
    client.write_text('import requests\nAPI = "https://rest.runpod.io/v1"\n'
                      'def f(pid):\n    requests.post(f"{API}/pods", json={"imageName": "x", "gpuTypeIds": ["NVIDIA A40"]})\n'
                      '    return requests.get(f"{API}/pods/{pid}").json()["desiredStatus"]\n')
    page = report_html.render(audit_paths([str(tmp_path)]))
    assert ('<a class="tag" href="https://v1bridge.readthedocs.io/en/latest/rules/#q13" title="Q13 '
            'status-observed-not-desired: desiredStatus (intent: RUNNING, EXITED, TERMINATED) became status') in page
    assert 'data-label="v1 base addresses"' in page
    assert "(body-field)" not in page and "(base-url)" not in page




@pytest.mark.skipif(not OFFICIAL_SARIF_SCHEMA.exists(), reason="official SARIF schema not fetched (scripts/test.sh fetches it with npm)")
def test_sarif_is_valid_against_the_official_schema():
    """Guards against SARIF that only our own subset of the schema accepts."""
    report = audit_paths([str(SAMPLES / "mixed_legacy")])
    sarif = report_sarif.to_dict(report)
    schema = json.loads(OFFICIAL_SARIF_SCHEMA.read_text())
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    errors = sorted(e.message for e in jsonschema.Draft4Validator(schema).iter_errors(sarif))
    assert errors == []
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["results"], "the sample must produce results to validate"


def test_markdown_for_a_pull_request_comment():
    """Guards against a PR comment without the verdict first or without the findings table."""
    text = report_markdown.render(audit_paths([str(SAMPLES / "indirection")]))
    assert text.splitlines()[0] == "## :x: v1bridge audit: **legacy**"
    assert "| `view.ts:3:13` | Q14 | quiet | medium | no |" in text
    assert "| `helpers.js` | review |" in text


def test_text_report_plain_when_piped_and_rich_on_a_terminal():
    """Guards against ANSI tables leaking into pipes, and against the verdict not coming first."""
    report = audit_paths([str(SAMPLES / "v2_correct")])
    plain = report_text.render(report, terminal=False)
    assert plain.startswith("verdict: clean") and "\x1b[" not in plain
    rich = report_text.render(report, terminal=True)
    assert "CLEAN" in rich.splitlines()[0]


def test_cli_exit_codes_and_atomic_output(tmp_path):
    """Guards against --fail-on-legacy passing on legacy code, or failing on marked/clean code."""
    assert main(["audit", str(SAMPLES / "mixed_legacy"), "--fail-on-legacy"]) == 1
    assert main(["audit", str(SAMPLES / "migrated"), "--fail-on-legacy"]) == 0, "keep-v1 markers are excluded"
    assert main(["audit", str(SAMPLES / "v2_correct"), "--fail-on-legacy"]) == 0
    assert main(["audit", str(SAMPLES / "mixed_legacy")]) == 0, "without --fail-on-legacy the audit only reports"
    assert main(["audit", str(tmp_path / "nope")]) == 2
    assert main(["audit"]) == 2
    assert main(["audit", "--format", "xml", str(SAMPLES)]) == 2
    out = tmp_path / "r.json"
    out.write_text("old")
    assert main(["audit", str(SAMPLES / "indirection"), "--format", "json", "--output", str(out)]) == 0
    assert json.loads(out.read_text())["summary"]["findings"] == 6
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"], "no temporary file left behind"


def test_jobs_gives_the_same_report_as_one_process():
    """Guards against the process pool losing or duplicating files."""
    one = audit_json(SAMPLES, jobs=1)
    two = audit_json(SAMPLES, jobs=2)
    assert one["findings"] == two["findings"] and one["files"] == two["files"]


def test_console_script_pipes_plain_text():
    """Guards against the `v1bridge audit` entry point breaking outside pytest (exit code, plain output)."""
    proc = subprocess.run([sys.executable, "-m", "v1bridge", "audit", str(SAMPLES / "mixed_legacy"),
                           "--fail-on-legacy"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("verdict: legacy")


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (CI installs Debian's `chromium` package)")
def test_html_renders_in_headless_chromium(tmp_path):
    """Guards against an HTML report that needs the network or shows no verdict, charts or findings."""
    page = tmp_path / "audit.html"
    page.write_text(report_html.render(audit_paths([str(SAMPLES / "mixed_legacy")])), encoding="utf-8")
    assert "http://" not in page.read_text().replace('xmlns="http://www.w3.org/2000/svg"', "") \
        and "https://" not in page.read_text().split("<body>")[0], "external asset in the page head"
    profile = tmp_path / "profile"
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
         "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=60, env={**os.environ, "HOME": str(tmp_path)},
    )
    dom = proc.stdout
    assert 'id="verdict" data-verdict="legacy"' in dom
    assert 'data-label="loud"' in dom and 'data-label="quiet"' in dom and 'data-label="removed"' in dom
    assert 'data-label="POST /pods/{podId}/stop" data-count="2"' in dom
    by_file = dom.split('id="by-file"')[1].split('id="by-rule"')[0]
    assert by_file.count('<tr class="finding') == 24


ROUTE_CALLS = [
    ('fetch(`${BASE}/containerregistryauth/${id}`, { method: "DELETE" })', 2),
    ('fetch(`${BASE}/networkvolumes/${id}/update`, { method: "POST", body })', 2),
    ('fetch(`${BASE}/pods/${id}/stop`, { method: "POST" })', 2),
    ('fetch(`${BASE}/endpoints/${id}?includeWorkers=true&includeTemplate=true`)', 3),
    ('fetch(`${BASE}/billing/networkvolumes?bucketSize=day&grouping=gpuTypeId`)', 2),
    ("const s = pod.desiredStatus + pod.costPerHr", 2),
]


def _big_tree(root: Path, files: int = 60) -> None:
    """60 TypeScript clients of six v1 lines each (about 18 findings), with the longest route labels v1 has."""
    for i in range(files):
        folder = root / f"services/team-{i % 7}/very/deeply/nested/module-{i}"
        folder.mkdir(parents=True, exist_ok=True)
        body = ['const BASE = "https://rest.runpod.io/v1";']
        for n in range(1):
            for call, _ in ROUTE_CALLS:
                body.append(f"export const op{n}_{len(body)} = (id: string, pod: any, body: any) => {call};")
        (folder / f"client_with_a_long_name_{i}.ts").write_text("\n".join(body) + "\n")


MEASURE = """
<script>
window.addEventListener('load', () => {
  const out = {};
  const doc = document.documentElement;
  out.pageOverflow = doc.scrollWidth - window.innerWidth;
  out.tableOverflow = Array.from(document.querySelectorAll('#by-file table')).filter(t => t.scrollWidth > t.clientWidth + 1).length;
  out.clippedLabels = Array.from(document.querySelectorAll('.bars .label')).filter(l => l.scrollWidth > l.clientWidth + 1).length;
  out.labels = Array.from(document.querySelectorAll('#chart-route .label')).map(l => l.textContent);
  out.fileGroups = document.querySelectorAll('#by-file details.group').length;
  out.openGroups = document.querySelectorAll('#by-file details.group[open]').length;
  out.shownAll = +document.getElementById('shown').textContent;
  const q = document.getElementById('q');
  q.value = 'containerregistryauth'; q.dispatchEvent(new Event('input'));
  out.shownFiltered = +document.getElementById('shown').textContent;
  q.value = ''; q.dispatchEvent(new Event('input'));
  document.querySelector('button[data-view=rule]').click();
  out.ruleGroupsVisible = Array.from(document.querySelectorAll('#by-rule details.group')).filter(g => !g.hidden).length;
  out.byFileHidden = document.getElementById('by-file').hidden;
  const sev = document.getElementById('f-severity'); sev.value = 'high'; sev.dispatchEvent(new Event('input'));
  out.shownHigh = +document.getElementById('shown').textContent;
  sev.value = ''; sev.dispatchEvent(new Event('input'));
  const th = document.querySelector('#by-rule details.group table th[data-key=path]');
  th.click(); th.click();
  const rows = Array.from(th.closest('table').tBodies[0].rows).map(r => r.dataset.path);
  out.sortedDescending = rows.every((p, i) => i === 0 || rows[i - 1].localeCompare(p, undefined, {numeric: true}) >= 0);
  const pre = document.createElement('pre'); pre.id = 'measure'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
"""


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (CI installs Debian's `chromium` package)")
def test_html_report_is_readable_at_a_thousand_findings(tmp_path):
    """Guards the report a platform team reads at scale (1,000+ findings on 60 files): grouped by file and by rule,
    filter and sort in the page, no route label clipped, no table wider than the page; screenshot kept."""
    _big_tree(tmp_path / "repo")
    report = audit_paths([str(tmp_path / "repo")])
    findings = report.findings
    assert len(findings) >= 1000 and len({f.path for f in findings}) == 60
    html = report_html.render(report)
    assert "<script src" not in html and "<link" not in html, "no external asset"
    page = tmp_path / "audit.html"
    # the measuring script is the test's, not the report's: drop the CSP in this copy so it may run
    test_copy = html.split('<meta http-equiv="Content-Security-Policy"')[0] + html.split("img-src data:\">", 1)[1]
    page.write_text(test_copy.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    base = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,900", "--virtual-time-budget=10000"]
    env = {**os.environ, "HOME": str(tmp_path)}
    proc = subprocess.run(base + ["--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120, env=env)
    measured = json.loads(proc.stdout.split('<pre id="measure">')[1].split("</pre>")[0].replace("&quot;", '"'))
    assert measured["pageOverflow"] <= 0, "the page scrolls sideways"
    assert measured["tableOverflow"] == 0, "a findings table is wider than its box"
    assert measured["clippedLabels"] == 0, "a chart label is clipped"
    assert "DELETE /containerregistryauth/{containerRegistryAuthId}" in measured["labels"]
    assert measured["fileGroups"] == 60 and measured["openGroups"] == 12, "60 file groups, the 12 largest open"
    assert measured["shownAll"] == len(findings)
    assert measured["shownFiltered"] == sum(1 for f in findings if "containerregistryauth" in
                                            " ".join((f.path, f.rule, f.name, f.route or "", f.message,
                                                      f.source_line, f.language)).lower())
    assert measured["ruleGroupsVisible"] == len({f.rule for f in findings}) and measured["byFileHidden"] is True
    assert measured["shownHigh"] == sum(1 for f in findings if f.severity == "high")
    assert measured["sortedDescending"] is True
    shot = Path(os.environ.get("V1BRIDGE_SCREENSHOT_DIR", tmp_path)) / "audit-report-1000.png"
    original = tmp_path / "report.html"
    original.write_text(html, encoding="utf-8")
    subprocess.run(base[:-2] + ["--window-size=1280,1600", f"--screenshot={shot}", original.as_uri()],
                   capture_output=True, timeout=120, env=env)
    assert shot.exists() and shot.stat().st_size > 20_000, "no screenshot of the report"
