"""A long v1 list through the proxy: upstream calls, wall and CPU time with and without the largest page asked.

    .venv/bin/python bench/page_size.py [--pods 250] [--requests 40] [--rounds 5] [--default-page 1000,100]

Runs the sandbox (as v2) and the proxy in this process on loopback, seeds `--pods` pods, and sends
`GET /v1/pods` `--requests` times per round to each of two proxies, rounds interleaved (order alternated):
- *before*: the v2 list request without `limit` (v2's default page; `PageSizes.whole_list` bypassed);
- *after*: as shipped, `limit` = the largest page v2.json allows (proxy/forward.py `PageSizes`).
Each `--default-page` is one scenario: the sandbox's page when no `limit` is asked (1000 is v2's documented
default, rules.yaml Q30; a smaller one stands for a v2 that pages by less unless asked). Prints per v1 request
the upstream calls, the median wall ms and the median CPU ms of the whole process (proxy, sandbox and client:
both sides of every call), and the machine's load.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402
from aiohttp import web  # noqa: E402

from proxy.app import create_proxy_app  # noqa: E402
from proxy.config import ProxyConfig  # noqa: E402
from proxy.forward import PageSizes  # noqa: E402
from sandbox import create_sandbox_app  # noqa: E402
from sandbox.common import SANDBOX  # noqa: E402
from sandbox.config import SandboxConfig  # noqa: E402
from sandbox.pods import build_pod  # noqa: E402

KEY = "bench-key"


def seed(app: web.Application, count: int) -> None:
    sb = app[SANDBOX]
    owner = sb.owners[KEY]
    for n in range(count):
        body = {"name": f"p{n:04d}", "image": "runpod/pytorch:2.4.0", "gpu": {"id": "NVIDIA GeForce RTX 4090", "count": 1}}
        sb.store.put("pod", build_pod(sb, body, owner))


def default_page(app: web.Application, size: int) -> None:
    """The sandbox's page when no `limit` is asked (its handlers pass v2's documented default, 1000)."""
    pager = app[SANDBOX].pager
    page = pager.page
    pager.page = lambda *args, **kwargs: page(*args, **{**kwargs, "default_limit": size})


async def serve(app: web.Application) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}"


async def scenario(pods: int, page: int, requests: int, rounds: int, tmp: str) -> dict[str, dict[str, float]]:
    sandbox = create_sandbox_app(SandboxConfig(keys=[KEY], transition_seconds=0.0))
    calls = {"n": 0}

    @web.middleware
    async def count(request: web.Request, handler):
        if request.path == "/v2/pods":
            calls["n"] += 1
        return await handler(request)

    sandbox.middlewares.insert(0, count)
    default_page(sandbox, page)
    seed(sandbox, pods)
    runners = []
    sb_runner, sb_url = await serve(sandbox)
    runners.append(sb_runner)
    urls = {}
    for name in ("before", "after"):
        app = create_proxy_app(ProxyConfig(upstream=sb_url, usage_dir=os.path.join(tmp, name), access_log=False,
                                           fingerprint_salt="bench"))
        if name == "before":
            app.on_startup.append(_without_limit)
        runner, urls[name] = await serve(app)
        runners.append(runner)
    figures: dict[str, dict[str, list[float]]] = {n: {"calls": [], "wall": [], "cpu": []} for n in urls}
    headers = {"Authorization": f"Bearer {KEY}"}
    try:
        async with aiohttp.ClientSession() as session:
            for name, url in urls.items():  # warm-up: connections, lookups, caches
                async with session.get(url + "/v1/pods", headers=headers) as r:
                    assert r.status == 200 and len(await r.json()) == pods, r.status
            order = list(urls)
            for _ in range(rounds):
                order.reverse()  # neither proxy always runs first
                for name in order:
                    url = urls[name]
                    calls["n"] = 0
                    wall, cpu = time.perf_counter(), time.process_time()
                    for _ in range(requests):
                        async with session.get(url + "/v1/pods", headers=headers) as r:
                            await r.read()
                    f = figures[name]
                    f["wall"].append((time.perf_counter() - wall) / requests * 1000)
                    f["cpu"].append((time.process_time() - cpu) / requests * 1000)
                    f["calls"].append(calls["n"] / requests)
    finally:
        for runner in reversed(runners):
            await runner.cleanup()
    return {n: {k: statistics.median(v) for k, v in f.items()} for n, f in figures.items()}


async def _without_limit(app: web.Application) -> None:
    """The proxy before the change: every v2 list request without `limit`."""
    from proxy.app_keys import SERVICE

    service = app[SERVICE]
    sizes = PageSizes(service.forward.m)
    sizes.largest = {}  # no list has a largest page: nothing asked
    service.forward.page_sizes = sizes
    service.emulations.pages.sizes = sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pods", type=int, default=250)
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--default-page", default="1000,100")
    args = parser.parse_args()
    import tempfile

    print(f"load before: {open('/proc/loadavg').read().split()[:3]}")
    print(f"GET /v1/pods, {args.pods} pods, {args.rounds} interleaved rounds x {args.requests} requests, medians")
    print("| v2 default page | proxy | upstream calls / v1 request | wall ms / request | CPU ms / request |")
    print("|---:|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for page in (int(p) for p in args.default_page.split(",")):
            got = asyncio.run(scenario(args.pods, page, args.requests, args.rounds, tmp))
            for name, f in got.items():
                print(f"| {page} | {name} | {f['calls']:.0f} | {f['wall']:.2f} | {f['cpu']:.2f} |")
    print(f"load after: {open('/proc/loadavg').read().split()[:3]}")


if __name__ == "__main__":
    main()
