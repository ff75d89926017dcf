"""Files the audit writes: reports and baselines (issue 24: "reports are written 0600").

A report is a CI artifact others read: a new one gets the mode `open()` would give it (0666 less the umask),
an existing one keeps its mode; both are replaced atomically (codemod/safe_write.py).
"""
from __future__ import annotations

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
