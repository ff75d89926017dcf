"""Settings files: `[tool.v1bridge]` for audit and rewrite, `proxy --config FILE`; flags override both."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from v1bridge import settings
from v1bridge.cli import main

V1_CALL = 'import requests\nrequests.get("https://rest.runpod.io/v1/pods", headers={"Authorization": "Bearer k"})\n'


def _project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(table)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "client.py").write_text(V1_CALL)
    (tmp_path / "generated").mkdir()
    (tmp_path / "generated" / "old.py").write_text(V1_CALL)
    return tmp_path


def _audit_json(capsys, *argv: str) -> dict:
    assert main(["audit", *argv]) in (0, 1)
    return json.loads(capsys.readouterr().out)


def test_audit_reads_format_and_exclude_from_pyproject(tmp_path, capsys):
    root = _project(tmp_path, '[tool.v1bridge]\nformat = "json"\nexclude = ["generated/"]\n')
    report = _audit_json(capsys, str(root))
    assert [f["path"] for f in report["files"] if f["status"] == "needs-migration"] == ["app/client.py"]
    assert {"path": "generated", "reason": "excluded"} in report["skipped"]


def test_a_flag_overrides_the_file(tmp_path, capsys):
    root = _project(tmp_path, '[tool.v1bridge]\nformat = "json"\n')
    assert main(["audit", str(root), "--format", "markdown"]) == 0
    assert capsys.readouterr().out.startswith("#")


def test_the_command_table_overrides_the_shared_one(tmp_path, capsys):
    root = _project(tmp_path, '[tool.v1bridge]\nformat = "markdown"\n[tool.v1bridge.audit]\nformat = "json"\n')
    assert "files" in _audit_json(capsys, str(root))


def test_a_shared_key_only_rewrite_has_is_accepted_by_audit(tmp_path, capsys):
    root = _project(tmp_path, '[tool.v1bridge]\nformat = "json"\nno-progress = true\n')
    assert "files" in _audit_json(capsys, str(root))


@pytest.mark.parametrize("table, message", [
    ('[tool.v1bridge]\nbogus = 1\n', "unknown setting(s) in [tool.v1bridge]: bogus"),
    ('[tool.v1bridge.audit]\nno-progress = true\n', "unknown setting(s) no-progress"),
    ('[tool.v1bridge]\nformat = "yaml"\n', "format: 'yaml' is not one of"),
    ('[tool.v1bridge]\njobs = "two"\n', "jobs: invalid value 'two'"),
    ('[tool.v1bridge]\nfail-on-legacy = "yes"\n', "fail-on-legacy: expected true or false"),
    ('[tool.v1bridge.lint]\nx = 1\n', "unknown table(s) [tool.v1bridge.lint]"),
    ('[tool.v1bridge\n', "not valid TOML"),
])
def test_a_bad_setting_is_a_usage_error_naming_file_and_key(tmp_path, capsys, table, message):
    root = _project(tmp_path, table)
    assert main(["audit", str(root)]) == 2
    err = capsys.readouterr().err
    assert str(root / "pyproject.toml") in err and message in err


def test_relative_paths_are_relative_to_the_settings_file(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.v1bridge.audit]\nbaseline = "ci/baseline.json"\n')
    from codemod import cli_audit

    parser = argparse.ArgumentParser(prog="v1bridge audit")
    cli_audit.configure(parser)
    settings.apply_project("audit", parser, tmp_path)
    assert parser.parse_args(["."]).baseline == str(tmp_path / "ci" / "baseline.json")


def test_proxy_config_file_sets_defaults_and_flags_override(tmp_path):
    config = tmp_path / "v1bridge.toml"
    config.write_text('upstream = "https://api.example.test"\nstrict = ["reset"]\nmax-body = 2048\nkeys-file = "keys.txt"\n')
    from proxy import cli_proxy

    parser = argparse.ArgumentParser(prog="v1bridge proxy")
    cli_proxy.configure(parser)
    settings.apply_config_file(parser, config)
    args = parser.parse_args(["--max-body", "4096"])
    assert (args.upstream, args.strict, args.max_body, args.keys_file) == (
        "https://api.example.test", ["reset"], 4096, str(tmp_path / "keys.txt"))


def test_proxy_config_errors_before_anything_starts(tmp_path, capsys):
    config = tmp_path / "v1bridge.toml"
    config.write_text('[proxy]\nport = "eighty"\n')
    assert main(["proxy", "--config", str(config)]) == 2
    assert f"{config.resolve()}: port: invalid value 'eighty'" in capsys.readouterr().err
    config.write_text('upstrem = "https://api.example.test"\n')
    assert main(["proxy", "--config", str(config)]) == 2
    assert "unknown setting(s) upstrem" in capsys.readouterr().err
    assert main(["proxy", "--config", str(tmp_path / "missing.toml")]) == 2
    assert "cannot read" in capsys.readouterr().err
