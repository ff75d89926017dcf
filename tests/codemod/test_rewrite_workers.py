"""`rewrite --jobs N` workers end when their parent does, and no temporary file outlives the run (issue 23 #12).

Before: after `kill -9` of a `rewrite --jobs 2` parent its two workers lived 28 s more and wrote 16 files,
and one temporary file was left behind. Linux only: the test reads the process table in /proc.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

V1_CALL = 'requests.get("https://rest.runpod.io/v1/endpoints")\n'
FILES = 200
ROOT = Path(__file__).resolve().parents[2]


def _slow_client(index: int) -> str:
    """A client module heavy enough (~100 functions) that a worker spends a noticeable time on it."""
    body = "".join(f"def helper_{index}_{n}(x, y=1):\n    return [x + y for _ in range({n})]\n\n" for n in range(100))
    return "import requests\n\n" + body + V1_CALL


def _children(pid: int) -> set[int]:
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        out.update(int(c) for c in (task / "children").read_text().split())
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")  # a zombie has ended; nobody may reap it in a container


def _rewritten(root: Path) -> int:
    return sum(1 for p in root.glob("*.py") if "rest.runpod.io/v1" not in p.read_text())


def test_killing_the_parent_ends_its_workers_and_leaves_no_temporary_file(tmp_path):
    root = tmp_path / "tree"
    root.mkdir()
    for i in range(FILES):
        (root / f"client_{i:03d}.py").write_text(_slow_client(i))
    proc = subprocess.Popen([sys.executable, "-m", "v1bridge", "rewrite", "--jobs", "2", "--no-progress", str(root)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while _rewritten(root) < 4:
            assert proc.poll() is None, "the run ended before it could be interrupted: make the tree heavier"
            assert time.monotonic() < deadline, "no file was rewritten within 120 s"
            time.sleep(0.05)
        workers = _children(proc.pid)
        assert len(workers) >= 2
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    ended = time.monotonic() + 5
    while any(_alive(w) for w in workers) and time.monotonic() < ended:
        time.sleep(0.05)
    assert not any(_alive(w) for w in workers), "workers outlived their parent by more than 5 s"
    done = _rewritten(root)
    time.sleep(1.0)
    assert _rewritten(root) == done < FILES, "nothing is written once the parent is gone"
    assert [p.name for p in root.iterdir() if not p.name.endswith(".py")] == [], "no temporary file is left"


def test_a_temporary_file_of_a_killed_writer_is_removed_by_the_next_run(tmp_path, capsys):
    """SIGKILL cannot be caught: a process killed while it holds a temporary file leaves it. Its name carries
    the writer's pid; the next rewrite of that folder removes it once that pid no longer runs."""
    from codemod.safe_write import TEMP_SUFFIX
    from v1bridge.cli import main

    root = tmp_path / "tree"
    root.mkdir()
    (root / "client.py").write_text("import requests\n" + V1_CALL)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    leftover = root / f".client.py.{int(dead.stdout)}.k3y9{TEMP_SUFFIX}"
    leftover.write_text("half a file")
    live = root / f".client.py.{os.getpid()}.a1b2{TEMP_SUFFIX}"  # a writer still running: not touched
    live.write_text("being written")
    assert main(["rewrite", str(root)]) == 0
    assert not leftover.exists() and live.exists()
    assert f"removed {leftover}: a temporary file of a run that was killed" in capsys.readouterr().err
    assert "rest.runpod.io/v1" not in (root / "client.py").read_text()


WRITER = '''
import os, sys, time
from codemod import safe_write

def slow_fsync(fd, _fsync=os.fsync):
    _fsync(fd)
    print("writing", flush=True)  # the bytes are in the file; the parent kills us now
    time.sleep(60)

safe_write.os.fsync = slow_fsync
safe_write.replace(sys.argv[1], b"new text\\n" * 100_000)
'''


def test_a_writer_killed_while_it_writes_leaves_no_temporary_file(tmp_path):
    """Guards issue 23 #12 by hand: `kill -9` of a `rewrite` parent while it wrote the held-back files left a
    `.NAME.PID.XXXX.v1bridge-tmp` (4 of 5 kills). The bytes now go to a file with no name (O_TMPFILE), named only
    for the rename: killed while it writes, the writer leaves the target as it was and nothing else."""
    target = tmp_path / "client.py"
    target.write_text("old text\n")
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(target)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "writing\n", proc.stderr.read()
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["client.py"]
    assert target.read_text() == "old text\n"
