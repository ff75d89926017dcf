"""The same app factory serves POST /graphql in every `--workers` process and under gunicorn."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.live_server import wait_listening
from tests.proxy.tools import ROOT, free_port, stop_process, wait_answering

KEY = "k1"
QUERY = json.dumps({"query": "{ myself { pods { id } } gpuTypes(input: {id: \"NVIDIA A40\"}) { id } }"}).encode()


def _start(argv: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)


def _graphql(port: int) -> dict:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/graphql?api_key={KEY}", data=QUERY, method="POST",
                                 headers={"Content-Type": "application/json", "Connection": "close"})
    with urllib.request.urlopen(req, timeout=20) as resp:
        assert resp.status == 200
        return json.loads(resp.read())


@pytest.fixture
def sandbox_url():
    port = free_port()
    proc = _start([sys.executable, "-m", "v1bridge.cli", "sandbox", "--port", str(port), "--keys", KEY])
    try:
        wait_answering(port, proc, "/v2/openapi.json")
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_process(proc)


def _served(port: int) -> None:
    for _ in range(8):  # fresh connections: each worker answers some
        assert _graphql(port) == {"data": {"myself": {"pods": []}, "gpuTypes": [{"id": "NVIDIA A40"}]}}


@pytest.mark.skipif(not hasattr(socket, "SO_REUSEPORT"), reason="SO_REUSEPORT needed")
def test_cli_workers_serve_graphql(sandbox_url):
    port = free_port()
    proc = _start([sys.executable, "-m", "v1bridge.cli", "proxy", "--upstream", sandbox_url, "--port", str(port),
                   "--workers", "2", "--no-access-log"])
    try:
        wait_answering(port, proc)
        wait_listening(port, 2)
        _served(port)
    finally:
        stop_process(proc)


@pytest.mark.skipif(shutil.which("gunicorn", path=str(Path(sys.executable).parent)) is None,
                    reason="gunicorn (test extra) not installed")
def test_gunicorn_serves_graphql(sandbox_url, tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env.update(V1BRIDGE_UPSTREAM=sandbox_url, TMPDIR=str(tmp_path))
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    proc = _start([gunicorn, "proxy.app:gunicorn_app", "--worker-class", "proxy.gunicorn_worker.GunicornWorker",
                   "--workers", "2", "--bind", f"127.0.0.1:{port}"], env)
    try:
        wait_answering(port, proc)
        _served(port)
    finally:
        stop_process(proc)
