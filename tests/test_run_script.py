"""scripts/run.sh: a complete fresh-machine setup that skips pip when the install is current (issue 24).

Run against a copy of the script and pyproject.toml, with a stand-in `.venv/bin/python` that records each call
and a stand-in `.venv/bin/v1bridge` that prints its arguments: no network, no real install.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _project(tmp_path: Path) -> Path:
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "run.sh", tmp_path / "scripts" / "run.sh")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    # the stand-in install creates the console script, as pip install -e . does
    python.write_text('#!/bin/sh\necho "$@" >> "$(dirname "$0")/../pip.log"\n'
                      'printf \'#!/bin/sh\\necho "proxy called: $*"\\n\' > "$(dirname "$0")/v1bridge"\n'
                      'chmod +x "$(dirname "$0")/v1bridge"\n')
    python.chmod(0o755)
    return tmp_path


def _run(project: Path) -> str:
    done = subprocess.run(["bash", str(project / "scripts" / "run.sh"), "--port", "9000"], capture_output=True,
                          text=True, timeout=60, check=True)
    return done.stdout


def _pip_calls(project: Path) -> list[str]:
    log = project / ".venv" / "pip.log"
    return log.read_text().splitlines() if log.exists() else []


def test_pip_runs_on_a_fresh_install_then_only_when_pyproject_changes(tmp_path):
    project = _project(tmp_path)
    assert _run(project) == "proxy called: proxy --port 9000\n"
    assert _pip_calls(project) == ["-m pip install -q --upgrade pip", "-m pip install -q -e ."]
    assert _run(project) == "proxy called: proxy --port 9000\n"
    assert len(_pip_calls(project)) == 2, "an install that is current is not redone"
    with (project / "pyproject.toml").open("a") as handle:
        handle.write("\n# a dependency changed\n")
    _run(project)
    assert len(_pip_calls(project)) == 4, "a changed pyproject.toml reinstalls"
    (project / ".venv" / "bin" / "v1bridge").unlink()
    _run(project)
    assert len(_pip_calls(project)) == 6, "a venv without the console script reinstalls"
