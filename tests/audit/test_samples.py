"""Sample repositories, each pinning one behaviour of `v1bridge audit` (exact findings and statuses)."""
from __future__ import annotations

import shutil
from pathlib import Path

from tests.audit.conftest import SAMPLES, audit_json, statuses, triples


def test_mixed_legacy_repo_reports_every_call_site_base_url_and_field():
    """Guards against missed v1 usage in JS/TS, Go, shell/curl, YAML and .env (recall)."""
    data = audit_json(SAMPLES / "mixed_legacy")
    expected = {
        ("L01", ".env", 1),
        ("L01", "cmd/main.go", 8), ("L01", "cmd/main.go", 11), ("Q20", "cmd/main.go", 11),
        ("L01", "config/settings.yaml", 3),
        ("R01", "scripts/reset.sh", 3), ("L01", "scripts/reset.sh", 4), ("Q02", "scripts/reset.sh", 4),
        ("L01", "web/api.ts", 4), ("L04", "web/api.ts", 7), ("Q24", "web/api.ts", 7),
        ("L02", "web/api.ts", 11),
        ("L01", "web/api.ts", 12), ("Q16", "web/api.ts", 12), ("Q23", "web/api.ts", 12),
        ("Q13", "web/api.ts", 16),
        # Python, through the rewrite's detector
        ("L01", "client.py", 4), ("L02", "client.py", 9), ("L01", "client.py", 10), ("R01", "client.py", 14),
        ("L01", "client.py", 18), ("Q02", "client.py", 18),
        ("Q13", "client.py", 23),  # a response field read on an object handed in: found by the detector (attributed=False)
    }
    assert triples(data["findings"]) >= expected, "a known v1 call site, base URL or field was missed"
    assert triples(data["findings"]) - expected == set(), "an unexpected finding (false positive) appeared"
    assert statuses(data) == {
        ".env": "needs-migration",
        "client.py": "needs-migration",
        "cmd/main.go": "needs-migration",
        "config/settings.yaml": "needs-migration",
        "scripts/reset.sh": "needs-migration",
        "serverless/run.js": "not-control-plane",
        "web/api.ts": "needs-migration",
    }


def test_mixed_legacy_call_sites_carry_route_method_and_v2_target():
    """Guards against a call-site finding that does not say what it calls and what replaces it."""
    data = audit_json(SAMPLES / "mixed_legacy")
    by_key = {(f["rule"], f["path"], f["line"]): f for f in data["findings"]}
    stop = by_key[("L04", "web/api.ts", 7)]
    assert stop["route"] == "POST /pods/{podId}/stop"
    assert stop["v2_target"] == "POST /v2/pods/{id}/action {action: stop}"
    assert stop["column"] == 24 and stop["kind"] == "call"
    assert stop["source_line"].startswith("return fetch(`${BASE}/pods/${id}/stop`")
    delete = by_key[("Q20", "cmd/main.go", 11)]
    assert delete["route"] == "DELETE /endpoints/{endpointId}", "method from http.NewRequest was not read"
    listing = by_key[("Q02", "scripts/reset.sh", 4)]
    assert listing["route"] == "GET /networkvolumes", "curl without -X or data is a GET"
    assert not any(f["fixable"] for f in data["findings"] if not f["path"].endswith(".py")), \
        "rewrite only fixes Python; other files are never fixable"
    # issue 21: the reset on the same BASE has no v2 form; rewrite sends it to v2 through the compat module (and, as
    # the file reads `desiredStatus` on an object it cannot trace, keeps v1's answers for the other calls the same
    # way): every call of the client is fixed by rewrite, none left on v1
    assert by_key[("L01", "client.py", 10)]["fixable"] is True
    assert by_key[("R01", "client.py", 14)]["fixable"] is True
    assert by_key[("R01", "client.py", 14)]["message"].startswith("through v1bridge_compat.call_v1: ")


def test_mixed_legacy_comment_mentions_and_import_paths_are_not_findings():
    """Guards against counting `// ... imageName ...` comments and `./networkvolumes` imports as code."""
    data = audit_json(SAMPLES / "mixed_legacy")
    lines = {(f["path"], f["line"]) for f in data["findings"]}
    assert ("web/api.ts", 1) not in lines and ("web/api.ts", 2) not in lines
    assert ("scripts/reset.sh", 2) not in lines


def test_migrated_repo_is_clean_with_the_rollback_path_kept_on_v1():
    """Guards against flagging migrated v2 code, and against losing or mislabelling a kept rollback path."""
    data = audit_json(SAMPLES / "migrated")
    assert data["findings"] == [], "migrated v2 code produced findings"
    assert data["verdict"] == "clean"
    assert statuses(data) == {
        ".env": "v2",
        "client.py": "kept-v1",
        "cmd/main.go": "v2",
        "config/settings.yaml": "v2",
        "scripts/reset.sh": "v2",
        "scripts/rollback.sh": "kept-v1",
        "serverless/run.js": "not-control-plane",
        "web/api.ts": "v2",
    }
    assert triples(data["suppressed"]) == {("L04", "scripts/rollback.sh", 5), ("Q24", "scripts/rollback.sh", 5),
                                           ("L01", "scripts/rollback.sh", 4),
                                           ("L01", "client.py", 5), ("L04", "client.py", 21)}
    assert {f["suppressed"] for f in data["suppressed"]} == {"keep-v1"}
    assert data["summary"]["kept_v1"] == 5 and data["summary"]["ignored"] == 0


