"""The README is the front door: short, its links resolve, and every shell block it shows runs as shown.

The ```sh blocks are run in order, in one bash with `set -euo pipefail`, in an empty folder, with this
venv's `v1bridge` first on PATH; the only change is the ports (8080 and 8090 become free ones), so that the
test can run beside a proxy a developer has open. The ```bash block holds the two set-up commands, which CI
itself runs (`.ci/run` is `bash scripts/test.sh`).
"""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_readme_is_short():
    assert len(README.splitlines()) <= 200


def test_readme_links_resolve():
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    local = [t for t in targets if not t.startswith(("http://", "https://"))]
    assert local and [t for t in local if not (ROOT / t).exists()] == []


def test_the_two_commands_are_the_scripts_ci_runs():
    setup = re.findall(r"```bash\n(.*?)```", README, re.S)
    assert [line.split("#")[0].strip() for line in setup[0].strip().splitlines()] == [
        "bash scripts/run.sh", "bash scripts/test.sh"]
    assert "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text()


@pytest.mark.skipif(not Path("/usr/bin/curl").exists() and not any(
    (Path(p) / "curl").exists() for p in os.environ.get("PATH", "").split(os.pathsep)), reason="needs curl")
def test_every_shell_block_runs_as_shown(tmp_path):
    blocks = re.findall(r"```sh\n(.*?)```", README, re.S)
    assert len(blocks) >= 4
    script = "\n".join(blocks)
    for port in ("8080", "8090"):
        script = script.replace(port, str(_free_port()))
    (tmp_path / "tour.sh").write_text("set -euo pipefail\n" + script)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.Popen(["bash", "tour.sh"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=240)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)  # the proxy and sandbox the tour left running
        except ProcessLookupError:
            pass
    assert proc.returncode == 0, out
    assert '"desiredStatus":"RUNNING"' in out  # the proxy answered the create in v1's shape
    client = (tmp_path / "tour" / "podctl" / "api.py").read_text()
    assert "rest.runpod.io/v1" not in client and '["desiredStatus"]' not in client
    assert (tmp_path / "audit.sarif").is_file() and (tmp_path / "audit.html").is_file()
