"""Baselines (`--write-baseline`, `--baseline`) and rule selection (`--select`, `--ignore`, `--scope`) on `audit`."""
from __future__ import annotations

import json
from pathlib import Path

from v1bridge.cli import main

BASH_CLIENT = """\
#!/usr/bin/env bash
RP_BASE="${RUNPOD_REST_URL:-https://rest.runpod.io/v1}"

rp::http() {
  local method="$1" path="$2"
  curl -sS -X "$method" -H "Authorization: Bearer $RUNPOD_API_KEY" "${RP_BASE}${path}"
}

pod_status() {
  local id="$1"
  rp::http GET "/pods/$id" | jq -r '.desiredStatus'
}

pod_stop() {
  rp::http POST "/pods/$1/stop"
}
"""


def _repo(tmp_path: Path, text: str) -> Path:
    repo = tmp_path / "repo"
    (repo / "bin").mkdir(parents=True, exist_ok=True)
    (repo / "bin" / "rp.sh").write_text(text)
    return repo


def _audit(repo: Path, *extra: str, capsys) -> tuple[int, dict]:
    code = main(["audit", str(repo), "--format", "json", *extra])
    return code, json.loads(capsys.readouterr().out)


def _baseline(tmp_path: Path, repo: Path, capsys) -> Path:
    file = tmp_path / "baseline.json"
    assert main(["audit", str(repo), "--write-baseline", str(file), "--fail-on-legacy"]) == 0, \
        "writing a baseline is not a failed gate"
    capsys.readouterr()
    return file


def test_baseline_records_every_unresolved_finding_with_its_fingerprint(tmp_path, capsys):
    """Guards the baseline file's shape: one entry per finding, the same fingerprint as the report's."""
    repo = _repo(tmp_path, BASH_CLIENT)
    file = _baseline(tmp_path, repo, capsys)
    data = json.loads(file.read_text())
    assert data["schema"] == "v1bridge.audit.baseline/1"
    _, report = _audit(repo, capsys=capsys)
    assert sorted(e["fingerprint"] for e in data["findings"]) == sorted(f["fingerprint"] for f in report["findings"])
    assert {(e["rule"], e["line"]) for e in data["findings"]} == {("L01", 2), ("L01", 6), ("L01", 11), ("Q13", 11),
                                                                  ("L04", 15), ("Q24", 15)}  # 6: the wrapper's curl


def test_unchanged_code_passes_the_gate_with_its_baseline(tmp_path, capsys):
    """Guards the point of a baseline: a repository with known findings is green on day one."""
    repo = _repo(tmp_path, BASH_CLIENT)
    file = _baseline(tmp_path, repo, capsys)
    code, report = _audit(repo, "--baseline", str(file), "--fail-on-legacy", capsys=capsys)
    assert code == 0
    assert report["baseline"] == {"entries": 6, "matched": 6, "fixed": 0, "new": 0}
    assert {f["baseline"] for f in report["findings"]} == {"unchanged"}


def test_moved_code_renamed_variable_and_blank_lines_keep_old_findings_matched(tmp_path, capsys):
    """Guards the fingerprint: line moves, a renamed variable, re-indentation and blank lines are not new findings."""
    repo = _repo(tmp_path, BASH_CLIENT)
    file = _baseline(tmp_path, repo, capsys)
    edited = BASH_CLIENT.replace('local id="$1"\n  rp::http GET "/pods/$id"', 'local pod_id="$1"\n\n\n    rp::http GET "/pods/$pod_id"')
    head, stop = edited.split("pod_stop() {")
    edited = "#!/usr/bin/env bash\n\n\npod_stop() {" + stop + "\n" + head.replace("#!/usr/bin/env bash\n", "")
    assert edited != BASH_CLIENT
    (repo / "bin" / "rp.sh").write_text(edited)
    code, report = _audit(repo, "--baseline", str(file), "--fail-on-legacy", capsys=capsys)
    lines = sorted((f["rule"], f["line"]) for f in report["findings"])
    assert lines != [("L01", 2), ("L01", 6), ("L01", 11), ("L04", 15), ("Q13", 11), ("Q24", 15)], \
        "the code did not move"
    assert report["baseline"]["new"] == 0, [f for f in report["findings"] if f["baseline"] == "new"]
    assert code == 0


