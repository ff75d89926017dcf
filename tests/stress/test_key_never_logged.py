"""Malformed Authorization lines, sent raw to a real proxy process and a real sandbox process: the key appears in
no output -- stderr (aiohttp's bad-request log, the access log), usage files, database files, metrics -- and in no
reply (aiohttp's own 400 used to quote the line back)."""
from __future__ import annotations

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
KEY = "sk-v1bridge-Secret-0123456789abcdef"
# every way a key line goes wrong in practice, and the well-formed ones
VARIANTS: dict[str, bytes] = {
    "well-formed": b"Authorization: Bearer " + KEY.encode(),
    "trailing-cr": b"Authorization: Bearer " + KEY.encode() + b"\r",  # a key read from a CRLF file
    "control-byte": b"Authorization: Bearer " + KEY.encode() + b"\x01",
    "nul": b"Authorization: Bearer " + KEY.encode() + b"\x00",
    "over-8-kib": b"Authorization: Bearer " + KEY.encode() + b"A" * 9000,
    "bare-lf": b"Authorization: Bearer " + KEY.encode() + b"\n",
    "space-before-colon": b"Authorization : Bearer " + KEY.encode(),
    "obs-fold": b"Authorization: Bearer\r\n " + KEY.encode(),
    "non-utf8-byte": b"Authorization: Bearer " + KEY.encode() + b"\xff",
    "no-scheme": b"Authorization: " + KEY.encode(),
    "lowercase-name": b"authorization: bearer " + KEY.encode(),
    "twice": b"Authorization: Bearer " + KEY.encode() + b"\r\nAuthorization: Bearer " + KEY.encode(),
}
PATHS = ["/v1/pods", "/v2/pods", "/v1/pods/p1/reset"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(url, timeout=1) as resp:
                if resp.status in (200, 401):
                    return
        except urllib.error.HTTPError:
            return
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise AssertionError(f"{url} never answered")
            time.sleep(0.1)


def _send(port: int, method: str, path: str, auth_line: bytes) -> bytes:
    request = (f"{method} {path} HTTP/1.1\r\nHost: a\r\n".encode() + auth_line
               + b"\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(request)
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _start(args: list[str], stderr_path: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("V1BRIDGE_KEYS", None)
    with stderr_path.open("wb") as err:
        return subprocess.Popen([sys.executable, "-m", "v1bridge", *args], cwd=ROOT, env=env,
                                stdout=err, stderr=err, start_new_session=True)


def _stop(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs a POSIX process model")
def test_malformed_authorization_never_reaches_any_output(tmp_path: Path):
    proxy_port, sandbox_port = _free_port(), _free_port()
    proxy = _start(["proxy", "--port", str(proxy_port), "--keys", KEY, "--usage-dir", str(tmp_path / "usage"),
                    "--db", str(tmp_path / "proxy.db")], tmp_path / "proxy.stderr")
    sandbox = _start(["sandbox", "--port", str(sandbox_port), "--keys", KEY, "--db", str(tmp_path / "sandbox.db"),
                      "--transition-seconds", "0"], tmp_path / "sandbox.stderr")
    answers: dict[tuple[str, str, str], int] = {}
    replies: dict[tuple[str, str, str], bytes] = {}
    try:
        _wait_healthy(f"http://127.0.0.1:{proxy_port}/healthz", proxy)
        _wait_healthy(f"http://127.0.0.1:{sandbox_port}/v2/openapi.json", sandbox)
        for name, line in VARIANTS.items():
            for path in PATHS:
                method = "POST" if path.endswith("reset") or path == "/v1/pods" else "GET"
                answer = _send(proxy_port, method, path, line)
                answers[("proxy", name, path)] = int(answer.split(b" ", 2)[1])
                replies[("proxy", name, path)] = answer
            answer = _send(sandbox_port, "GET", "/v2/pods", line)
            answers[("sandbox", name, "/v2/pods")] = int(answer.split(b" ", 2)[1])
            replies[("sandbox", name, "/v2/pods")] = answer
        with urllib.request.urlopen(f"http://127.0.0.1:{proxy_port}/metrics", timeout=5) as resp:
            metrics = resp.read()
    finally:
        _stop(proxy)
        _stop(sandbox)
    # every variant was answered; the malformed ones by aiohttp's parser (400) before any handler ran
    for name in ("trailing-cr", "control-byte", "nul", "over-8-kib", "bare-lf", "space-before-colon", "obs-fold"):
        assert {answers[(where, name, p)] for where, n, p in answers if n == name} == {400}, (name, answers)
    assert answers[("proxy", "well-formed", "/v2/pods")] == 200
    assert answers[("sandbox", "well-formed", "/v2/pods")] == 200
    assert answers[("proxy", "no-scheme", "/v2/pods")] == 401
    # raw bytes in the key: refused by the proxy (aiohttp's client would forward the key without them)
    assert {answers[("proxy", "non-utf8-byte", p)] for p in PATHS} == {400}
    assert answers[("sandbox", "non-utf8-byte", "/v2/pods")] == 401
    stderr = (tmp_path / "proxy.stderr").read_bytes() + (tmp_path / "sandbox.stderr").read_bytes()
    assert b"Error handling request" in stderr  # the bad requests were logged, as events
    assert b"(request bytes not logged)" in stderr
    outputs = {"metrics": metrics}
    for path in tmp_path.rglob("*"):
        if path.is_file():
            outputs[str(path.relative_to(tmp_path))] = path.read_bytes()
    assert any(name.startswith("usage/") for name in outputs)
    needle = KEY.encode()
    assert [name for name, data in outputs.items() if needle in data or needle[:20] in data] == []
    # nor in any reply: aiohttp's parse-error answer names its complaint, not the line (mappings/redact.py)
    assert [where for where, reply in replies.items() if needle[:12] in reply] == []
    assert b'"message":"the request could not be read as HTTP (Invalid header value char); it was not processed"' \
        in replies[("proxy", "control-byte", "/v1/pods")]
