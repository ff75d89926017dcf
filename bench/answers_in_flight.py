"""Answers in flight (issue 23 #4, #5): the proxy's memory with eight concurrent 100,000-pod lists, and with
compressed answers that decode to far more than they weigh on the wire.

    .venv/bin/python bench/answers_in_flight.py [--pods 100000] [--concurrent 8] [--code DIR]

Each scenario starts a real proxy process (`python -m v1bridge proxy`, from this checkout or `--code DIR`) over an
upstream in this process, and reads from /proc the peak RSS (VmHWM, reset after a warm-up call) of the proxy process
and of each process it started (the answer pool's workers and multiprocessing's resource tracker), while /healthz
is polled every 10 ms (bench/proxy_process.py). The total, all of them added up, is what issue 23 #5 bounds (300 MB for eight lists).

- lists: `--concurrent` lists of `--pods` pods each, in pages of 1,000 (each page under 1 MiB, so no page is a
  "large answer"), with the default `--answer-memory` and, as the baseline in the same run, `--answer-memory 0`
  (no bound: every list built in memory, the proxy before the budget);
- gzip: a list of about 35 MB sent gzip-compressed (a few hundred KB on the wire), against the same list sent
  plain; and a gzip bomb (a valid list whose one name inflates to 300 MB), answered 502 at `--max-answer`.
"""
from __future__ import annotations

import argparse
import gzip
import io
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

PAGE = 1000
BOUND_MB = 300  # issue 23 #5: eight concurrent 100,000-pod lists, the whole proxy (its children counted)
POD = {
    "id": "pod0000000", "name": "trainer", "status": "RUNNING", "actions": ["stop", "restart", "terminate"],
    "image": "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04", "args": "python train.py --steps 1000",
    "disk": 50, "mounts": {"persistent": {"size": 20, "path": "/workspace"}}, "ports": ["8888/http", "22/tcp"],
    "env": {"MODEL": "llama", "STEPS": "1000"}, "registry": None, "cloud": "SECURE", "dataCenterId": "EU-RO-1",
    "cudaVersion": None, "ssh": None, "template": None, "cost": 0.39, "locked": False, "runtime": None,
    "createdAt": "2026-11-20T00:00:00Z", "startedAt": None, "globalNetworking": {"enabled": False},
    "gpu": {"id": "NVIDIA A40", "count": 1},
}


def _pages(pods: int) -> list[bytes]:
    count = (pods + PAGE - 1) // PAGE
    out = []
    for n in range(count):
        more = n + 1 < count
        items = [{**POD, "id": f"pod{n * PAGE + i:07d}", "name": f"trainer-{n * PAGE + i}"}
                 for i in range(min(PAGE, pods - n * PAGE))]
        out.append(orjson.dumps({"pods": items, "pagination": {"hasNextPage": more,
                                                                "nextCursor": str(n + 1) if more else None}}))
    return out


def _bomb(decoded: int) -> bytes:
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9) as f:
        f.write(b'{"pods":[{"id":"p1","name":"')
        block = b"a" * (1 << 20)
        for _ in range(decoded >> 20):
            f.write(block)
        f.write(b'"}],"pagination":{"hasNextPage":false,"nextCursor":null}}')
    return buffer.getvalue()


def _row(label: str, r: dict) -> str:
    workers = " + ".join(f"{w:.0f}" for w in r["workers"]) or "none"
    return (f"| {label} | {', '.join(map(str, r['statuses']))} | {r['wall']:.1f} s | {r['proxy_peak']:.0f} MB "
            f"(+{r['proxy_peak'] - r['proxy_before']:.0f}) | {workers} | "
            f"{r['proxy_peak'] + sum(r['workers']):.0f} MB | {r['worst'] * 1000:.0f} / {r['median'] * 1000:.1f} ms |")


