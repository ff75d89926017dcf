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

ROOT = Path(__file__).resolve().parents[2]
SARIF_SCHEMA = Path(__file__).parent / "schemas" / "sarif-2.1.0-subset.json"


def test_json_schema_shape_is_stable():
    """Guards against silent changes to the documented JSON schema (docs/audit.md)."""
    data = audit_json(SAMPLES / "mixed_legacy")
    assert data["schema"] == "v1bridge.audit.code/1" and data["schema_version"] == 1
    assert set(data) == {"schema", "schema_version", "tool", "kind", "verdict", "verdict_text", "summary",
                         "findings", "suppressed", "files", "rules", "skipped", "errors", "scope", "selection"}
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
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    suppressed = [r for r in run["results"] if "suppressions" in r]
    assert len(suppressed) == 13 and len(run["results"]) == 16, "suppressed results must stay, marked in source"
    assert {s["suppressions"][0]["justification"].split(" (")[0] for s in suppressed} == \
        {"kept on v1 on purpose", "false positive"}


OFFICIAL_SARIF_SCHEMA = ROOT / ".cache" / "sarif-2.1.0.json"


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
    assert dom.count('<tr class="finding') == 24