def test_indirection_config_only_base_url_helper_path_and_response_field_only_file():
    """Guards against missing v1 usage that has no literal URL at the call site (recall)."""
    data = audit_json(SAMPLES / "indirection")
    assert triples(data["findings"]) == {
        ("L01", "settings.toml", 3),
        ("L01", "helpers.js", 6),
        ("Q14", "view.ts", 3),
        ("Q13", "view.ts", 6),
        ("Q13", "view.ts", 7),
        ("Q14", "billing_view.py", 5),
    }
    assert statuses(data) == {
        "billing_view.py": "needs-migration",
        "settings.toml": "needs-migration",
        "helpers.js": "review",
        "view.ts": "needs-migration",
    }
    helper = next(f for f in data["findings"] if f["path"] == "helpers.js")
    assert helper["kind"] == "indirect"


def test_correct_v2_code_is_silent():
    """Guards against false positives: v2 base constant + `${BASE}/pods`, comments, import paths,
    package names, identifiers, the serverless runtime URL and v2 field names (precision)."""
    data = audit_json(SAMPLES / "v2_correct")
    assert data["findings"] == [], [(f["rule"], f["path"], f["line"], f["message"]) for f in data["findings"]]
    assert data["suppressed"] == []
    assert set(statuses(data).values()) == {"v2"}


def test_markers_all_syntaxes_scopes_and_both_spellings():
    """Guards against ignoring markers, confusing keep-v1 with ignore, or suppressing unmarked lines."""
    data = audit_json(SAMPLES / "markers")
    assert triples(data["findings"]) == {("L02", "lines.js", 5), ("L01", "rollback.py", 3), ("L04", "rollback.py", 13)}, \
        "unmarked lines must stay findings"
    kept = {(f["rule"], f["path"], f["line"]) for f in data["suppressed"] if f["suppressed"] == "keep-v1"}
    ignored = {(f["rule"], f["path"], f["line"]) for f in data["suppressed"] if f["suppressed"] == "ignore"}
    assert kept == {
        ("L01", "lines.js", 1),  # // trailing
        ("R13", "page.html", 4),  # <!-- --> on the line before
        ("L01", "query.sql", 2),  # -- on the line before
        ("R01", "region.sh", 3), ("L01", "region.sh", 4), ("Q02", "region.sh", 4), ("Q30", "region.sh", 4),  # rp-migrate region
        ("L04", "rollback.py", 8),  # Python # start/end region
    }
    assert ignored == {
        ("R13", "lines.js", 2),  # /* */ trailing
        ("L02", "lines.js", 4),  # rp-migrate: ignore on the line before
        ("L01", "whole.yaml", 2), ("L04", "whole.yaml", 4), ("Q24", "whole.yaml", 4),  # file scope
    }
    assert data["summary"]["kept_v1"] == 8 and data["summary"]["ignored"] == 5 and data["summary"]["findings"] == 3
    assert statuses(data) == {
        "rollback.py": "needs-migration",
        "lines.js": "needs-migration",
        "page.html": "kept-v1",
        "query.sql": "kept-v1",
        "region.sh": "kept-v1",
        "whole.yaml": "ignored",
    }


def test_skipped_directories_match_the_rewrite_walk(tmp_path: Path):
    """Guards against auditing vendored, installed or built copies of v1 code."""
    repo = tmp_path / "repo"
    shutil.copytree(SAMPLES / "skipped", repo)
    payload = (SAMPLES / "skipped" / "legacy_payload.txt").read_text()
    for folder in ("node_modules/lib", ".venv/lib", "build", "dist", "vendor", "__pycache__", ".git", "out"):
        (repo / folder).mkdir(parents=True, exist_ok=True)
        (repo / folder / "client.js").write_text(payload)
    (repo / ".gitignore").write_text("out/\n")
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    data = audit_json(repo)
    assert data["findings"] == [], "a skipped directory was audited"
    assert statuses(data) == {"src/app.js": "v2"}
    skipped = {s["path"]: s["reason"] for s in data["skipped"]}
    for folder in ("node_modules", ".venv", "build", "dist", "vendor", "__pycache__", ".git", "out"):
        assert folder in skipped, f"{folder} not reported as skipped"
    assert skipped["out"] == "gitignored"


def test_agent_and_git_worktrees_are_skipped_with_their_reason(tmp_path: Path):
    """Guards against counting every finding twice when an agent's worktree (`.claude/worktrees/...`)
    or a linked git worktree (a folder whose `.git` file points into `.git/worktrees/`) sits in the tree."""
    repo = tmp_path / "repo"
    shutil.copytree(SAMPLES / "skipped", repo)
    payload = (SAMPLES / "skipped" / "legacy_payload.txt").read_text()
    for folder in (".claude/worktrees/agent-1/src", ".worktrees/feature/src", "copies/linked/src",
                   "libs/submodule/src"):
        (repo / folder).mkdir(parents=True, exist_ok=True)
        (repo / folder / "client.js").write_text(payload)
    (repo / ".claude" / "settings.json").write_text("{}\n")
    (repo / "copies/linked/.git").write_text("gitdir: /home/dev/repo/.git/worktrees/linked\n")
    (repo / "libs/submodule/.git").write_text("gitdir: ../../.git/modules/submodule\n")
    data = audit_json(repo)
    skipped = {s["path"]: s["reason"] for s in data["skipped"]}
    assert skipped[".claude/worktrees"] == "agent worktree (a copy of the tree)"
    assert skipped[".worktrees"] == "git worktrees (copies of the tree)"
    assert skipped["copies/linked"] == "git worktree (a copy of the tree)"
    assert "libs/submodule" not in skipped, "a submodule is the project's own code, not a copy"
    assert {f["path"] for f in data["findings"]} == {"libs/submodule/src/client.js"}
