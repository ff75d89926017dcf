"""Proxy benchmark: direct upstream vs a plain pass-through proxy vs the translating proxy, in one run.

    .venv/bin/python bench/proxy_bench.py [--seconds 5] [--connections 16] [--runs 3] [--pin]

Loopback only. Three servers, each in its own process: the sandbox (upstream,
20 pods), an ordinary aiohttp pass-through proxy (same client settings as the
proxy's upstream session), and `v1bridge proxy` with its production defaults
(metrics, JSON access log on stderr, usage records all on; stderr goes to a
file, as it would to a log collector). wrk (with Lua scripts for POST) drives
each scenario for a bounded time; targets are interleaved and each scenario is
repeated `--runs` times, keeping each target's best run. The script prints
throughput, p50/p99, the translated/plain ratio and the p50/p99 latency the
translating proxy adds over the direct call.

`--pin` (2+ CPUs): wrk and the upstream on CPU 0, each proxy alone on CPU 1, so
the ratio compares the two proxies' own cost rather than how the scheduler
shares two cores between five busy processes.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

KEY = "bench-key"
PODS = 20
STOP_PODS_PER_THREAD = 32
THREADS = 2


# every bench server listens with v1bridge's default backlog (ProxyConfig.backlog): with aiohttp's 128, a burst of
# 200-400 connections overflowed the accept queue and the dropped SYNs came back 1 s later, in the p99
BACKLOG = 2048


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_sandbox(port: int) -> None:
    from aiohttp import web

    from sandbox import SandboxConfig, create_sandbox_app

    web.run_app(create_sandbox_app(SandboxConfig(keys=[KEY])), host="127.0.0.1", port=port, access_log=None, print=None)


# Every proxy of a comparison runs on the same event loop, or the ratios measure the loop, not the proxy:
# asyncio's (what `v1bridge proxy` runs by default) unless V1BRIDGE_BENCH_LOOP=uvloop (bench/hotpath.py --loop).
LOOP_ENV = "V1BRIDGE_BENCH_LOOP"


def bench_loop():
    """The event loop for a bench server process (None: asyncio's own)."""
    if os.environ.get(LOOP_ENV, "asyncio") != "uvloop":
        return None
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency where it builds
        return None
    return uvloop.new_event_loop()


def loop_name() -> str:
    loop = bench_loop()
    if loop is None:
        return "asyncio"
    loop.close()
    return "uvloop"


def run_plain(port: int, upstream: str) -> None:
    """The baseline: an ordinary aiohttp proxy that forwards bytes and nothing else, pooled and kept alive with
    the same connector settings as the translating proxy's upstream session (proxy/app.py _client_session)."""
    import aiohttp
    from aiohttp import web

    async def ctx(app):
        app["session"] = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0, limit_per_host=0, ttl_dns_cache=300),
            skip_auto_headers=("User-Agent",),
            cookie_jar=aiohttp.DummyCookieJar(),
        )
        yield
        await app["session"].close()

    async def forward(request: web.Request) -> web.Response:
        body = await request.read()
        headers = {"Authorization": request.headers.get("Authorization", "")}
        if body:
            headers["Content-Type"] = "application/json"
        async with request.app["session"].request(request.method, upstream + request.raw_path, data=body or None,
                                                  headers=headers) as resp:
            data = await resp.read()
            return web.Response(status=resp.status, body=data, content_type=resp.content_type)

    app = web.Application()
    app.cleanup_ctx.append(ctx)
    app.router.add_route("*", "/{tail:.*}", forward)
    web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None, loop=bench_loop(), backlog=BACKLOG)


def run_plain_http1(port: int, upstream: str) -> None:
    """The same pass-through over the client v1bridge's translated calls use (proxy/http1.py) instead of aiohttp's:
    what is left of v1bridge's cost over it is the translation, the policies and the observation."""
    from aiohttp import web

    from proxy.http1 import Pool

    async def ctx(app):
        app["pool"] = Pool(upstream, limit=100, connect_timeout=5)
        yield
        await app["pool"].close()

    async def forward(request: web.Request) -> web.Response:
        pool = request.app["pool"]
        body = await request.read()
        headers = {"Authorization": request.headers.get("Authorization", "")}
        if body:
            headers["Content-Type"] = "application/json"
        answer, _ = await pool.exchange(request.method, pool.request(request.method, request.raw_path, headers,
                                                                     body or None))
        return web.Response(status=answer.status, body=answer.body,
                            content_type=answer.headers.get("Content-Type", "application/json").split(";")[0])

    app = web.Application()
    app.cleanup_ctx.append(ctx)
    app.router.add_route("*", "/{tail:.*}", forward)
    web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None, loop=bench_loop())


