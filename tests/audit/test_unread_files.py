"""A candidate file the audit did not read is listed with its reason, counted, and keeps the verdict from "clean".

Guards issue 23 item 11: a .py over the size limit holding a v1 call was dropped without a word, the verdict
said "clean" and `--fail-on-legacy` exited 0.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from codemod.audit import report_json, report_markdown, report_sarif, report_text
from codemod.audit.engine import MAX_BYTES, audit_paths
from v1bridge.cli import main

V1_CALL = 'import requests\nrequests.get("https://rest.runpod.io/v1/pods", headers=H)\n'
V2_CALL = 'import requests\nrequests.get("https://rest.runpod.io/v2/pods", headers=H)\n'


def _big_legacy_file(path: Path, size: int = MAX_BYTES + 10_000) -> None:
    """A v1 call followed by plain data, SIZE bytes in all."""
    filler = "# data row ................................................................\n"
    path.write_text(V1_CALL + filler * ((size - len(V1_CALL)) // len(filler) + 1))


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "client.py").write_text(V2_CALL)
    _big_legacy_file(root / "big.py")
    return root


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_file_over_the_limit_is_listed_counted_and_not_clean(tmp_path, jobs):
    report = audit_paths([str(_tree(tmp_path))], jobs=jobs)
    assert report.not_read == [("big.py", f"too large: {(tmp_path / 'proj' / 'big.py').stat().st_size:,} bytes "
                                          f"(over --max-target-bytes {MAX_BYTES:,})")]
    verdict, sentence = report.verdict()
    assert verdict == "incomplete"
    assert sentence == "1 candidate file(s) not read, so no verdict of clean (listed under not_read)"
    assert report.scanned == 1, "a file not read is not counted as scanned"
    data = json.loads(report_json.render(report))
    assert data["verdict"] == "incomplete"
    assert data["summary"]["not_read"] == 1 and data["summary"]["files_scanned"] == 1
    assert data["not_read"] == [{"path": "big.py", "reason": report.not_read[0][1]}]
    text = report_text.render(report)
    assert text.startswith("verdict: incomplete - ")
    assert "files: 1 scanned, 1 not read," in text
    assert f"not read: big.py: {report.not_read[0][1]}" in text
    assert "INCOMPLETE" in report_text.render(report, terminal=True).splitlines()[0]
    assert report_markdown.render(report).splitlines()[0] == "## :warning: v1bridge audit: **incomplete**"
    assert "`big.py`: too large" in report_markdown.render(report)
    notes = report_sarif.to_dict(report)["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert notes[0]["message"]["text"].startswith("not read: too large") and \
        notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "big.py"


def test_fail_on_legacy_fails_while_a_candidate_file_is_unread(tmp_path, capsys):
    root = _tree(tmp_path)
    assert main(["audit", str(root), "--fail-on-legacy"]) == 1
    err = capsys.readouterr().err
    assert "1 candidate file(s) not read" in err and "--max-target-bytes" in err
    assert main(["audit", str(root)]) == 0, "without --fail-on-legacy the audit only reports"


def test_the_limit_is_an_option_and_raising_it_reads_the_file(tmp_path, capsys):
    root = _tree(tmp_path)
    out = tmp_path / "r.json"
    for flag in (["--max-target-bytes", str(MAX_BYTES * 2)], ["--max-target-bytes", "0"]):
        assert main(["audit", str(root), "--format", "json", "-o", str(out), "--fail-on-legacy", *flag]) == 1
        data = json.loads(out.read_text())
        assert data["verdict"] == "legacy" and data["not_read"] == []
        assert {(f["path"], f["line"], f["rule"]) for f in data["findings"]} == {("big.py", 2, "L01")}
    # a lower limit makes the small file unread too
    assert main(["audit", str(root), "--format", "json", "-o", str(out), "--max-target-bytes", "10"]) == 0
    assert [e["path"] for e in json.loads(out.read_text())["not_read"]] == ["big.py", "client.py"]
    assert main(["audit", str(root), "--max-target-bytes", "-1"]) == 2
    assert "--max-target-bytes" in capsys.readouterr().err


def test_a_legacy_verdict_still_names_the_unread_files(tmp_path):
    root = _tree(tmp_path)
    (root / "client.py").write_text(V1_CALL)
    verdict, sentence = audit_paths([str(root)]).verdict()
    assert verdict == "legacy" and sentence.endswith("; 1 candidate file(s) not read")


def test_a_file_named_directly_over_the_limit_is_listed(tmp_path):
    big = tmp_path / "big.py"
    _big_legacy_file(big)
    report = audit_paths([str(big)])
    assert [p for p, _ in report.not_read] == ["big.py"] and report.verdict()[0] == "incomplete"


def test_binary_files_are_skipped_with_a_reason_but_do_not_block_clean(tmp_path):
    """A tool's compiled binary in bin/ (no suffix) or a .py holding NUL bytes is read and is not code."""
    root = tmp_path / "proj"
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "tool").write_bytes(b"\x7fELF\x00\x00" + b"rest.runpod.io/v1/pods" * 10)
    (root / "client.py").write_text(V2_CALL)
    report = audit_paths([str(root)])
    assert report.verdict()[0] == "clean" and report.not_read == []
    assert ("bin/tool", "binary (a NUL byte in the first 1 KiB)") in report.skipped


@pytest.mark.skipif(os.geteuid() == 0, reason="must run as non-root: root reads a mode-000 file (CI runs as root)")
def test_an_unreadable_file_is_not_read_and_blocks_clean(tmp_path):  # pragma: no cover - root in CI
    root = tmp_path / "proj"
    root.mkdir()
    (root / "client.py").write_text(V2_CALL)
    locked = root / "locked.py"
    locked.write_text(V1_CALL)
    locked.chmod(0)
    try:
        report = audit_paths([str(root)])
    finally:
        locked.chmod(0o644)
    assert report.not_read == [("locked.py", "unreadable: Permission denied")]
    assert report.verdict()[0] == "incomplete"
