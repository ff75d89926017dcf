"""Large v2 answers: eight 50 MB answers at once through a real proxy process; how long /healthz waits meanwhile
and how much memory the proxy and its answer workers take.

    .venv/bin/python bench/large_answer.py [--mb 50] [--concurrent 8] [--kind billing|pods] [--mode pool|loop]
                                           [--compare DIR]

The proxy runs as its own process (`python -m v1bridge proxy`, from this checkout or from `--code DIR`), the
upstream (a fixed answer of `--mb` MB: billing records of network volumes, or a list of pods) and the client in
this process. `/healthz` is polled every 10 ms while the big calls run; the client reads each answer in chunks and
keeps only its length. Memory is read from /proc: the proxy's peak RSS (VmHWM) over its RSS before the calls, and
the peak RSS of each process it started (bench/proxy_process.py).

`--mode loop` sets `--large-answer 0` (every answer parsed, translated and serialised on the event loop, held
whole). `--compare DIR` runs the same measurement on the code at DIR (another checkout, e.g. `git worktree add
/tmp/before <commit>`) and then on this checkout, back to back, and prints both.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import orjson
from aiohttp import web

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from proxy_process import measure  # noqa: E402
from tests.live_server import LiveServer  # noqa: E402


def _billing(megabytes: int) -> bytes:
    record = {"startTime": "2026-11-01T00:00:00Z", "totalAmount": 0.25, "highPerformanceAmount": 0.0,
              "diskSpaceBilledGb": 20, "highPerformanceDiskSpaceBilledGb": 0, "networkVolumeId": "vol-0000000000"}
    count = megabytes * 1024 * 1024 // (len(orjson.dumps(record)) + 1)
    return orjson.dumps({"records": [{**record, "startTime": f"2026-11-01T{(i // 60) % 24:02d}:{i % 60:02d}:00Z",
                                      "networkVolumeId": f"vol-{i:010d}"} for i in range(count)]})


def _pods(megabytes: int) -> bytes:
    pod = {"id": "pod0000000", "name": "trainer", "image": "runpod/pytorch:2.4.0", "desiredStatus": "RUNNING",
           "gpu": {"id": "NVIDIA A40", "count": 1}, "costPerHr": 0.39, "ports": ["8888/http", "22/tcp"],
           "env": {"MODEL": "llama", "STEPS": "1000"}, "volumeInGb": 20, "containerDiskInGb": 50}
    count = megabytes * 1024 * 1024 // (len(orjson.dumps(pod)) + 1)
    return orjson.dumps({"pods": [{**pod, "id": f"pod{i:07d}", "name": f"trainer-{i}"} for i in range(count)],
                         "pagination": {"hasNextPage": False, "nextCursor": None}})


KINDS = {"billing": ("/v2/billing/network-volumes", "/v1/billing/networkvolumes", _billing),
         "pods": ("/v2/pods", "/v1/pods", _pods)}


def measure_kind(code: Path, upstream_url: str, v1_path: str, args: argparse.Namespace) -> dict:
    large = ["--large-answer", "0"] if args.mode == "loop" else []
    result = measure(code, upstream_url, v1_path, args.concurrent, *large)
    assert result["statuses"] == [200], result["statuses"]
    result["proxy_growth"] = result["proxy_peak"] - result["proxy_before"]
    return result


def line(label: str, r: dict, args: argparse.Namespace, v2_bytes: int) -> str:
    workers = (f"its child processes' peak RSS {' + '.join(f'{w:.0f}' for w in r['workers'])} MB" if r["workers"]
               else "no worker")
    return (f"{label}: {args.concurrent} x {v2_bytes / 1e6:.0f} MB v2 ({args.kind}) -> {r['v1_bytes'] / 1e6:.1f} MB v1 "
            f"in {r['wall']:.2f} s; /healthz worst {r['worst'] * 1000:.0f} ms, median {r['median'] * 1000:.1f} ms "
            f"over {r['polls']} polls; proxy peak RSS {r['proxy_peak']:.0f} MB (+{r['proxy_growth']:.0f} MB over "
            f"its RSS before the calls); {workers}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--concurrent", type=int, default=8)
    parser.add_argument("--kind", choices=sorted(KINDS), default="billing")
    parser.add_argument("--mode", choices=("pool", "loop"), default="pool")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose proxy is measured")
    parser.add_argument("--compare", type=Path, metavar="DIR",
                        help="measure the code at DIR first, then --code, in this one run")
    args = parser.parse_args()
    v2_path, v1_path, make = KINDS[args.kind]
    payload = make(args.mb)

    async def answer(request: web.Request) -> web.Response:
        return web.Response(body=payload, content_type="application/json")

    upstream_app = web.Application()
    upstream_app.router.add_get(v2_path, answer)
    upstream = LiveServer(upstream_app)
    try:
        print(f"load average at start: {os.getloadavg()[0]:.1f}", flush=True)
        runs = [("before", args.compare)] if args.compare else []
        runs.append(("after" if args.compare else "this checkout", args.code))
        for label, code in runs:
            result = measure_kind(code.resolve(), upstream.url, v1_path, args)
            print(line(f"{label} ({code}, --mode {args.mode})", result, args, len(payload)), flush=True)
        print(f"load average at end: {os.getloadavg()[0]:.1f}")
    finally:
        upstream.close()


if __name__ == "__main__":
    main()
