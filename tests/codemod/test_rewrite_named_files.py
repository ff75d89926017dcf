"""Files named directly to `v1bridge rewrite`: mode, owner, symlinks and hard links (issue 23 item 14).

Before: `rewrite tree/link.py` replaced the symlink with a regular file, a read-only file was rewritten and
its owner changed, and a hard link was split (the other name kept the v1 text) without a word.
"""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from v1bridge.cli import main

V1 = 'import requests\nrequests.get("https://rest.runpod.io/v1/endpoints")\n'
V2 = 'import requests\nrequests.get("https://api.runpod.io/v2/serverless")\n'


def _client(path: Path, mode: int = 0o644) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(V1)
    path.chmod(mode)
    return path


def test_mode_is_kept(tmp_path):
    target = _client(tmp_path / "tree" / "client.py", 0o754)
    assert main(["rewrite", str(target)]) == 0
    assert target.read_text() == V2 and stat.S_IMODE(target.stat().st_mode) == 0o754


def test_a_read_only_file_is_not_rewritten(tmp_path, capsys):
    """For root too (CI): read-only is the owner's word, not a permission check root would pass."""
    target = _client(tmp_path / "tree" / "client.py", 0o444)
    assert main(["rewrite", str(target)]) == 2
    assert target.read_text() == V1 and stat.S_IMODE(target.stat().st_mode) == 0o444
    assert "client.py: not written: read-only (mode -r--r--r--): not written; `chmod u+w` it first" \
        in capsys.readouterr().err


def test_a_file_not_written_is_not_counted_as_migrated(tmp_path, capsys):
    """Its call is still v1 on disk: an error in the summary and the JSON, never a state-1 site (it was)."""
    target = _client(tmp_path / "tree" / "client.py", 0o444)
    assert main(["rewrite", str(target), "--format", "json"]) == 2
    data = json.loads(capsys.readouterr().out)
    assert data["call_sites"] == {"v2": 0, "v2-compat": 0, "flagged": 0} and data["sites"] == []
    assert [e["path"] for e in data["errors"]] == [str(target)] and data["files"]["errors"] == 1


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file another owner takes root (CI runs as root)")
def test_owner_and_group_are_kept(tmp_path):
    target = _client(tmp_path / "tree" / "client.py")
    os.chown(target, 4321, 4322)
    assert main(["rewrite", str(target)]) == 0
    st = target.stat()
    assert target.read_text() == V2 and (st.st_uid, st.st_gid) == (4321, 4322)


def test_a_symlink_named_directly_is_skipped_and_said(tmp_path, capsys):
    real = _client(tmp_path / "tree" / "real.py")
    link = tmp_path / "tree" / "link.py"
    link.symlink_to("real.py")
    assert main(["rewrite", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == "real.py" and real.read_text() == V1
    err = capsys.readouterr().err
    assert f"skipped {link}: symlink named directly: not followed (--follow-symlinks rewrites its target)" in err


def test_follow_symlinks_rewrites_the_target_and_keeps_the_link(tmp_path, capsys):
    real = _client(tmp_path / "tree" / "real.py")
    link = tmp_path / "tree" / "link.py"
    link.symlink_to("real.py")
    assert main(["rewrite", "--follow-symlinks", str(link), str(real)]) == 0
    assert link.is_symlink() and os.readlink(link) == "real.py" and real.read_text() == V2
    assert "1 changed" in capsys.readouterr().err


def test_a_hard_linked_file_is_written_in_place_and_said(tmp_path, capsys):
    """Decision (docs/rewrite.md): every name of the file sees the new text; the run says it wrote in place."""
    first = _client(tmp_path / "tree" / "client.py")
    other = tmp_path / "elsewhere" / "same.py"
    other.parent.mkdir()
    os.link(first, other)
    inode = first.stat().st_ino
    assert main(["rewrite", str(first)]) == 0
    assert first.read_text() == V2 and other.read_text() == V2
    assert first.stat().st_ino == inode and first.stat().st_nlink == 2, "the hard link is not split"
    assert f"{first}: written in place: 2 hard links (every name sees the new text)" in capsys.readouterr().err


def test_two_names_of_one_file_in_a_run_are_rewritten_once(tmp_path, capsys):
    root = tmp_path / "tree"
    first = _client(root / "a.py")
    os.link(first, root / "b.py")
    assert main(["rewrite", "--jobs", "2", str(root)]) == 0
    assert (root / "a.py").read_text() == V2 and (root / "b.py").read_text() == V2
    err = capsys.readouterr().err
    assert f"skipped {root / 'b.py'}: the same file as {root / 'a.py'} (rewritten once, under that name)" in err


def test_the_compat_module_of_a_followed_symlink_goes_by_its_targets_folder_from_the_folders_alone(tmp_path,
                                                                                                  monkeypatch):
    """A symlink named directly and followed is its target by the time the compat module's place is chosen (one
    file per folder decides it, by the folder's name: no call to the file system per file)."""
    from codemod import cli_rewrite
    from codemod.walk import SourceFile

    real = _client(tmp_path / "code" / "real.py")
    _client(tmp_path / "code" / "other.py")
    link = tmp_path / "links" / "link.py"
    link.parent.mkdir()
    link.symlink_to(real)
    files = cli_rewrite._one_name_per_file([SourceFile(link, "links/link.py"), SourceFile(real.parent / "other.py",
                                                                                         "code/other.py")], True, [])
    assert [f.path for f in files] == [real, real.parent / "other.py"]
    monkeypatch.setattr(os.path, "islink", lambda path: pytest.fail(f"a file's link was looked up: {path}"))
    assert cli_rewrite._compat_location(None, files) == str(tmp_path / "code" / "v1bridge_compat.py")
