"""Code the rewrite moved to v2 through the generated compat module (issue 21): the module itself is never a
finding, and calls through it are working v2 code, listed under their own status and count in every format."""
from __future__ import annotations

import json
from pathlib import Path

from codemod import compat
from codemod.audit import report_html, report_json, report_markdown, report_sarif, report_text
from codemod.audit.engine import audit_paths

CLIENT = '''import requests

from . import v1bridge_compat
from .v1bridge_compat import v1_view as view

BASE = "https://rest.runpod.io/v2"


def create(body, gpus):
    return v1bridge_compat.create_with_fallback(lambda b: requests.post(BASE + "/pods", json=b).json(), body, gpus)


def verb(pod_id, action):
    return v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "POST",
                                   "https://rest.runpod.io/v1" + f"/pods/{pod_id}/{action}")


def one(pod_id):
    return view("pod", requests.get(f"{BASE}/pods/{pod_id}").json())
'''


def _tree(tmp_path: Path) -> Path:
    app = tmp_path / "app"
    app.mkdir()
    (app / "__init__.py").write_text("")
    compat.write(app / "v1bridge_compat.py")
    (app / "pods.py").write_text(CLIENT)
    (app / "old.py").write_text('import requests\nrequests.get("https://rest.runpod.io/v1/pods")\n')
    return tmp_path


def test_the_generated_module_is_skipped_and_compat_calls_have_their_own_status(tmp_path):
    report = audit_paths([str(_tree(tmp_path))])
    data = json.loads(report_json.render(report))
    assert {f["path"]: f["status"] for f in data["files"]} == {"app/pods.py": "v2-compat",
                                                                "app/old.py": "needs-migration"}
    assert [s["path"] for s in data["skipped"]] == ["app/v1bridge_compat.py"]
    assert data["summary"]["compat_calls"] == 3 and data["summary"]["by_status"]["v2-compat"] == 1
    assert next(f for f in data["files"] if f["path"] == "app/pods.py")["compat"] == 3
    # the v1 URL handed to call_v1 is translated at run time: not unresolved, listed as compat
    assert not [f for f in data["findings"] if f["path"] == "app/pods.py"]
    assert {(f["line"], f["suppressed"], f["marker"]) for f in data["suppressed"]} >= {
        (15, "compat", "v1bridge_compat.call_v1")}  # the v1 URL on the call's second line
    assert "3 call(s) through the compat module" in report_text.render(report)
    assert "3 call(s) through the compat module" in report_markdown.render(report)
    assert "3 call(s) through the compat module" in report_html.render(report)
    sarif = report_sarif.to_dict(report)["runs"][0]
    assert sarif["properties"]["compatCalls"] == 3
    assert any(s["justification"].startswith("v2 through the compat module")
               for r in sarif["results"] for s in r.get("suppressions", []))


def test_rewrite_output_with_only_compat_calls_passes_the_gate(tmp_path):
    """`rewrite` then `audit --fail-on-legacy`: compat calls never fail the gate; v1 code still does."""
    tree = _tree(tmp_path)
    (tree / "app" / "old.py").unlink()
    report = audit_paths([str(tree)])
    assert not report.legacy_remaining and report.verdict()[0] == "clean"


def test_a_v1_query_handed_to_call_v1_through_a_conditional_is_the_translations_not_a_finding(tmp_path):
    """`params = {"desiredStatus": status} if status else None` then `call_v1(..., params=params)` (a rewrite's
    state 2): the v1 names are the run-time translation's to read; the same dict on a plain call stays a finding."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "pods.py").write_text(
        'import requests\n\nimport v1bridge_compat\n\nAPI = "https://api.runpod.io/v2"\n\n\n'
        'def listing(status=None):\n    params = {"desiredStatus": status} if status else None\n'
        '    return v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "GET", '
        'API + "/pods", params=params)\n\n\n'
        'def other(status=None):\n    params = {"desiredStatus": status} if status else None\n'
        '    return params\n')
    data = json.loads(report_json.render(audit_paths([str(tmp_path)])))
    assert [(f["line"], f["rule"]) for f in data["findings"]] == [(14, "Q13")]
