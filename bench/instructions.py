"""Instructions per request of the proxy, counted by valgrind's callgrind: an A/B that a shared machine's load does
not move (the same build gives the same count within about 0.5%), where CPU time per request moves 5-10% from run
to run.

    .venv/bin/python bench/instructions.py [--route get|stop|list] [--requests 1000] [--targets plain,naive,v1bridge]
                                           [--baseline DIR]

Each target runs alone under `valgrind --tool=callgrind --instr-atstart=no` against the fast upstream
(bench/fast_upstream.py); after 200 requests of warm-up, counting is switched on (`callgrind_control -i on`) for
`--requests` requests sent by 10 keep-alive connections, then off. Prints user-space instructions per request
(what the process executes itself; system calls are not counted, and neither are cache misses: CPU time per
request from bench/hotpath.py stays the figure of record). v1bridge runs as `v1bridge proxy` does (serving_for_life,
its event loop, access log, usage records); `--baseline DIR` also counts v1bridge from another checkout. Needs
valgrind (`apt-get install valgrind`); each target takes about 30 s.
"""
from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import fast_upstream as fu  # noqa: E402
import hotpath  # noqa: E402
import proxy_bench as pb  # noqa: E402

# the server process: argv = tree, target, port, upstream URL, records directory
SERVER = r'''
import os, sys
tree, target, port, upstream, records = sys.argv[1:6]
sys.path.insert(0, os.path.join(tree, "bench"))
sys.path.insert(0, tree)
if target != "v1bridge":
    import naive_translator, proxy_bench
    {"naive": naive_translator.run, "plain": proxy_bench.run_plain,
     "plain-http1": proxy_bench.run_plain_http1}[target](int(port), upstream)
else:
    import hotpath
    hotpath.run_translating(int(port), upstream, records)
'''


async def _load(port: int, request: bytes, count: int, connections: int = 10) -> None:
    sent = 0

    async def connection() -> None:
        nonlocal sent
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        while sent < count:
            sent += 1
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            if not head.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(f"not a 200: {head[:200]!r}")
            length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
            await reader.readexactly(int(length.group(1)) if length else 0)
        writer.close()

    await asyncio.gather(*(connection() for _ in range(connections)))


def _request(route: str, target: str, pod: str) -> bytes:
    v2 = target.startswith("plain")
    path, _ = hotpath.requests_for(route, "plain" if v2 else "v1bridge", pod)
    body = b""
    if route == "stop":
        body = b'{"action":"stop"}' if v2 else b""
        head = f"POST {path} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    else:
        head = f"GET {path} HTTP/1.1\r\n"
    return (head + f"Host: bench\r\nAuthorization: Bearer {pb.KEY}\r\nUser-Agent: bench\r\n\r\n").encode() + body


def count(tree: Path, target: str, route: str, requests: int, captured: fu.Captured, upstream_url: str,
          work: Path) -> float:
    """Instructions per request of one target."""
    port = pb.free_port()
    records = Path(tempfile.mkdtemp(dir=work))
    out = records / "callgrind.out"
    script = records / "server.py"
    script.write_text(SERVER)
    proc = subprocess.Popen(["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
                             sys.executable, str(script), str(tree), target, str(port), upstream_url, str(records)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{target} did not start under valgrind") from None
                time.sleep(0.2)
        request = _request(route, target, captured.pod_id)
        asyncio.run(_load(port, request, 200))
        subprocess.run(["callgrind_control", "-i", "on", str(proc.pid)], capture_output=True, check=True)
        asyncio.run(_load(port, request, requests))
        subprocess.run(["callgrind_control", "-i", "off", str(proc.pid)], capture_output=True, check=True)
        subprocess.run(["callgrind_control", "-d", str(proc.pid)], capture_output=True, check=True)
    finally:
        proc.terminate()
        proc.wait(60)
    total = 0
    for dump in records.glob("callgrind.out*"):
        for line in dump.read_text(errors="replace").splitlines():
            if line.startswith(("summary:", "totals:")):
                total = max(total, int(line.split()[1]))
    return total / requests


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--route", choices=("list", "get", "stop"), default="get")
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--targets", default="plain,naive,v1bridge")
    parser.add_argument("--baseline", help="also count v1bridge from this checkout (a worktree of another commit)")
    args = parser.parse_args()
    if not (shutil.which("valgrind") and shutil.which("callgrind_control")):
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    runs = [(t, ROOT) for t in args.targets.split(",")]
    if args.baseline:
        runs.append(("baseline", Path(args.baseline).resolve()))
    with tempfile.TemporaryDirectory(prefix="instructions-") as tmp:
        work = Path(tmp)
        captured = fu.capture()
        port = pb.free_port()
        upstream = fu.FastUpstream(captured, port, work)
        try:
            for name, tree in runs:
                target = "v1bridge" if name == "baseline" else name
                per_request = count(tree, target, args.route, args.requests, captured, f"http://127.0.0.1:{port}", work)
                print(f"{args.route} {name:9s} {per_request:12,.0f} instructions/request", flush=True)
        finally:
            upstream.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
