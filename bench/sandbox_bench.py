"""Throughput of the v2 sandbox on one process, measured with wrk over loopback.

    python bench/sandbox_bench.py [--duration 5] [--connections 32]

Starts `v1bridge sandbox` on a free loopback port, creates 20 pods, then runs
wrk against GET /v2/pods/{id} and GET /v2/pods (20 pods) and prints requests/s,
latency and the ratio of the two, all from this one run. Needs wrk on PATH
(apt-get install -y wrk).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KEY = "bench-key"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(url: str, method: str = "GET", body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={
        "Authorization": f"Bearer {KEY}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def wait_ready(base: str, deadline: float) -> None:
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"{base}/v2/openapi.json", timeout=1).read()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("sandbox did not start")


def run_wrk(url: str, duration: int, connections: int) -> dict[str, float]:
    out = subprocess.run(
        ["wrk", "-t1", f"-c{connections}", f"-d{duration}s", "--latency", "-H", f"Authorization: Bearer {KEY}", url],
        capture_output=True, text=True, timeout=duration + 30, check=True,
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))

    def ms(label: str) -> float:
        m = re.search(rf"{label}\s+([\d.]+)(us|ms|s)\b", out)
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    return {"rps": rps, "p50": ms("50%"), "p99": ms("99%"), "errors": int(non2xx.group(1)) if non2xx else 0}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=int, default=5, help="seconds per wrk run (default 5)")
    parser.add_argument("--connections", type=int, default=32, help="wrk connections (default 32)")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        print("wrk not found: apt-get install -y wrk", file=sys.stderr)
        return 2
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "v1bridge", "sandbox", "--host", "127.0.0.1", "--port", str(port),
         "--keys", KEY, "--transition-seconds", "0"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_ready(base, time.time() + 30)
        ids = [
            request(f"{base}/v2/pods", "POST", {
                "name": f"bench-{i}", "image": "runpod/pytorch:2.4.0", "gpu": {"id": "NVIDIA GeForce RTX 4090"},
                "ports": ["8888/http", "22/tcp"], "env": {"I": str(i)},
            })["id"]
            for i in range(20)
        ]
        assert len(request(f"{base}/v2/pods")["pods"]) == 20
        single = run_wrk(f"{base}/v2/pods/{ids[0]}", args.duration, args.connections)
        listing = run_wrk(f"{base}/v2/pods", args.duration, args.connections)
    finally:
        proc.terminate()
        proc.wait(10)
    print(f"sandbox, one process, wrk -t1 -c{args.connections} -d{args.duration}s, loopback")
    print(f"{'request':<28}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}{'non-2xx':>9}")
    for name, r in (("GET /v2/pods/{id}", single), ("GET /v2/pods (20 pods)", listing)):
        print(f"{name:<28}{r['rps']:>10.0f}{r['p50']:>10.2f}{r['p99']:>10.2f}{r['errors']:>9}")
    print(f"list/get throughput ratio: {listing['rps'] / single['rps']:.2f}")
    return 0 if single["errors"] == listing["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
