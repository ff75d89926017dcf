"""Multi-file clients (tests/audit/samples/projects/<sample>, ground truth in <sample>.expected.yaml): a call
through a base, wrapper or client type defined in another file, package or module is judged by where that base
is set; a path spelling only v1 writes is v1 wherever its base comes from; `review` only where the base cannot
be found, saying which. Recall and precision per language are printed (run with -s) and must stay at 1.0."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.audit.conftest import SAMPLES, audit_json

PROJECTS = SAMPLES / "projects"
EXPECTED = sorted(PROJECTS.glob("*.expected.yaml"))


def _load(path: Path) -> dict:
    return yaml.safe_load(path.read_text())


@pytest.fixture(scope="module")
def reports() -> dict[str, dict]:
    return {p.name: audit_json(PROJECTS / _load(p)["sample"]) for p in EXPECTED}


def _lines(report: dict) -> set[tuple[str, int]]:
    return {(f["path"], f["line"]) for f in report["findings"]}


def score(expected: dict, report: dict) -> dict[str, tuple[int, int, int, int]]:
    """(found, expected) lines and (right, reported) files, strict by status."""
    want_lines = {(path, line) for path, e in expected["files"].items() for line in e["lines"]}
    got_lines = _lines(report)
    want_status = {path: e["status"] for path, e in expected["files"].items()}
    got_status = {f["path"]: f["status"] for f in report["files"]}
    return {
        "lines": (len(want_lines & got_lines), len(want_lines), len(got_lines & want_lines), len(got_lines)),
        "files": (sum(got_status.get(p) == s for p, s in want_status.items()), len(want_status),
                  sum(want_status.get(p) == s for p, s in got_status.items()), len(got_status)),
    }


def test_every_expected_review_names_its_reason():
    for path in EXPECTED:
        for name, e in _load(path)["files"].items():
            if e["status"] == "review":
                assert e.get("reason"), f"{path.name}: {name} is expected as review without a reason"


@pytest.mark.parametrize("expected", EXPECTED, ids=lambda p: p.name.removesuffix(".expected.yaml"))
def test_statuses_and_lines_are_exact(expected, reports):
    """Guards recall and precision file by file: every listed file has its status and exactly its lines; no
    other file is reported."""
    data = _load(expected)
    report = reports[expected.name]
    assert {f["path"]: f["status"] for f in report["files"]} == {p: e["status"] for p, e in data["files"].items()}
    got = _lines(report)
    for path, e in data["files"].items():
        assert sorted(line for p, line in got if p == path) == sorted(e["lines"]), path


@pytest.mark.parametrize("expected", EXPECTED, ids=lambda p: p.name.removesuffix(".expected.yaml"))
def test_review_says_what_could_not_be_resolved(expected, reports):
    data = _load(expected)
    report = reports[expected.name]
    for path, e in data["files"].items():
        if e["status"] != "review":
            continue
        messages = [f["message"] for f in report["findings"] if f["path"] == path]
        assert messages and all(e["reason"] in m and "review:" in m for m in messages), messages


def test_calls_through_another_file_name_where_the_base_is_set(reports):
    """Guards the related locations: a neutral path (`GET /pods`) is v1 because of a base in another file, and
    the finding says which (helper first, base last), in JSON as in SARIF."""
    go = reports["go_runpod.expected.yaml"]
    call = next(f for f in go["findings"] if f["path"] == "cmd/rpx/main.go" and f["rule"] == "L01")
    assert [(r["path"], r["line"]) for r in call["related"]] == [
        ("runpod/client.go", 87), ("runpod/client.go", 63), ("runpod/client.go", 40), ("runpod/client.go", 16)]
    bash = reports["bash_rpctl.expected.yaml"]
    billing = next(f for f in bash["findings"] if f["path"] == "commands/billing.sh" and f["line"] == 9)
    assert [(r["path"], r["line"]) for r in billing["related"]] == [
        ("lib/util.sh", 13), ("lib/http.sh", 23), ("lib/http.sh", 5)]
    assert billing["kind"] == "call" and billing["route"] == "GET /billing/pods"


def test_sarif_carries_related_locations():
    from codemod.audit import report_sarif
    from codemod.audit.engine import audit_paths

    sarif = report_sarif.to_dict(audit_paths([str(PROJECTS / "ts_mcp")]))
    result = next(r for r in sarif["runs"][0]["results"]
                  if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "src/tools/pods.ts"
                  and r["ruleId"] == "L01" and r["locations"][0]["physicalLocation"]["region"]["startLine"] == 22)
    related = [(loc["physicalLocation"]["artifactLocation"]["uri"], loc["physicalLocation"]["region"]["startLine"],
                loc["message"]["text"]) for loc in result["relatedLocations"]]
    assert related[0] == ("src/client.ts", 35, "through `del`")
    assert related[-1][0] == "src/client.ts" and related[-1][1] == 2 and "base `DEFAULT_BASE`" in related[-1][2]
    assert result["properties"]["route"] == "DELETE /pods/{podId}", "the helper's own method decides the route"


def test_recall_and_precision_per_language(reports, capsys):
    """Prints, per language over every project sample: line recall and precision, and strict file recall and
    precision (a file counts only with its exact status)."""
    totals: dict[str, list[int]] = {}
    for path in EXPECTED:
        data = _load(path)
        s = score(data, reports[path.name])
        t = totals.setdefault(data["language"], [0] * 8)
        for i, v in enumerate(s["lines"] + s["files"]):
            t[i] += v
    rows = []
    for lang, t in sorted(totals.items()):
        rows.append((lang, t[0] / t[1], t[2] / t[3], t[4] / t[5], t[6] / t[7]))
        print(f"{lang:<11} lines recall {t[0]}/{t[1]} precision {t[2]}/{t[3]}; "
              f"files recall {t[4]}/{t[5]} precision {t[6]}/{t[7]}")
    assert {r[0] for r in rows} == {"shell", "go", "typescript", "python"}
    assert all(r[1:] == (1.0, 1.0, 1.0, 1.0) for r in rows), rows


def test_sarif_with_related_locations_is_valid():
    """Guards against relatedLocations that a SARIF consumer rejects (our subset and the official schema)."""
    import json

    import jsonschema

    from codemod.audit import report_sarif
    from codemod.audit.engine import audit_paths
    from tests.audit.tools import OFFICIAL_SARIF_SCHEMA

    sarif = report_sarif.to_dict(audit_paths([str(PROJECTS / "go_runpod")]))
    assert any("relatedLocations" in r for r in sarif["runs"][0]["results"])
    subset = json.loads((SAMPLES.parent / "schemas" / "sarif-2.1.0-subset.json").read_text())
    jsonschema.validate(sarif, subset)
    if OFFICIAL_SARIF_SCHEMA.exists():  # fetched by scripts/test.sh (CI)
        official = json.loads(OFFICIAL_SARIF_SCHEMA.read_text())
        assert sorted(e.message for e in jsonschema.Draft4Validator(official).iter_errors(sarif)) == []


def test_every_review_finding_says_what_could_not_be_resolved():
    """Guards issue 25: a `review` (indirect) finding, in every sample of every language, names what the audit
    could not resolve (which helper, which base), never just 'indirect'."""
    from codemod.audit.engine import audit_paths

    report = audit_paths([str(SAMPLES)])
    indirect = [f for f in report.findings if f.kind == "indirect"]
    assert indirect, "the samples hold review cases"
    assert [f"{f.path}:{f.line}" for f in indirect if "(review: " not in f.message] == []


@pytest.mark.parametrize("expected", EXPECTED, ids=lambda p: p.name.removesuffix(".expected.yaml"))
def test_two_jobs_see_the_same_project(expected, reports):
    """Guards the workers: the facts each sends back join into the same project view as one process's."""
    two = audit_json(PROJECTS / _load(expected)["sample"], jobs=2)
    one = reports[expected.name]
    assert (two["findings"], two["files"]) == (one["findings"], one["files"])