def run_translating(port: int, upstream: str, records: str) -> None:
    """`v1bridge proxy --upstream URL --usage-dir DIR` as an operator runs it: every observation on."""
    from aiohttp import web

    from proxy.app import create_proxy_app
    from proxy.serving import serving_for_life
    from proxy.config import ProxyConfig

    sys.stderr = open(os.path.join(records, "access.log"), "w", buffering=1)  # noqa: SIM115 - the log collector
    web.run_app(serving_for_life(create_proxy_app(ProxyConfig(upstream=upstream, access_log=True, usage_dir=records,
                                             fingerprint_salt="bench"))),
                host="127.0.0.1", port=port, access_log=None, print=None, loop=bench_loop(), backlog=BACKLOG)


def wait_up(port: int, within: float = 60.0) -> None:
    """A spawned server is up when its port accepts; a loaded 2-core machine can take many seconds to import it."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.1):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"port {port} never opened")


def call(url: str, method: str = "GET", body: dict | None = None) -> object:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req) as resp:
        raw = resp.read()
        return json.loads(raw) if raw else None


V1_POD = {"name": "bench", "imageName": "nginx", "gpuTypeIds": ["NVIDIA A40"]}
V2_POD = {"name": "bench", "image": "nginx", "gpu": {"id": "NVIDIA A40"}, "disk": 50, "ports": ["8888/http", "22/tcp"],
          "mounts": {"persistent": {"size": 20, "path": "/workspace"}}}

LUA_POST = """
wrk.method = "POST"
wrk.body = '%s'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer %s"
"""

# each thread owns its own pods and alternates stop / start on each, far apart in time
LUA_STOP = """
local ids = {%s}
local per = %d
local counter = 0
local base = 0
local threads = 0
function setup(thread)
  thread:set("base", threads * per)
  threads = threads + 1
end
function init(args)
  base = tonumber(wrk.thread:get("base")) or 0
end
function request()
  local slot = counter %% per
  local round = math.floor(counter / per)
  counter = counter + 1
  local id = ids[base + slot + 1]
  local body = '{"action":"start"}'
  local path = "%s"
  if round %% 2 == 0 then body = '{"action":"stop"}' end
  if path:find("/v1/") then
    local verb = "start"
    if round %% 2 == 0 then verb = "stop" end
    return wrk.format("POST", path:gsub("{id}", id) .. "/" .. verb, {["Authorization"] = "Bearer %s"}, "")
  end
  return wrk.format("POST", path:gsub("{id}", id) .. "/action",
    {["Authorization"] = "Bearer %s", ["Content-Type"] = "application/json"}, body)
