"""Files the audit writes: reports and baselines (issue 24: "reports are written 0600").

A report is a CI artifact others read: a new one gets the mode `open()` would give it (0666 less the umask),
an existing one keeps its mode; both are replaced atomically (codemod/safe_write.py).
"""
from __future__ import annotations

import json
import os
import stat

import pytest

from tests.audit.conftest import SAMPLES
from v1bridge.cli import main


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.parametrize("flag", ["--output", "--write-baseline"])
def test_a_new_report_or_baseline_is_readable_by_others(tmp_path, umask_022, flag):
    target = tmp_path / "out.json"
    extra = ["--format", "json"] if flag == "--output" else []
    assert main(["audit", str(SAMPLES / "indirection"), *extra, flag, str(target)]) == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"], "no temporary file left behind"


def test_the_umask_decides_a_new_reports_mode(tmp_path):
    old = os.umask(0o027)
    try:
        assert main(["audit", str(SAMPLES / "indirection"), "-o", str(tmp_path / "r.txt")]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.txt").stat().st_mode) == 0o640


def test_an_existing_report_keeps_its_mode(tmp_path, umask_022):
    target = tmp_path / "r.txt"
    target.write_text("old\n")
    target.chmod(0o664)
    assert main(["audit", str(SAMPLES / "indirection"), "-o", str(target)]) == 0
    assert target.read_text().startswith("verdict: ") and stat.S_IMODE(target.stat().st_mode) == 0o664


def _legacy_tree(tmp_path):
    import shutil

    root = tmp_path / "proj"
    shutil.copytree(SAMPLES / "indirection", root)
    return root


def test_a_baseline_kept_in_the_scanned_tree_is_not_scanned(tmp_path, monkeypatch, capsys):
    """Issue 24: `audit . --write-baseline baseline.json` then `audit . --baseline baseline.json --fail-on-legacy`
    exited 1 with "new" findings in baseline.json itself (it holds the v1 source lines it records)."""
    root = _legacy_tree(tmp_path)
    monkeypatch.chdir(root)
    assert main(["audit", ".", "--write-baseline", "baseline.json"]) == 0
    capsys.readouterr()
    assert main(["audit", ".", "--baseline", "baseline.json", "--fail-on-legacy", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["baseline"]["new"] == 0 and not any(f["path"] == "baseline.json" for f in data["findings"])
    assert {"path": "baseline.json", "reason": "the baseline in use"} in data["skipped"]
    # writing it again over itself: the old baseline is not read as code either
    assert main(["audit", ".", "--write-baseline", "baseline.json"]) == 0
    assert main(["audit", ".", "--baseline", "baseline.json", "--fail-on-legacy"]) == 0


def test_a_report_written_into_the_scanned_tree_is_not_scanned(tmp_path, monkeypatch):
    root = _legacy_tree(tmp_path)
    monkeypatch.chdir(root)
    assert main(["audit", ".", "--format", "json", "-o", "report.json"]) == 0
    first = json.loads((root / "report.json").read_text())
    assert main(["audit", ".", "--format", "json", "-o", "report.json"]) == 0
    second = json.loads((root / "report.json").read_text())
    assert second["findings"] == first["findings"], "the previous report's source lines are not findings"
    assert {"path": "report.json", "reason": "the report this run writes"} in second["skipped"]


def test_quiet_prints_the_verdict_line_only(tmp_path, capsys):
    """Issue 24: `audit -q` was rejected while `rewrite -q` exists."""
    assert main(["audit", "-q", str(SAMPLES / "indirection")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("verdict: legacy - ") and out.count("\n") == 1
    assert main(["audit", "--quiet", "--fail-on-legacy", str(SAMPLES / "indirection")]) == 1
    baseline = tmp_path / "b.json"
    assert main(["audit", "-q", str(SAMPLES / "indirection"), "--write-baseline", str(baseline)]) == 0
    assert capsys.readouterr().err == ""
    assert main(["audit", "-q", "--format", "json", str(SAMPLES / "indirection")]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "legacy", "machine formats are printed whole"
