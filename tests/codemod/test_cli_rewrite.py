"""`v1bridge rewrite`: modes, exit codes, writes, summary."""
from __future__ import annotations

from pathlib import Path

from v1bridge.cli import main

V1 = 'import requests\nrequests.get("https://rest.runpod.io/v1/endpoints")\n'
V2 = 'import requests\nrequests.get("https://api.runpod.io/v2/serverless")\n'


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "client.py").write_text(V1)
    (tmp_path / "pkg" / "other.py").write_text("x = 1\n")
    (tmp_path / "pkg" / "broken.py").write_text('requests.get("/pods"\n')
    (tmp_path / "pkg" / "gen.py").write_text("# @generated\n" + V1)
    return tmp_path / "pkg"


def test_check_exits_1_and_writes_nothing(tmp_path: Path, capsys) -> None:
    root = _tree(tmp_path)
    assert main(["rewrite", "--check", str(root)]) == 1
    assert (root / "client.py").read_text() == V1
    err = capsys.readouterr().err
    assert "broken.py: does not parse" in err and "1 would change" in err and "L01 1" in err


def test_diff_prints_and_writes_nothing(tmp_path: Path, capsys) -> None:
    root = _tree(tmp_path)
    assert main(["rewrite", "--diff", str(root)]) == 0
    out = capsys.readouterr().out
    assert '-requests.get("https://rest.runpod.io/v1/endpoints")' in out
    assert '+requests.get("https://api.runpod.io/v2/serverless")' in out
    assert (root / "client.py").read_text() == V1


def test_write_then_nothing_to_do_in_parallel(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    assert main(["rewrite", "--jobs", "2", str(root)]) == 0
    assert (root / "client.py").read_text() == V2
    assert (root / "gen.py").read_text() == "# @generated\n" + V1  # generated: skipped
    assert (root / "broken.py").read_text() == 'requests.get("/pods"\n'  # reported, left alone
    assert main(["rewrite", "--check", str(root)]) == 0
    assert not [p for p in root.iterdir() if p.name.endswith(".v1bridge")]  # no temp file left


def test_encoding_cookie_bom_and_crlf_are_kept(tmp_path: Path) -> None:
    latin = tmp_path / "latin.py"
    latin.write_bytes(("# -*- coding: latin-1 -*-\r\n# caf\xe9\r\n" + V1.replace("\n", "\r\n")).encode("latin-1"))
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + V1.encode())
    assert main(["rewrite", str(tmp_path)]) == 0
    assert latin.read_bytes() == ("# -*- coding: latin-1 -*-\r\n# caf\xe9\r\n" + V2.replace("\n", "\r\n")).encode("latin-1")
    assert bom.read_bytes() == b"\xef\xbb\xbf" + V2.encode()


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert main(["rewrite", str(tmp_path / "missing")]) == 2
    assert main(["rewrite", "--diff", "--check", str(tmp_path)]) == 2
    assert main(["rewrite", "--v2-base", "ftp://x", str(tmp_path)]) == 2


def test_host_flag(tmp_path: Path) -> None:
    f = tmp_path / "c.py"
    f.write_text(V1)
    assert main(["rewrite", "--v2-base", "http://127.0.0.1:9/v2", str(f)]) == 0
    assert f.read_text() == V1.replace("https://rest.runpod.io/v1/endpoints", "http://127.0.0.1:9/v2/serverless")


def test_select_and_ignore_leave_a_file_whole_when_its_migration_needs_a_left_out_rule(tmp_path, capsys):
    """Guards `rewrite --select/--ignore` (the audit's selection helper): a file is migrated as a unit or
    left byte for byte with the left-out rule named; an unknown rule is a usage error."""
    from v1bridge.cli import main

    source = 'import requests\nAPI = "https://rest.runpod.io/v1"\nvols = requests.get(f"{API}/networkvolumes").json()\n'
    target = tmp_path / "client.py"
    target.write_text(source)
    assert main(["rewrite", str(target), "--ignore", "Q02", "--no-progress"]) == 0
    assert target.read_text() == source, "a rule left out must leave the whole file as it was"
    assert "Q02 not rewritten" in capsys.readouterr().err
    assert main(["rewrite", str(target), "--select", "L01,Q02", "--no-progress"]) == 0
    assert target.read_text() == ('import requests\nAPI = "https://api.runpod.io/v2"\n'
                                  'vols = requests.get(f"{API}/network-volumes").json()["networkVolumes"]\n')
    assert main(["rewrite", str(target), "--select", "Q99"]) == 2


def _client_and_its_outside_user(tmp_path: Path) -> Path:
    """rp/api.py (a helper on a v1 base) and, beside rp/, two modules the run is not given: one imports it."""
    (tmp_path / "rp").mkdir()
    (tmp_path / "rp" / "__init__.py").write_text("")
    (tmp_path / "rp" / "api.py").write_text(
        'import requests\n\nBASE = "https://rest.runpod.io/v1"\n\n\n'
        'def get(path):\n    return requests.get(BASE + path, timeout=30).json()\n\n\n'
        'def pods():\n    return get("/pods")\n')
    (tmp_path / "report.py").write_text('import sys\n\nfrom rp.api import BASE, get\n\nprint(get("/pods"))\n')
    (tmp_path / "unrelated.py").write_text("import rpx\n")
    return tmp_path / "rp"


def test_a_module_outside_the_paths_given_that_imports_a_moved_base_is_named(tmp_path: Path, capsys) -> None:
    """Issue 21: a base or helper the run moves may be imported by a module the run was not given: the summary
    names it in every format (text on stderr, JSON, Markdown)."""
    import json

    given = _client_and_its_outside_user(tmp_path)
    assert main(["rewrite", "--diff", str(given)]) == 0
    err = capsys.readouterr().err
    assert "modules outside the paths given import what this run moved to v2 (1)" in err
    assert "  report.py:3: imports rp.api" in err and "unrelated.py" not in err
    assert main(["rewrite", "--check", "--format", "json", str(given)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["outside"] == [{"path": "report.py", "line": 3, "imports": "rp.api"}]
    assert main(["rewrite", "--check", "--format", "markdown", str(given)]) == 1
    out = capsys.readouterr().out
    assert "## Outside the paths given" in out and "- `report.py:3` imports `rp.api`" in out
    # given the whole project, nothing of it is outside
    assert main(["rewrite", "--check", str(tmp_path)]) == 1
    assert "outside the paths given" not in capsys.readouterr().err