end
"""


PIN: list[str] = []  # ["taskset", "-c", "0"] with --pin


def wrk(url: str, seconds: int, connections: int, script: str | None, tmp: Path) -> dict:
    cmd = [*PIN, "wrk", f"-t{THREADS}", f"-c{connections}", f"-d{seconds}s", "--latency", "-H", f"Authorization: Bearer {KEY}"]
    if script:
        path = tmp / f"s{abs(hash(script))}.lua"
        path.write_text(script)
        cmd += ["-s", str(path)]
    out = subprocess.run(cmd + [url], capture_output=True, text=True, timeout=seconds + 30).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    total = int(re.search(r"(\d+) requests in", out).group(1))

    def pct(p: str) -> float:
        m = re.search(rf"^\s+{p}%\s+([\d.]+)(us|ms|s)", out, re.M)
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    return {"rps": rps, "p50": pct("50"), "p99": pct("99"), "errors": int(non2xx.group(1)) if non2xx else 0,
            "requests": total}


def best(runs: list[dict]) -> dict:
    return max(runs, key=lambda r: r["rps"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--runs", type=int, default=1, help="repeat each scenario; each target keeps its best run")
    parser.add_argument("--pin", action="store_true", help="wrk + upstream on CPU 0, each proxy alone on CPU 1")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        print("wrk is needed: apt-get update && apt-get install -y wrk", file=sys.stderr)
        return 2
    if args.pin and ((os.cpu_count() or 1) < 2 or not shutil.which("taskset")):
        print("--pin needs 2 CPUs and taskset", file=sys.stderr)
        return 2
    load_before = os.getloadavg()
    ctx = multiprocessing.get_context("spawn")
    ports = {"sandbox": free_port(), "plain": free_port(), "translating": free_port()}
    upstream = f"http://127.0.0.1:{ports['sandbox']}"
    tmp = Path(tempfile.mkdtemp(prefix="proxy-bench-"))
    procs = {
        "sandbox": ctx.Process(target=run_sandbox, args=(ports["sandbox"],), daemon=True),
        "plain": ctx.Process(target=run_plain, args=(ports["plain"], upstream), daemon=True),
        "translating": ctx.Process(target=run_translating, args=(ports["translating"], upstream, str(tmp)), daemon=True),
    }
    for p in procs.values():
        p.start()
    if args.pin:
        PIN.extend(["taskset", "-c", "0"])
        os.sched_setaffinity(procs["sandbox"].pid, {0})
        os.sched_setaffinity(procs["plain"].pid, {1})
        os.sched_setaffinity(procs["translating"].pid, {1})
    runs = max(1, args.runs)
    try:
        for port in ports.values():
            wait_up(port)
        bases = {
            "direct": upstream,
            "plain": f"http://127.0.0.1:{ports['plain']}",
            "translating": f"http://127.0.0.1:{ports['translating']}",
        }
        pods = [call(upstream + "/v2/pods", "POST", V2_POD)["id"] for _ in range(PODS)]
        pod = pods[0]
        scenarios = [
            ("GET /v1/pods (20 pods)", {"direct": ("/v2/pods", None), "plain": ("/v2/pods", None),
                                        "translating": ("/v1/pods", None)}),
            ("GET /v1/pods/{id}", {"direct": (f"/v2/pods/{pod}", None), "plain": (f"/v2/pods/{pod}", None),
                                   "translating": (f"/v1/pods/{pod}", None)}),
        ]
        results: list[tuple[str, dict]] = []
        for name, targets in scenarios:
            seen: dict[str, list[dict]] = {k: [] for k in targets}
            for _ in range(runs):
                for k, (path, script) in targets.items():
                    seen[k].append(wrk(bases[k] + path, args.seconds, args.connections, script, tmp))
            results.append((name, {k: best(v) for k, v in seen.items()}))
        # stop/start: every target and run gets its own fresh pods (made after the list runs, which need 20)
        per_target = STOP_PODS_PER_THREAD * THREADS
        seen = {k: [] for k in ("direct", "plain", "translating")}
        for _ in range(runs):
            for key in seen:
                ids = [call(upstream + "/v2/pods", "POST", V2_POD)["id"] for _ in range(per_target)]
                quoted = ",".join(f'"{i}"' for i in ids)
                path = "/v1/pods/{id}" if key == "translating" else "/v2/pods/{id}"
                script = LUA_STOP % (quoted, STOP_PODS_PER_THREAD, path, KEY, KEY)
                seen[key].append(wrk(bases[key] + "/", args.seconds, args.connections, script, tmp))
        results.append(("POST /v1/pods/{id}/stop (alternating with start)", {k: best(v) for k, v in seen.items()}))
        # creates last: they grow the pod list
        create = {
            "direct": (upstream + "/v2/pods", V2_POD),
            "plain": (bases["plain"] + "/v2/pods", V2_POD),
            "translating": (bases["translating"] + "/v1/pods", V1_POD),
        }
        seen = {k: [] for k in create}
        for _ in range(runs):
            for key, (url, body) in create.items():
                seen[key].append(wrk(url, args.seconds, args.connections, LUA_POST % (json.dumps(body), KEY), tmp))
        results.append(("POST /v1/pods", {k: best(v) for k, v in seen.items()}))
    finally:
        for p in procs.values():
            p.terminate()
        for p in procs.values():
            p.join(5)
    usage_lines = sum(1 for f in tmp.glob("usage-*.jsonl") for _ in f.open("rb"))
    access_lines = sum(1 for _ in (tmp / "access.log").open("rb")) if (tmp / "access.log").exists() else 0
    load_after = os.getloadavg()
    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
          f"wrk -t{THREADS} -c{args.connections} -d{args.seconds}s, loopback, best of {runs}, "
          f"{'pinned: wrk + upstream on CPU 0, proxy on CPU 1' if args.pin else 'unpinned (all share the CPUs)'}")
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f}; translating proxy wrote "
          f"{usage_lines} usage records and {access_lines} access-log lines")
    header = f"{'scenario':48} {'target':12} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'non-2xx':>8}"
    print(header)
    print("-" * len(header))
    for name, row in results:
        for key, r in row.items():
            print(f"{name:48} {key:12} {r['rps']:9.0f} {r['p50']:8.2f} {r['p99']:8.2f} {r['errors']:8d}")
        ratio = row["translating"]["rps"] / row["plain"]["rps"]
        added50 = row["translating"]["p50"] - row["direct"]["p50"]
        added99 = row["translating"]["p99"] - row["direct"]["p99"]
        print(f"{'':48} {'ratio':12} translated/plain = {ratio:.0%} (goal >= 70%); added over direct: "
              f"p50 {added50:+.2f} ms, p99 {added99:+.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
