"""A real proxy process for the memory benches (bench/answers_in_flight.py, bench/large_answer.py): started from a
checkout, warmed with one call, then loaded while /healthz is polled every 10 ms; its peak RSS and that of every
process it started (the answer pool's workers, multiprocessing's resource tracker) read from /proc."""
from __future__ import annotations

import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import aiohttp


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status(pid: int, field: str) -> int:
    """A VmRSS / VmHWM figure of a process, in KiB (0 once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    """Every child of `pid`, whichever of its threads started it."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found.update(int(c) for c in (task / "children").read_text().split())
        except OSError:
            pass
    return sorted(found)


async def load(url: str, path: str, concurrent: int) -> dict:
    """`concurrent` calls of `path` at once, each answer read in chunks and only counted, while /healthz is polled:
    wall time, the statuses, the first answer's size, and /healthz's worst and median wait."""
    latencies: list[float] = []
    done = asyncio.Event()
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=900)) as session:
        async def poll() -> None:
            while not done.is_set():
                started = time.perf_counter()
                async with session.get(f"{url}/healthz") as r:
                    await r.read()
                latencies.append(time.perf_counter() - started)
                await asyncio.sleep(0.01)

        async def one() -> tuple[int, int]:
            size = 0
            async with session.get(f"{url}{path}", headers={"Authorization": "Bearer k"}) as r:
                async for chunk in r.content.iter_chunked(1 << 20):
                    size += len(chunk)
                return r.status, size

        poller = asyncio.create_task(poll())
        await asyncio.sleep(0.2)
        started = time.perf_counter()
        answers = await asyncio.gather(*(one() for _ in range(concurrent)))
        wall = time.perf_counter() - started
        done.set()
        await poller
    return {"wall": wall, "statuses": sorted({s for s, _ in answers}), "v1_bytes": answers[0][1],
            "worst": max(latencies), "median": statistics.median(latencies), "polls": len(latencies)}


def measure(code: Path, upstream: str, path: str, concurrent: int, *flags: str) -> dict:
    """One proxy process (`python -m v1bridge proxy` from the checkout CODE): warmed with one call, its peak RSS and
    its children's reset, then `concurrent` calls of `path`. Figures in MB: `proxy_peak`, `proxy_before` (its RSS
    after the warm-up), `workers` (each child's peak), with `load`'s."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "v1bridge", "proxy", "--upstream", upstream, "--port", str(port),
                             "--no-access-log", "--timeout", "600", "--deadline", "600", *flags],
                            cwd=code, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        ends = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > ends or proc.poll() is not None:
                    raise SystemExit(f"the proxy did not start: {proc.stderr.read().decode()[-2000:]}")
                time.sleep(0.1)
        asyncio.run(load(url, path, 1))  # warm: imports, first translation, the answer pool if it is used
        before = status(proc.pid, "VmRSS")
        Path(f"/proc/{proc.pid}/clear_refs").write_text("5")  # VmHWM starts again from here
        for child in children(proc.pid):
            Path(f"/proc/{child}/clear_refs").write_text("5")
        result = asyncio.run(load(url, path, concurrent))
        result["proxy_peak"] = status(proc.pid, "VmHWM") / 1024
        result["proxy_before"] = before / 1024
        result["workers"] = [status(pid, "VmHWM") / 1024 for pid in children(proc.pid)]
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    return result
