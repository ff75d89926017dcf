"""/metrics with several processes: `v1bridge proxy --workers 2` and gunicorn with 2 workers. Requests are spread
over both workers (fresh connections, SO_REUSEPORT); every scrape, whichever worker answers it, counts them all."""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.live_server import wait_listening
from tests.proxy.tools import free_port, stop_process, wait_answering, wait_booted

ROOT = Path(__file__).resolve().parents[2]
KEY = "k1"
REQUESTS = 40
LIST_200 = re.compile(r'^v1bridge_requests_total\{api="v1",method="GET",operation="pods.list",route="GET /pods",'
                      r'status="200"\} ([0-9.]+)$', re.M)
LATENCY_COUNT = re.compile(r'^v1bridge_request_seconds_count\{api="v1"\} ([0-9.]+)$', re.M)
UPSTREAM_COUNT = re.compile(r'^v1bridge_upstream_seconds_count\{call="pods.list"\} ([0-9.]+)$', re.M)


def _get(port: int, path: str) -> tuple[int, bytes]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}",
                                 headers={"Authorization": f"Bearer {KEY}", "Connection": "close"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status, resp.read()


@pytest.fixture
def sandbox_url():
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "v1bridge.cli", "sandbox", "--port", str(port), "--keys", KEY],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        wait_answering(port, proc, "/v2/openapi.json")
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_process(proc)


def _served_by_every_worker_and_counted_by_every_scrape(port: int, usage: Path, proc: subprocess.Popen) -> None:
    with ThreadPoolExecutor(8) as pool:  # concurrent: a worker busy with one leaves the next to the other
        assert list(pool.map(lambda _: _get(port, "/v1/pods")[0], range(REQUESTS))) == [200] * REQUESTS
    for _ in range(10):  # each scrape on a fresh connection: both workers answer some of them
        status, body = _get(port, "/metrics")
        text = body.decode()
        assert status == 200
        assert [float(x) for x in LIST_200.findall(text)] == [REQUESTS]
        assert [float(x) for x in UPSTREAM_COUNT.findall(text)] == [REQUESTS]
        assert float(LATENCY_COUNT.findall(text)[0]) == REQUESTS
    stop_process(proc)
    per_process = [sum(1 for _ in f.open()) for f in sorted(usage.glob("usage-*.jsonl"))]
    assert len(per_process) == 2 and min(per_process) > 0, per_process  # both workers served requests
    assert sum(per_process) == REQUESTS
    # one key, one client: both workers fingerprint it with the salt kept beside the records (issue 23 #8)
    clients = {json.loads(line)["client"] for f in usage.glob("usage-*.jsonl") for line in f.open()}
    salt = (usage / "fingerprint-salt").read_text().strip()
    assert len(clients) == 1 and len(salt) == 32
    assert (usage / "fingerprint-salt").stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in usage.iterdir() if not p.name.startswith("usage-")) == ["fingerprint-salt"]
    assert salt not in "".join(f.read_text() for f in usage.glob("usage-*.jsonl"))


@pytest.mark.skipif(not hasattr(socket, "SO_REUSEPORT"), reason="SO_REUSEPORT needed")
def test_one_scrape_counts_both_cli_workers(sandbox_url, tmp_path):
    port = free_port()
    shared = tmp_path / "prom"
    shared.mkdir()
    (shared / "counter_999999.db").write_bytes(b"stale")  # an earlier start's file is cleared, never added
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(shared)}
    proc = subprocess.Popen([sys.executable, "-m", "v1bridge.cli", "proxy", "--upstream", sandbox_url, "--port",
                             str(port), "--workers", "2", "--usage-dir", str(tmp_path / "usage"), "--no-access-log"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        wait_answering(port, proc)
        wait_listening(port, 2)
        _served_by_every_worker_and_counted_by_every_scrape(port, tmp_path / "usage", proc)
        files = sorted(p.name.split("_")[0] for p in shared.glob("*.db"))
        assert files == ["counter", "counter", "histogram", "histogram"]
    finally:
        stop_process(proc)


@pytest.mark.skipif(not hasattr(socket, "SO_REUSEPORT"), reason="SO_REUSEPORT needed")
def test_cli_workers_make_and_remove_their_own_metrics_directory(sandbox_url, tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env["TMPDIR"] = str(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "v1bridge.cli", "proxy", "--upstream", sandbox_url, "--port",
                             str(port), "--workers", "2", "--no-access-log"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        wait_answering(port, proc)
        made = list(tmp_path.glob("v1bridge-metrics-*"))
        assert len(made) == 1
        for _ in range(4):
            assert _get(port, "/v1/pods")[0] == 200
        text = _get(port, "/metrics")[1].decode()
        assert [float(x) for x in LIST_200.findall(text)] == [4]
    finally:
        stop_process(proc)
    assert not list(tmp_path.glob("v1bridge-metrics-*"))


@pytest.mark.skipif(shutil.which("gunicorn", path=str(Path(sys.executable).parent)) is None,
                    reason="gunicorn (test extra) not installed")
def test_one_scrape_counts_both_gunicorn_workers(sandbox_url, tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env.update(V1BRIDGE_UPSTREAM=sandbox_url, V1BRIDGE_USAGE_DIR=str(tmp_path / "usage"), TMPDIR=str(tmp_path))
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    proc = subprocess.Popen([gunicorn, "proxy.app:gunicorn_app", "--worker-class", "proxy.gunicorn_worker.GunicornWorker",
                             "--workers", "2", "--bind", f"127.0.0.1:{port}", "--reuse-port"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        wait_answering(port, proc)
        wait_booted(proc.pid, 2)
        _served_by_every_worker_and_counted_by_every_scrape(port, tmp_path / "usage", proc)
        assert [p.name for p in tmp_path.glob("v1bridge-metrics-*")] == [f"v1bridge-metrics-{proc.pid}"]
    finally:
        stop_process(proc)
