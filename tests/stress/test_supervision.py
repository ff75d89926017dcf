"""`--workers N`: a signal to the parent stops every worker and the embedded sandbox, gracefully; a killed parent
leaves no orphan; one process only opens a sandbox database (a second opener gets a clear error, exit 2)."""
from __future__ import annotations

import fcntl
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not hasattr(socket, "SO_REUSEPORT") or not Path("/proc").exists(),
                                reason="needs SO_REUSEPORT and /proc")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _group(pgid: int) -> list[int]:
    """Live processes of a process group (zombies excluded: they serve nothing and hold no lock)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def _serves(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _start(args: list[str], log: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, "-m", "v1bridge", *args], cwd=ROOT, env=env, stdout=out,
                                stderr=out, start_new_session=True)


def _wait_healthy(port: int, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 40
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            raise AssertionError(f"never answered: {log.read_text()}")
        time.sleep(0.1)


def _lock_is_free(db: Path) -> bool:
    fd = os.open(str(db) + ".lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def _cleanup(proc: subprocess.Popen) -> None:
    for pid in _group(proc.pid):
        os.kill(pid, signal.SIGKILL)
    proc.wait(timeout=5)


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signal_to_the_parent_stops_every_worker_and_the_sandbox(tmp_path: Path, stop):
    """Only the parent is signalled (not the group): every process exits, the port is free, the database
    lock is released, and the workers' usage records were flushed on the way out."""
    port, db = _free_port(), tmp_path / "state.db"
    log = tmp_path / "proxy.log"
    proc = _start(["proxy", "--port", str(port), "--workers", "2", "--keys", "k1", "--db", str(db),
                   "--usage-dir", str(tmp_path / "usage"), "--no-access-log"], log)
    try:
        _wait_healthy(port, proc, log)
        assert len(_group(proc.pid)) >= 4  # parent, sandbox, two workers (plus multiprocessing's tracker)
        assert not _lock_is_free(db)
        req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/pods", headers={"Authorization": "Bearer k1"})
        with urllib.request.urlopen(req, timeout=5) as resp:
            assert resp.status == 200
        os.kill(proc.pid, stop)
        try:
            code = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the proxy did not exit within 30 s of {stop.name}; processes left "
                        f"{_group(proc.pid)}; its log:\n{log.read_text()}")
        assert code == 0
        deadline = time.monotonic() + 10
        while _group(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _group(proc.pid) == []
        assert not _serves(port)
        assert _lock_is_free(db)
        records = [line for f in (tmp_path / "usage").glob("usage-*.jsonl") for line in f.read_text().splitlines()]
        assert len(records) == 1  # the one v1 call, written at the worker's graceful stop
    finally:
        _cleanup(proc)


def test_a_killed_parent_leaves_no_orphan_serving_the_port(tmp_path: Path):
    """SIGKILL to the parent (no chance to clean up): the workers and the sandbox notice and stop themselves."""
    port, db = _free_port(), tmp_path / "state.db"
    log = tmp_path / "proxy.log"
    proc = _start(["proxy", "--port", str(port), "--workers", "2", "--keys", "k1", "--db", str(db),
                   "--no-access-log"], log)
    try:
        _wait_healthy(port, proc, log)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)
        deadline = time.monotonic() + 15
        while (_group(proc.pid) or _serves(port)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _group(proc.pid) == []
        assert not _serves(port)
        assert _lock_is_free(db)
    finally:
        _cleanup(proc)


def test_a_second_opener_of_a_sandbox_database_is_refused_with_a_clear_error(tmp_path: Path):
    """A sandbox holds state.db: a second sandbox, and a proxy embedding one, exit 2 naming the holder; the
    first keeps serving."""
    port, db = _free_port(), tmp_path / "state.db"
    first_log = tmp_path / "first.log"
    first = _start(["sandbox", "--port", str(port), "--keys", "k1", "--db", str(db)], first_log)
    try:
        deadline = time.monotonic() + 30
        while not _serves(port):
            assert time.monotonic() < deadline and first.poll() is None, first_log.read_text()
            time.sleep(0.1)
        holder = (Path(str(db) + ".lock")).read_text().strip()
        expected = (f"the sandbox database {db} is already open in another process (pid {holder}); "
                    "one sandbox per database file: stop it or choose another --db")
        second = subprocess.run([sys.executable, "-m", "v1bridge", "sandbox", "--port", str(_free_port()), "--keys",
                                 "k1", "--db", str(db)], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        assert second.stderr.strip().splitlines()[-1] == f"v1bridge sandbox: {expected}"
        proxy = subprocess.run([sys.executable, "-m", "v1bridge", "proxy", "--port", str(_free_port()), "--keys",
                                "k1", "--db", str(db), "--no-access-log"], cwd=ROOT, capture_output=True, text=True,
                               timeout=60)
        assert proxy.returncode == 2
        assert proxy.stderr.strip().splitlines()[-1] == f"v1bridge proxy: {expected}"
        assert first.poll() is None and _serves(port)
    finally:
        os.kill(first.pid, signal.SIGTERM)
        first.wait(timeout=15)


@pytest.mark.parametrize("started", [2, 3, 4], ids=["sandbox", "one-worker", "two-workers"])
def test_a_signal_while_the_workers_start_stops_everything(tmp_path: Path, started):
    """SIGINT to the parent while it is still starting processes (a health check can pass as soon as the first
    worker listens): every process exits. It used to leave the parent waiting forever on its own workers at exit."""
    port, log = _free_port(), tmp_path / "proxy.log"
    proc = _start(["proxy", "--port", str(port), "--workers", "2", "--keys", "k1", "--db", str(tmp_path / "s.db"),
                   "--no-access-log"], log)
    try:
        deadline = time.monotonic() + 60
        while len(_group(proc.pid)) < started and time.monotonic() < deadline:
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the proxy did not exit within 30 s; processes left {_group(proc.pid)}; its log:\n"
                        f"{log.read_text()}")
        deadline = time.monotonic() + 15
        while _group(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _group(proc.pid) == []
        assert not _serves(port)
    finally:
        _cleanup(proc)