def test_a_new_v1_call_fails_the_gate_and_only_it_is_new(tmp_path, capsys):
    """Guards the gate: a v1 call added after the baseline fails --fail-on-legacy and is the one marked new."""
    repo = _repo(tmp_path, BASH_CLIENT)
    file = _baseline(tmp_path, repo, capsys)
    (repo / "bin" / "rp.sh").write_text(BASH_CLIENT + '\npod_reset() {\n  rp::http POST "/pods/$1/reset"\n}\n')
    code, report = _audit(repo, "--baseline", str(file), "--fail-on-legacy", capsys=capsys)
    assert code == 1
    new = [(f["rule"], f["line"], f["route"]) for f in report["findings"] if f["baseline"] == "new"]
    assert new == [("R01", 19, "POST /pods/{podId}/reset")]


def test_a_second_identical_call_is_new(tmp_path, capsys):
    """Guards the occurrence count: copying a known call once more is one new finding, not a known one."""
    repo = _repo(tmp_path, BASH_CLIENT)
    file = _baseline(tmp_path, repo, capsys)
    (repo / "bin" / "rp.sh").write_text(BASH_CLIENT + '\npod_halt() {\n  rp::http POST "/pods/$1/stop"\n}\n')
    code, report = _audit(repo, "--baseline", str(file), "--fail-on-legacy", capsys=capsys)
    assert code == 1
    assert sorted(f["rule"] for f in report["findings"] if f["baseline"] == "new") == ["L04", "Q24"]


def test_a_fixed_finding_is_counted_as_fixed(tmp_path, capsys):
    """Guards the progress figure a platform team reads: baseline entries no longer found."""
    repo = _repo(tmp_path, BASH_CLIENT)
    file = _baseline(tmp_path, repo, capsys)
    (repo / "bin" / "rp.sh").write_text(BASH_CLIENT.replace(" | jq -r '.desiredStatus'", ""))
    code, report = _audit(repo, "--baseline", str(file), "--fail-on-legacy", capsys=capsys)
    assert code == 0
    assert report["baseline"] == {"entries": 6, "matched": 5, "fixed": 1, "new": 0}


def test_sarif_partial_fingerprints_are_the_baseline_fingerprints(tmp_path, capsys):
    """Guards code-scanning platforms tracking the same findings as the baseline (and the new/unchanged state)."""
    repo = _repo(tmp_path, BASH_CLIENT)
    file = _baseline(tmp_path, repo, capsys)
    assert main(["audit", str(repo), "--format", "sarif", "--baseline", str(file)]) == 0
    sarif = json.loads(capsys.readouterr().out)
    results = sarif["runs"][0]["results"]
    recorded = {e["fingerprint"] for e in json.loads(file.read_text())["findings"]}
    assert {r["partialFingerprints"]["v1bridge/v1"] for r in results} == recorded
    assert {r["baselineState"] for r in results} == {"unchanged"}


def test_a_broken_baseline_file_is_a_usage_error(tmp_path, capsys):
    """Guards against a gate that passes because its baseline could not be read."""
    repo = _repo(tmp_path, BASH_CLIENT)
    bad = tmp_path / "bad.json"
    bad.write_text('{"findings": 3}')
    assert main(["audit", str(repo), "--baseline", str(bad), "--fail-on-legacy"]) == 2
    assert "not a v1bridge.audit.baseline/1 file" in capsys.readouterr().err
    assert main(["audit", str(repo), "--baseline", str(tmp_path / "missing.json")]) == 2