def test_a_helper_whose_request_fixes_the_method_decides_the_route(reports):
    """Guards the method of a call through a helper: `curl` with no -X (rp_legacy_get) is a GET, `client.del`
    a DELETE, while `rp::http METHOD PATH` takes the caller's word; a `curl "${args[@]}"` decides nothing."""
    bash = reports["bash_rpctl.expected.yaml"]
    routes = {(f["path"], f["line"]): f["route"] for f in bash["findings"] if f["rule"] == "L01"}
    assert routes[("commands/legacy.sh", 6)] == "GET /pods"
    assert routes[("commands/legacy.sh", 7)] == "GET /templates/{templateId}"
    assert routes[("commands/template.sh", 18)] == "DELETE /templates/{templateId}"
    ts = reports["ts_mcp.expected.yaml"]
    assert {f["route"] for f in ts["findings"] if f["path"] == "src/tools/pods.ts" and f["line"] == 22} == \
        {"DELETE /pods/{podId}"}


def test_html_shows_where_the_base_is_set():
    """Guards the HTML report's reader: a call with a neutral path shows the helper and base that make it v1."""
    from codemod.audit import report_html
    from codemod.audit.engine import audit_paths

    page = report_html.render(audit_paths([str(PROJECTS / "go_runpod")]))
    assert 'via <code>runpod/client.go:16</code> v1 base `DefaultBaseURL` set here' in page