def run(pods: int = 100_000, concurrent: int = 8, code: Path = ROOT) -> list[str]:
    pages = _pages(pods)
    big = orjson.dumps({"pods": [{**POD, "id": f"pod{i:07d}"} for i in range(35 * 1024 * 1024 // len(orjson.dumps(POD)))],
                        "pagination": {"hasNextPage": False, "nextCursor": None}})
    squeezed = gzip.compress(big, compresslevel=6)
    bomb = _bomb(300 * 1024 * 1024)

    async def listing(request: web.Request) -> web.Response:
        scenario = request.match_info["scenario"]
        if scenario == "lists":
            return web.Response(body=pages[int(request.query.get("cursor", "0"))], content_type="application/json")
        if scenario == "plain":
            return web.Response(body=big, content_type="application/json")
        body = squeezed if scenario == "gzip" else bomb
        return web.Response(body=body, content_type="application/json", headers={"Content-Encoding": "gzip"})

    app = web.Application()
    app.router.add_get("/{scenario}/v2/pods", listing)
    upstream = LiveServer(app)
    load = os.getloadavg()[0]
    try:
        base = upstream.url
        lines = [f"{concurrent} concurrent `GET /v1/pods` of {pods:,} pods ({len(pages)} pages of {PAGE:,}, "
                 f"{sum(map(len, pages)) / 1e6:.0f} MB of v2 JSON per list, each page under 1 MiB), "
                 f"`bench/answers_in_flight.py`, load average {load:.1f} at start:", "",
                 "| scenario | status | wall | proxy peak RSS (growth) | its child processes' peak RSS | total | "
                 "/healthz worst / median |", "|---|---|---:|---:|---:|---:|---:|"]
        unbounded = measure(code, f"{base}/lists", "/v1/pods", concurrent, "--answer-memory", "0")
        bounded = measure(code, f"{base}/lists", "/v1/pods", concurrent)
        lines.append(_row("lists, no budget (`--answer-memory 0`, the baseline)", unbounded))
        lines.append(_row("lists, default budget (64 MiB)", bounded))
        flat = measure(code, f"{base}/plain", "/v1/pods", 1)
        packed = measure(code, f"{base}/gzip", "/v1/pods", 1)
        burst = measure(code, f"{base}/bomb", "/v1/pods", 1)
        lines.append(_row(f"one {len(big) / 1e6:.0f} MB list, plain (baseline)", flat))
        lines.append(_row(f"the same list as {len(squeezed) / 1e3:.0f} KB of gzip", packed))
        lines.append(_row(f"a gzip bomb: {len(bomb) / 1e3:.0f} KB inflating to 300 MB (502 at --max-answer)",
                          burst))
        total = lambda r: r["proxy_peak"] + sum(r["workers"])  # noqa: E731
        lines += ["", f"The child processes are the answer pool's workers and multiprocessing's resource tracker. "
                      f"With the budget the {concurrent} lists take {total(bounded):.0f} MB (the proxy and its "
                      f"children together; the bound is {BOUND_MB} MB: "
                      f"{'met' if total(bounded) < BOUND_MB else 'NOT met'}), "
                      f"{total(bounded) / total(unbounded):.2f}x the {total(unbounded):.0f} MB "
                      f"without it; the v1 answers are the same ({bounded['v1_bytes']:,} bytes each)."
                      if bounded["v1_bytes"] == unbounded["v1_bytes"] else
                      f"The v1 answers differ: {bounded['v1_bytes']:,} vs {unbounded['v1_bytes']:,} bytes."]
        return lines
    finally:
        upstream.close()


def section(full: bool) -> list[str]:
    """bench/run_all.py's section: the same run whatever the mode (its figures are the issue's own scenario)."""
    return run()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pods", type=int, default=100_000)
    parser.add_argument("--concurrent", type=int, default=8)
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose proxy is measured")
    args = parser.parse_args()
    print("\n".join(run(args.pods, args.concurrent, args.code.resolve())))


if __name__ == "__main__":
    main()