def test_select_and_ignore_take_rule_ids_classes_and_prefixes(tmp_path, capsys):
    """Guards --select/--ignore: IDs, classes and prefixes narrow the findings and the gate."""
    repo = _repo(tmp_path, BASH_CLIENT)
    _, only_q13 = _audit(repo, "--select", "Q13", capsys=capsys)
    assert [(f["rule"], f["line"]) for f in only_q13["findings"]] == [("Q13", 11)]
    _, quiet = _audit(repo, "--select", "quiet", capsys=capsys)
    assert sorted(f["rule"] for f in quiet["findings"]) == ["Q13", "Q24"]
    _, no_l = _audit(repo, "--ignore", "L", capsys=capsys)
    assert sorted(f["rule"] for f in no_l["findings"]) == ["Q13", "Q24"]
    _, mixed = _audit(repo, "--select", "loud,Q13", "--ignore", "L01", capsys=capsys)
    assert sorted(f["rule"] for f in mixed["findings"]) == ["L04", "Q13"]
    code = main(["audit", str(repo), "--select", "quiet", "--ignore", "quiet", "--fail-on-legacy"])
    capsys.readouterr()
    assert code == 0, "nothing selected: nothing fails"


def test_an_unknown_rule_token_is_a_usage_error(tmp_path, capsys):
    """Guards against a typo in CI (`--select Q99`) silently selecting nothing and passing."""
    repo = _repo(tmp_path, BASH_CLIENT)
    assert main(["audit", str(repo), "--select", "Q99"]) == 2
    assert "unknown rule, class or prefix: 'Q99'" in capsys.readouterr().err


def test_markdown_with_a_baseline_lists_new_findings_first(tmp_path, capsys):
    """Guards the pull-request comment of a gated repository: the new finding first, marked, with the counts."""
    repo = _repo(tmp_path, BASH_CLIENT)
    file = _baseline(tmp_path, repo, capsys)
    (repo / "bin" / "rp.sh").write_text(BASH_CLIENT + '\npod_reset() {\n  rp::http POST "/pods/$1/reset"\n}\n')
    assert main(["audit", str(repo), "--format", "markdown", "--baseline", str(file), "--fail-on-legacy"]) == 1
    text = capsys.readouterr().out
    assert "Baseline: **1 new** finding(s) (listed first); 6 of 6 known finding(s) still present, 0 fixed since." in text
    rows = [line for line in text.splitlines() if line.startswith("| `bin/rp.sh")]
    assert rows[0].startswith("| `bin/rp.sh:19:") and "| R01 **new** |" in rows[0]
    assert not any("**new**" in r for r in rows[1:])


def test_sarif_with_a_baseline_is_valid_sarif(tmp_path, capsys):
    """Guards `baselineState` and the fingerprints against the SARIF 2.1.0 schema (the project's subset, and the
    official schema when scripts/test.sh could fetch it)."""
    import jsonschema

    root = Path(__file__).resolve().parents[2]
    repo = _repo(tmp_path, BASH_CLIENT)
    file = _baseline(tmp_path, repo, capsys)
    (repo / "bin" / "rp.sh").write_text(BASH_CLIENT + '\npod_reset() {\n  rp::http POST "/pods/$1/reset"\n}\n')
    main(["audit", str(repo), "--format", "sarif", "--baseline", str(file)])
    sarif = json.loads(capsys.readouterr().out)
    assert {r["baselineState"] for r in sarif["runs"][0]["results"]} == {"new", "unchanged"}
    for schema in (root / "tests/audit/schemas/sarif-2.1.0-subset.json", root / ".cache/sarif-2.1.0.json"):
        if schema.exists():
            jsonschema.Draft7Validator(json.loads(schema.read_text())).validate(sarif)


def test_a_finding_changed_by_but_is_the_finding_replace_makes():
    import dataclasses

    import pytest

    from codemod.audit.model import AuditFinding

    f = AuditFinding("L01", "n", "loud", "high", "p.py", 3, 4, "x", "m", "r", True, "call", related=(("a", 1, "b"),))
    for change in ({"fingerprint": "ab:1"}, {"baseline": "new"}, {"line": 9, "suppressed": "ignore"}, {}):
        changed = f.but(**change)
        assert changed == dataclasses.replace(f, **change) and changed is not f
        assert hash(changed) == hash(dataclasses.replace(f, **change))
    assert f.fingerprint == "" and f.baseline is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.but(line=2).line = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        f.but(lines=2)
