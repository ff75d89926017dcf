"""An upstream that costs almost nothing: v2 answers captured once from the sandbox, then served as fixed bytes.

`capture()` runs the sandbox, creates 20 pods and records the exact v2 answers (status, headers that v2 sends,
body) of GET /v2/pods, GET /v2/pods/{id} and POST /v2/pods/{id}/action. `start()` serves them from nginx
(one file per exact location, one process, no access log) when nginx is installed, else from
`serve_raw`: a minimal asyncio protocol with every response prepared at start-up. Either runs as one process,
so the caller can pin it to its own core.
"""
from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import proxy_bench as pb  # noqa: E402

# the v2 headers worth replaying (the proxy copies request id and rate limits into its v1 answer)
_KEEP = ("Content-Type", "x-request-id", "RateLimit", "RateLimit-Policy")


@dataclass
class Answer:
    method: str
    path: str
    status: int
    headers: list[tuple[str, str]]
    body: bytes


@dataclass
class Captured:
    pod_id: str
    answers: list[Answer]


def capture(pods: int = 20) -> Captured:
    ctx = multiprocessing.get_context("spawn")
    port = pb.free_port()
    proc = ctx.Process(target=pb.run_sandbox, args=(port,), daemon=True)
    proc.start()
    try:
        pb.wait_up(port)
        base = f"http://127.0.0.1:{port}"
        ids = [pb.call(base + "/v2/pods", "POST", pb.V2_POD)["id"] for _ in range(pods)]
        pod = ids[0]
        answers = []
        for method, path, body in (("GET", "/v2/pods", None), ("GET", f"/v2/pods/{pod}", None),
                                   ("POST", f"/v2/pods/{pod}/action", {"action": "stop"})):
            data = json.dumps(body).encode() if body is not None else None
            req = urllib.request.Request(base + path, data=data, method=method,
                                         headers={"Authorization": f"Bearer {pb.KEY}",
                                                  "Content-Type": "application/json"})
            with urllib.request.urlopen(req) as resp:
                raw = resp.read()
                headers = [(k, resp.headers[k]) for k in _KEEP if resp.headers.get(k) is not None]
                answers.append(Answer(method, path, resp.status, headers, raw))
        return Captured(pod, answers)
    finally:
        proc.terminate()
        proc.join(5)


# ------------------------------------------------------------------ nginx


def nginx_config(captured: Captured, port: int, prefix: Path) -> str:
    """One exact location per answer, each a file written here; a POST is answered with its file too (the
    static module refuses POST with 405, which error_page turns into the file as a 200)."""
    files = prefix / "answers"
    files.mkdir(exist_ok=True)
    locations = []
    for n, a in enumerate(captured.answers):
        if a.status != 200:
            raise ValueError("only 200 answers are served from files")
        (files / f"{n}.json").write_bytes(a.body)
        content_type = next(v for k, v in a.headers if k == "Content-Type")
        extra = "".join(f"      add_header {k} '{v}' always;\n" for k, v in a.headers if k != "Content-Type")
        locations.append(f"    location = {a.path} {{\n      default_type {content_type};\n{extra}"
                         f"      alias {files}/{n}.json;\n      error_page 405 =200 $uri;\n    }}\n")
    return (
        "daemon off;\nmaster_process off;\nworker_processes 1;\n"
        f"pid {prefix}/nginx.pid;\nerror_log {prefix}/error.log warn;\n"
        "events { worker_connections 4096; }\n"
        "http {\n  access_log off;\n  keepalive_requests 10000000;\n  keepalive_timeout 300s;\n"
        "  etag off;\n  types { }\n"
        f"  client_body_temp_path {prefix}/body;\n  proxy_temp_path {prefix}/proxy;\n"
        f"  fastcgi_temp_path {prefix}/fastcgi;\n  uwsgi_temp_path {prefix}/uwsgi;\n  scgi_temp_path {prefix}/scgi;\n"
        f"  server {{\n    listen 127.0.0.1:{port};\n    server_tokens off;\n{''.join(locations)}"
        "    location / { return 404; }\n  }\n}\n"
    )


# ------------------------------------------------------------------ raw asyncio server


def _prepared(captured: Captured) -> dict[tuple[bytes, bytes], bytes]:
    out = {}
    for a in captured.answers:
        head = [f"HTTP/1.1 {a.status} OK", *(f"{k}: {v}" for k, v in a.headers), f"Content-Length: {len(a.body)}"]
        out[(a.method.encode(), a.path.encode())] = ("\r\n".join(head) + "\r\n\r\n").encode() + a.body
    return out


_NOT_FOUND = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"


class _Protocol(asyncio.Protocol):
    """HTTP/1.1 keep-alive, pipelining-safe: one prepared answer per complete request head (+ body)."""

    def __init__(self, answers: dict[tuple[bytes, bytes], bytes]) -> None:
        self.answers = answers
        self.buf = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport) -> None:  # type: ignore[override]
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buf += data
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buf[:end]
            length = 0
            lower = head.lower()
            at = lower.find(b"\r\ncontent-length:")
            if at >= 0:
                stop = lower.find(b"\r\n", at + 2)
                length = int(lower[at + 17:stop if stop >= 0 else None])
            if len(self.buf) < end + 4 + length:
                return
            self.buf = self.buf[end + 4 + length:]
            method, target = head.split(b" ", 2)[:2]
            path = target.split(b"?", 1)[0]
            self.transport.write(self.answers.get((method, path), _NOT_FOUND))  # type: ignore[union-attr]


def serve_raw(captured: Captured, port: int) -> None:
    answers = _prepared(captured)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: _Protocol(answers), "127.0.0.1", port, backlog=4096)
        async with server:
            await server.serve_forever()

    asyncio.run(main())


class FastUpstream:
    """One process serving the captured answers; `pid` for pinning and CPU accounting."""

    def __init__(self, captured: Captured, port: int, workdir: Path, prefer_nginx: bool = True) -> None:
        self.port = port
        self.kind = "nginx" if prefer_nginx and shutil.which("nginx") else "python"
        self._proc: subprocess.Popen | multiprocessing.Process
        if self.kind == "nginx":
            try:
                conf = nginx_config(captured, port, workdir)
            except ValueError:
                self.kind = "python"
        if self.kind == "nginx":
            (workdir / "nginx.conf").write_text(conf)
            self._proc = subprocess.Popen(["nginx", "-p", str(workdir), "-c", str(workdir / "nginx.conf"),
                                           "-e", str(workdir / "error.log")],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        else:
            self._proc = multiprocessing.get_context("spawn").Process(target=serve_raw, args=(captured, port),
                                                                      daemon=True)
            self._proc.start()
        pb.wait_up(port)

    @property
    def pid(self) -> int:
        return self._proc.pid  # type: ignore[return-value]

    def stop(self) -> None:
        self._proc.terminate()
        if isinstance(self._proc, subprocess.Popen):
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
        else:
            self._proc.join(5)


def pin(pid: int, cpus: set[int]) -> None:
    if hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) >= 2:
        for task in os.listdir(f"/proc/{pid}/task"):  # every thread (aiohttp resolver, executor) of the process
            try:
                os.sched_setaffinity(int(task), cpus)
            except OSError:
                pass