def test_the_python_gaps_have_their_rule_and_kind(reports):
    """Guards issue 25's two Python gaps: the base the rewrite moves with the client's translated request, and a
    field read on the answer of a call through a module-level instance of that client."""
    py = reports["py_client_class.expected.yaml"]
    got = {(f["path"], f["line"]): (f["rule"], f["kind"], f["route"]) for f in py["findings"]}
    assert got[("runpodctl/client.py", 7)] == ("L01", "base-url", None)
    assert got[("cli.py", 23)] == ("L02", "response-field", "GET /templates")


def test_after_the_rewrite_only_what_still_runs_on_v1_is_reported(tmp_path):
    """Guards issue 21's "audit reads the same project facts" on the client-class sample: after `rewrite`, what is
    left is a v1-only path sent to a package outside the project, one on an untyped client (still v1: the base
    it goes through moved), and the review; `--fail-on-legacy` fails on them and on nothing else (a v2 path
    through the moved client is no finding)."""
    import shutil

    from codemod.audit import report_json
    from codemod.audit.engine import audit_paths
    from tests.codemod.project_harness import rewrite

    root = tmp_path / "py_client_class"
    shutil.copytree(PROJECTS / "py_client_class", root)
    assert rewrite(root).returncode in (0, 1)
    data = json.loads(report_json.render(audit_paths([str(root)])))
    assert {(f["path"], f["route"]) for f in data["findings"]} == {
        ("cli.py", "GET /billing/endpoints"), ("runpodctl/hooks.py", "GET /templates"),
        ("runpodctl/pods.py", "POST /pods/{podId}/stop")}
    statuses = {f["path"]: f["status"] for f in data["files"]}
    assert {p: s for p, s in statuses.items() if s in ("needs-migration", "review")} == {
        "cli.py": "needs-migration", "runpodctl/hooks.py": "review", "runpodctl/pods.py": "needs-migration"}


def test_a_route_the_code_serves_is_not_a_call_it_makes(tmp_path):
    """Guards precision of the v1-only paths (issue 25): `@routes.post("/pods/{pod_id}/stop")` declares a route of
    the user's own server (the corpus's server_defining_own_routes.py was reported as two v1 calls); a v1-only path
    handed to a function in the same file still is one."""
    from codemod.audit.engine import audit_paths

    (tmp_path / "server.py").write_text(
        'from aiohttp import web\n\nroutes = web.RouteTableDef()\n\n\n@routes.post("/pods/{pod_id}/stop")\n'
        'async def stop(request):\n    return web.json_response({})\n\n\n'
        'def spend(fetch_json):\n    return fetch_json("/billing/endpoints")\n')
    report = audit_paths([str(tmp_path)])
    assert sorted({(f.line, f.route) for f in report.findings}) == [(12, "GET /billing/endpoints")]
