"""The upstream client alone: CPU per call of aiohttp's ClientSession against `proxy/http1.Pool`, the client
the proxy's translated calls go through, over the same fast upstream (bench/fast_upstream.py: nginx, or the
prepared-bytes server), in one process, interleaved rounds, medians.

    .venv/bin/python bench/upstream_client.py [--calls 20000] [--concurrency 50] [--rounds 3]

Both clients send what the proxy sends (Accept, User-Agent, Authorization), read the whole body and the
status; the ClientSession is configured as the proxy's pass-through session is (pooled, no cookie jar).
CPU is this process's `time.process_time` over the measured calls, so the upstream's own cost is not in it
(pin the upstream elsewhere with --pin on a machine of two cores or more).
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import aiohttp  # noqa: E402

import fast_upstream as fu  # noqa: E402
import proxy_bench as pb  # noqa: E402
from proxy import http1  # noqa: E402
from proxy.serving import event_loop  # noqa: E402
from proxy.upstream import USER_AGENT  # noqa: E402

HEADERS = {"Accept": "application/json", "User-Agent": USER_AGENT, "Authorization": "Bearer bench"}


async def _measure(kind: str, base: str, path: str, calls: int, concurrency: int) -> float:
    if kind == "aiohttp":
        session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=100), cookie_jar=aiohttp.DummyCookieJar(),
                                        skip_auto_headers=("User-Agent",))

        async def one() -> None:
            async with session.request("GET", base + path, headers=HEADERS) as resp:
                await resp.read()
                assert resp.status == 200
    else:
        pool = http1.Pool(base, limit=100, connect_timeout=5)
        request = pool.request("GET", pool.target(path, None), HEADERS, None)

        async def one() -> None:
            answer, _ = await pool.exchange("GET", request)
            assert answer.status == 200

    async def worker(n: int) -> None:
        for _ in range(n):
            await one()

    await asyncio.gather(*[worker(50) for _ in range(concurrency)])  # connections open, caches warm
    started = time.process_time()
    await asyncio.gather(*[worker(calls // concurrency) for _ in range(concurrency)])
    spent = time.process_time() - started
    if kind == "aiohttp":
        await session.close()
    else:
        await pool.close()
    return spent / (calls // concurrency * concurrency) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pin", action="store_true", help="upstream on CPU 0, this process on CPU 1")
    args = parser.parse_args()
    captured = fu.capture(20)
    port = pb.free_port()
    upstream = fu.FastUpstream(captured, port, Path(tempfile.mkdtemp(prefix="v1bridge-bench-")))
    if args.pin:
        fu.pin(upstream.pid, {0})
        os.sched_setaffinity(0, {1})
    base = f"http://127.0.0.1:{port}"
    routes = {"list (20 pods)": "/v2/pods", "get": f"/v2/pods/{captured.pod_id}"}
    results: dict[tuple[str, str], list[float]] = {}
    try:
        for _ in range(args.rounds):
            for route, path in routes.items():
                for kind in ("aiohttp", "http1"):
                    loop = event_loop()
                    try:
                        spent = loop.run_until_complete(_measure(kind, base, path, args.calls, args.concurrency))
                    finally:
                        loop.close()
                    results.setdefault((route, kind), []).append(spent)
    finally:
        upstream.stop()
    print(f"upstream: {upstream.kind}; load {os.getloadavg()[0]:.2f}; {args.rounds} rounds x {args.calls} calls, "
          f"{args.concurrency} at a time; CPU µs per call (median)")
    print("| route | aiohttp ClientSession | proxy/http1.Pool | saved |\n|---|---:|---:|---:|")
    for route in routes:
        a = statistics.median(results[(route, "aiohttp")])
        h = statistics.median(results[(route, "http1")])
        print(f"| {route} | {a:.1f} | {h:.1f} | {a - h:.1f} |")


if __name__ == "__main__":
    main()
