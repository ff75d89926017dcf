"""Large v2 answers vs /healthz: eight 50 MB billing answers at once, and how long /healthz waits meanwhile.

Above `--large-answer` bytes (1 MiB by default) the proxy checks, translates and serialises a v2 answer in a small
process pool (proxy/offload.py); `--mode loop` sets the threshold to 0, which is the old way: everything on the
event loop. (A thread was measured too and did not help: orjson holds the GIL while it parses or dumps 50 MB.)

    .venv/bin/python bench/large_answer.py [--mb 50] [--concurrent 8] [--mode pool|loop] [--answer-processes N]

The upstream runs in its own thread and loop (a LiveServer), the proxy in another; /healthz is polled every
10 ms from the main loop while the big calls run. Prints the worst and the median /healthz latency, the wall
time of the big calls, the peak RSS growth of this process and the peak RSS of one pool worker. Run each mode in
its own process (peak RSS is per process lifetime).
"""
from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import sys
import time
from pathlib import Path

import aiohttp
import orjson
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from proxy.app import create_proxy_app  # noqa: E402
from proxy.config import ProxyConfig  # noqa: E402
from tests.live_server import LiveServer  # noqa: E402


def _records(megabytes: int) -> bytes:
    record = {"startTime": "2026-11-01T00:00:00Z", "totalAmount": 0.25, "highPerformanceAmount": 0.0,
              "diskSpaceBilledGb": 20, "highPerformanceDiskSpaceBilledGb": 0, "networkVolumeId": "vol-0000000000"}
    one = len(orjson.dumps(record)) + 1
    count = megabytes * 1024 * 1024 // one
    records = [{**record, "startTime": f"2026-11-01T{(i // 60) % 24:02d}:{i % 60:02d}:00Z",
                "networkVolumeId": f"vol-{i:010d}"} for i in range(count)]
    return orjson.dumps({"records": records})


async def _run(proxy_url: str, concurrent: int) -> tuple[list[float], float]:
    latencies: list[float] = []
    done = asyncio.Event()
    async with aiohttp.ClientSession() as session:
        async def poll() -> None:
            while not done.is_set():
                started = time.perf_counter()
                async with session.get(f"{proxy_url}/healthz") as r:
                    await r.read()
                latencies.append(time.perf_counter() - started)
                await asyncio.sleep(0.01)

        async def big() -> None:
            async with session.get(f"{proxy_url}/v1/billing/networkvolumes",
                                   headers={"Authorization": "Bearer k"}) as r:
                assert r.status == 200, await r.text()
                await r.read()

        poller = asyncio.create_task(poll())
        await asyncio.sleep(0.2)
        started = time.perf_counter()
        await asyncio.gather(*(big() for _ in range(concurrent)))
        wall = time.perf_counter() - started
        done.set()
        await poller
    return latencies, wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--concurrent", type=int, default=8)
    parser.add_argument("--mode", choices=("pool", "loop"), default="pool")
    parser.add_argument("--answer-processes", type=int, default=ProxyConfig.answer_processes)
    args = parser.parse_args()
    payload = _records(args.mb)

    async def billing(request: web.Request) -> web.Response:
        return web.Response(body=payload, content_type="application/json")

    upstream_app = web.Application()
    upstream_app.router.add_get("/v2/billing/network-volumes", billing)
    upstream = LiveServer(upstream_app)
    try:
        name = {"pool": "in the answer pool", "loop": "on the event loop"}[args.mode]
        threshold = ProxyConfig.large_answer if args.mode == "pool" else 0
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        proxy = LiveServer(create_proxy_app(ProxyConfig(upstream=upstream.url, access_log=False,
                                                        fingerprint_salt="s",
                                                        total_timeout=120.0, request_deadline=120.0,
                                                        large_answer=threshold,
                                                            answer_processes=args.answer_processes)))
        try:
            latencies, wall = asyncio.run(_run(proxy.url, args.concurrent))
        finally:
            proxy.close()
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        print(f"{name}: {args.concurrent} x {len(payload) / 1e6:.0f} MB answers in {wall:.2f} s; /healthz "
              f"worst {max(latencies) * 1000:.0f} ms, median {statistics.median(latencies) * 1000:.1f} ms "
              f"over {len(latencies)} polls; peak RSS +{(rss_after - rss_before) / 1024:.0f} MB"
              + (f", one pool worker's peak RSS {worker / 1024:.0f} MB" if args.mode == "pool" else ""))
    finally:
        upstream.close()


if __name__ == "__main__":
    main()
