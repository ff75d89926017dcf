"""The proxy's own cost, measured against an upstream that costs almost nothing.

    .venv/bin/python bench/hotpath.py [--rounds 3] [--seconds 3] [--connections 50]

One run, five targets per route, in interleaved rounds (every target of every route once per round, the order
rotated each round), medians over the rounds:
- direct: wrk straight at the fast upstream (nginx serving pre-serialised v2 answers, bench/fast_upstream.py);
- plain: an aiohttp pass-through (bench/proxy_bench.py run_plain), v2 paths: the baseline of the goals;
- plain-http1: the same pass-through over v1bridge's own upstream client (proxy/http1.py; run_plain_http1): what
  v1bridge costs over it is its translation, policies and observation, with the client's saving taken out;
- naive: the smallest aiohttp translator (bench/naive_translator.py), v1 paths;
- v1bridge: the proxy as an operator runs it (metrics, JSON access log to a file, usage records on), v1 paths.
With 2+ CPUs the upstream and wrk share CPU 0 and each proxy is pinned alone to CPU 1 (only one is loaded at a
time), so req/s is the proxy's own ceiling and the CPU time per request (utime + stime of the proxy process from
/proc, over the whole wrk run) is its cost. Ratios are to the plain pass-through of the same round set.
Also here: `--workers N` (the real CLI, N processes) and overload (p50/p99 at 50/200/400 connections;
`--overload` runs only that).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import fast_upstream as fu  # noqa: E402
import naive_translator  # noqa: E402
import proxy_bench as pb  # noqa: E402

ROUTES = (
    ("list", "GET /v1/pods (20 pods)"),
    ("get", "GET /v1/pods/{id}"),
    ("stop", "POST /v1/pods/{id}/stop"),
)
TARGETS = ("direct", "plain", "plain-http1", "naive", "v1bridge")
# goals as req/s ratios to the plain pass-through (issue 14)
GOALS = {"list": 0.62, "get": 0.90, "stop": 0.90}
LOAD_CPU = 0  # wrk and the upstream
PROXY_CPU = 1  # the proxy under test, alone


def two_cpus() -> bool:
    return hasattr(os, "sched_getaffinity") and len(os.sched_getaffinity(0)) >= 2


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def wrk(url: str, seconds: int, connections: int, threads: int = 1, script: str | None = None,
        workdir: Path | None = None, timeout: int | None = None) -> dict:
    """wrk's figures. `timeout`: wrk's own (2 s by default) past which an answer is counted as a socket error
    ("timeout") and left out of the percentiles."""
    pin = ["taskset", "-c", str(LOAD_CPU)] if two_cpus() and shutil.which("taskset") else []
    cmd = [*pin, "wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency",
           "-H", f"Authorization: Bearer {pb.KEY}"]
    if timeout:
        cmd += ["--timeout", f"{timeout}s"]
    if script:
        path = (workdir or Path(tempfile.gettempdir())) / f"wrk-{abs(hash(script))}.lua"
        path.write_text(script)
        cmd += ["-s", str(path)]
    overflows = listen_overflows()
    out = subprocess.run(cmd + [url], capture_output=True, text=True, timeout=seconds + 60 + (timeout or 0)).stdout
    found = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if found is None:
        raise RuntimeError(f"wrk gave no figures for {url}:\n{out}")
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    sock_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    kinds = dict(zip(("connect", "read", "write", "timeout"),
                     (int(x) for x in sock_errors.groups()) if sock_errors else (0, 0, 0, 0)))

    def pct(p: str) -> float:
        m = re.search(rf"^\s+{p}%\s+([\d.]+)(us|ms|s)\b", out, re.M)
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    return {"rps": float(found.group(1)), "p50": pct("50"), "p99": pct("99"),
            "requests": int(re.search(r"(\d+) requests in", out).group(1)),
            "non2xx": int(non2xx.group(1)) if non2xx else 0,
            "socket_errors": sum(kinds.values()), "socket_error_kinds": kinds,
            "listen_overflows": listen_overflows() - overflows}


def listen_overflows() -> int:
    """The kernel's count of connections dropped because a listening socket's accept queue was full (TcpExt
    ListenOverflows, as `nstat` shows it): machine-wide, so other programs' sockets count too."""
    try:
        lines = [line.split() for line in Path("/proc/net/netstat").read_text().splitlines()
                 if line.startswith("TcpExt:")]
    except FileNotFoundError:
        return 0
    return int(dict(zip(lines[0], lines[1])).get("ListenOverflows", 0)) if len(lines) == 2 else 0


def post_script(path: str, body: str) -> str:
    return (f'wrk.method = "POST"\nwrk.path = "{path}"\nwrk.body = \'{body}\'\n'
            'wrk.headers["Content-Type"] = "application/json"\n')


def requests_for(route: str, target: str, pod: str) -> tuple[str, str | None]:
    """(path, wrk Lua script or None) of one route for one target."""
    v1 = target in ("naive", "v1bridge", "baseline")
    if route == "list":
        return ("/v1/pods" if v1 else "/v2/pods"), None
    if route == "get":
        return (f"/v1/pods/{pod}" if v1 else f"/v2/pods/{pod}"), None
    if v1:
        return f"/v1/pods/{pod}/stop", post_script(f"/v1/pods/{pod}/stop", "")
    return f"/v2/pods/{pod}/action", post_script(f"/v2/pods/{pod}/action", '{"action":"stop"}')


def measure(url: str, pids: list[int], seconds: int, connections: int, script: str | None, workdir: Path,
            threads: int = 1, timeout: int | None = None) -> dict:
    before = cpu_seconds(pids)
    got = wrk(url, seconds, connections, threads, script, workdir, timeout)
    used = cpu_seconds(pids) - before
    got["cpu_us"] = used / max(got["requests"], 1) * 1e6
    got["load"] = os.getloadavg()[0]
    return got


def first_answers(url: str, count: int) -> None:
    """Blocking calls on fresh connections until each has an answer: a new process's first requests (lazy imports,
    first translations) can take longer than a short wrk run on a loaded machine."""
    for _ in range(count):
        req = urllib.request.Request(url, headers={"Authorization": f"Bearer {pb.KEY}", "Connection": "close"})
        with urllib.request.urlopen(req, timeout=60) as resp:
            resp.read()


def median_of(runs: list[dict]) -> dict:
    keys = ("rps", "p50", "p99", "cpu_us", "load")
    out = {k: statistics.median(r[k] for r in runs) for k in keys}
    out["non2xx"] = sum(r["non2xx"] for r in runs)
    out["runs"] = [round(r["rps"]) for r in runs]
    return out


def run_translating(port: int, upstream: str, records: str, max_inflight: int | None = None) -> None:
    """`v1bridge proxy --upstream URL --usage-dir DIR` as an operator runs it (access log to a file)."""
    from aiohttp import web

    from proxy.app import create_proxy_app
    from proxy.config import ProxyConfig
    from proxy.serving import serving_for_life

    sys.stderr = open(os.path.join(records, "access.log"), "a", buffering=1)  # noqa: SIM115 - the log collector
    extra = {} if max_inflight is None else {"max_inflight": max_inflight}
    # serving_for_life: the process set-up of `v1bridge proxy` (cli_proxy._serve) and of the --workers children;
    # the event loop is the one every target of the comparison runs on (pb.bench_loop)
    loop = pb.bench_loop()
    web.run_app(serving_for_life(create_proxy_app(ProxyConfig(
        upstream=upstream, access_log=True, usage_dir=records, fingerprint_salt="bench", **extra))),
                host="127.0.0.1", port=port, access_log=None, print=None, loop=loop, backlog=pb.BACKLOG)


def run_baseline(port: int, upstream: str, records: str, tree: str) -> None:
    """v1bridge as run_translating, from another checkout (`--baseline DIR`, e.g. a `git worktree` of the commit
    before a change): the A/B of one change, measured in the same interleaved rounds."""
    sys.path.insert(0, tree)
    for name in [m for m in sys.modules if m.split(".")[0] in ("proxy", "mappings")]:
        del sys.modules[name]
    run_translating(port, upstream, records)


class Bench:
    """The fast upstream and the three proxies (and a baseline v1bridge), started once, pinned, stopped at exit."""

    def __init__(self, workdir: Path, baseline: str | None = None) -> None:
        self.workdir = workdir
        self.captured = fu.capture()
        self.pod = self.captured.pod_id
        self.targets = TARGETS + (("baseline",) if baseline else ())
        self.ports = {t: pb.free_port() for t in self.targets}
        self.upstream = fu.FastUpstream(self.captured, self.ports["direct"], workdir)
        upstream_url = f"http://127.0.0.1:{self.ports['direct']}"
        ctx = multiprocessing.get_context("spawn")
        records = workdir / "records"
        records.mkdir(exist_ok=True)
        self.procs = {
            "plain": ctx.Process(target=pb.run_plain, args=(self.ports["plain"], upstream_url), daemon=True),
            "plain-http1": ctx.Process(target=pb.run_plain_http1, args=(self.ports["plain-http1"], upstream_url),
                                       daemon=True),
            "naive": ctx.Process(target=naive_translator.run, args=(self.ports["naive"], upstream_url), daemon=True),
            "v1bridge": ctx.Process(target=run_translating, args=(self.ports["v1bridge"], upstream_url, str(records)),
                                    daemon=True),
        }
        if baseline:
            self.procs["baseline"] = ctx.Process(target=run_baseline, args=(self.ports["baseline"], upstream_url,
                                                                            str(records), baseline), daemon=True)
        for p in self.procs.values():
            p.start()
        self.pinned = two_cpus()
        if self.pinned:
            fu.pin(self.upstream.pid, {LOAD_CPU})
            for p in self.procs.values():
                fu.pin(p.pid, {PROXY_CPU})
        for port in self.ports.values():
            pb.wait_up(port)
        self.upstream_url = upstream_url
        for target in self.targets[1:]:
            first_answers(self.url(target, requests_for("get", target, self.pod)[0]), 2)

    def pids(self, target: str) -> list[int]:
        return [self.upstream.pid] if target == "direct" else [self.procs[target].pid]

    def url(self, target: str, path: str) -> str:
        return f"http://127.0.0.1:{self.ports[target]}{path}"

    def warm(self, connections: int) -> None:
        for route, _ in ROUTES:
            for target in self.targets:
                path, script = requests_for(route, target, self.pod)
                wrk(self.url(target, path), 1, connections, 1, script, self.workdir)

    def stop(self) -> None:
        for p in self.procs.values():
            p.terminate()
        for p in self.procs.values():
            p.join(5)
        self.upstream.stop()


def hot_path(bench: Bench, rounds: int, seconds: int, connections: int,
             routes: tuple[str, ...] = tuple(r for r, _ in ROUTES)) -> dict:
    targets = bench.targets
    seen: dict[str, dict[str, list[dict]]] = {r: {t: [] for t in targets} for r in routes}
    for n in range(rounds):
        order = targets[n % len(targets):] + targets[:n % len(targets)]
        for route in routes:
            for target in order:
                path, script = requests_for(route, target, bench.pod)
                seen[route][target].append(measure(bench.url(target, path), bench.pids(target), seconds, connections,
                                                   script, bench.workdir))
        print(f"  round {n + 1}/{rounds} done, load {os.getloadavg()[0]:.2f}", flush=True)
    return {route: {t: median_of(runs) for t, runs in by_target.items()} for route, by_target in seen.items()}


SHED_LIMIT = 100  # the overload runs also use a low --max-inflight, to show shedding at 200 and 400 connections
OVERLOAD_TIMEOUT = 10  # s: wrk's own 2 s would leave the slowest answers out of the p99 (counted as "timeout")


def overload(bench: Bench, seconds: int, levels: tuple[int, ...] = (50, 200, 400)) -> list[dict]:
    """v1bridge alone (pinned), GET /v1/pods/{id}, wrk at 50/200/400 connections: latency and what was shed,
    with the default in-flight limit and with SHED_LIMIT (a second proxy process started for it); then the plain
    aiohttp pass-through at the same levels, the reference for the latency any aiohttp server shows there."""
    from proxy.config import ProxyConfig

    path, _ = requests_for("get", "v1bridge", bench.pod)
    port = pb.free_port()
    limited = multiprocessing.get_context("spawn").Process(
        target=run_translating, args=(port, bench.upstream_url, str(bench.workdir / "records"), SHED_LIMIT),
        daemon=True)
    limited.start()
    try:
        if bench.pinned:
            fu.pin(limited.pid, {PROXY_CPU})
        pb.wait_up(port)
        first_answers(f"http://127.0.0.1:{port}{path}", 2)
        rows = []
        plain_path, _ = requests_for("get", "plain", bench.pod)
        for target, limit, url, pid in (
                ("v1bridge", ProxyConfig.max_inflight, bench.url("v1bridge", path), bench.procs["v1bridge"].pid),
                ("v1bridge", SHED_LIMIT, f"http://127.0.0.1:{port}{path}", limited.pid),
                ("plain", None, bench.url("plain", plain_path), bench.procs["plain"].pid)):
            for connections in levels:
                got = measure(url, [pid], seconds, connections, None, bench.workdir, threads=2,
                              timeout=OVERLOAD_TIMEOUT)
                rows.append({"target": target, "limit": limit, "connections": connections, **got})
    finally:
        limited.terminate()
        limited.join(5)
    return rows


WORKER_RUNS = ((1, True), (2, True), (2, False))  # (processes, pinned to the proxy CPU)


def workers(bench: Bench, seconds: int, connections: int,
            runs: tuple[tuple[int, bool], ...] = WORKER_RUNS) -> list[dict]:
    """`v1bridge proxy --workers N --upstream <fast upstream>` as shipped (the CLI, SO_REUSEPORT, shared metrics),
    GET /v1/pods/{id}. Pinned: every worker on the proxy CPU (wrk and the upstream stay on the load CPU);
    unpinned: the workers may run on any CPU, beside wrk and the upstream."""
    rows = []
    exe = shutil.which("v1bridge", path=str(Path(sys.executable).parent)) or "v1bridge"
    for count, pinned in runs:
        port = pb.free_port()
        records = bench.workdir / f"workers-{count}"
        records.mkdir(exist_ok=True)
        log = open(records / "stderr.log", "w")  # noqa: SIM115
        proc = subprocess.Popen([exe, "proxy", "--upstream", bench.upstream_url, "--port", str(port), "--workers",
                                 str(count), "--usage-dir", str(records)], stderr=log, stdout=subprocess.DEVNULL)
        try:
            pb.wait_up(port)
            children = _children(proc.pid, count, port)
            if bench.pinned and pinned:
                for pid in children:
                    fu.pin(pid, {PROXY_CPU})
            path, _ = requests_for("get", "v1bridge", bench.pod)
            url = f"http://127.0.0.1:{port}{path}"
            first_answers(url, 4 * count)
            wrk(url, 1, connections, 1, None, bench.workdir)
            got = measure(url, children, seconds, connections, None, bench.workdir, threads=2)
            rows.append({"workers": count, "pinned": bench.pinned and pinned, "per_worker": got["rps"] / count, **got})
        finally:
            proc.terminate()
            proc.wait(15)
            log.close()
    return rows


def _listeners(port: int) -> int:
    """Sockets listening on `port` (each --workers process binds its own, SO_REUSEPORT)."""
    hexport = f":{port:04X}"
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except FileNotFoundError:
            continue
        count += sum(1 for line in lines if line.split()[1].endswith(hexport) and line.split()[3] == "0A")
    return count


def _children(parent: int, count: int, port: int) -> list[int]:
    """The worker pids once every worker listens (the CLI's children, not multiprocessing's resource tracker;
    with one worker the CLI serves in its own process)."""
    deadline = time.monotonic() + 60
    while _listeners(port) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    if count == 1:
        return [parent]
    kids = [int(p) for p in Path(f"/proc/{parent}/task/{parent}/children").read_text().split()]
    return [k for k in kids if b"resource_tracker" not in Path(f"/proc/{k}/cmdline").read_bytes()]


# ------------------------------------------------------------------ report


def render_hot_path(results: dict, bench: Bench, rounds: int, seconds: int, connections: int) -> list[str]:
    pin = (f"upstream and wrk pinned to CPU {LOAD_CPU}, each proxy alone on CPU {PROXY_CPU}" if bench.pinned
           else "unpinned (fewer than 2 CPUs)")
    lines = [f"Fast upstream: {bench.upstream.kind} serving v2 answers captured from the sandbox "
             f"(20-pod list {len(bench.captured.answers[0].body):,} bytes). wrk -t1 -c{connections} -d{seconds}s, "
             f"{rounds} interleaved rounds, medians; {pin}; every target on {pb.loop_name()}'s event loop.", "",
             "| route | target | req/s | proxy CPU µs/req | p50 ms | p99 ms | req/s ratio to plain | CPU ratio "
             "(plain / target) | load | non-2xx | runs req/s |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for route, title in ROUTES:
        if route not in results:
            continue
        row = results[route]
        plain = row["plain"]
        for target in [t for t in (*TARGETS, "baseline") if t in row]:
            r = row[target]
            ratio = r["rps"] / plain["rps"]
            cpu_ratio = plain["cpu_us"] / r["cpu_us"] if r["cpu_us"] else float("nan")
            label = "direct (upstream CPU)" if target == "direct" else target
            lines.append(f"| {title if target == 'direct' else ''} | {label} | {r['rps']:,.0f} | {r['cpu_us']:.0f} | "
                         f"{r['p50']:.2f} | {r['p99']:.2f} | {'' if target == 'direct' else f'{ratio:.2f}x'} | "
                         f"{'' if target in ('direct', 'plain') else f'{cpu_ratio:.2f}x'} | {r['load']:.2f} | "
                         f"{r['non2xx']} | {', '.join(map(str, r['runs']))} |")
    lines += ["", "| route | v1bridge / plain (req/s) | goal | naive / plain | v1bridge / naive | v1bridge / plain-http1 "
              "(req/s) | v1bridge's CPU over plain-http1 |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for route, title in ROUTES:
        if route not in results:
            continue
        row = results[route]
        ours = row["v1bridge"]["rps"] / row["plain"]["rps"]
        naive = row["naive"]["rps"] / row["plain"]["rps"]
        met = "met" if ours >= GOALS[route] else f"missed by {GOALS[route] - ours:.2f}"
        same_client = row["plain-http1"]
        lines.append(f"| {title} | {ours:.2f}x | >= {GOALS[route]:.2f}x ({met}) | {naive:.2f}x | "
                     f"{row['v1bridge']['rps'] / row['naive']['rps']:.2f}x | "
                     f"{row['v1bridge']['rps'] / same_client['rps']:.2f}x | "
                     f"+{row['v1bridge']['cpu_us'] - same_client['cpu_us']:.0f} µs |")
    return lines


def render_overload(rows: list[dict]) -> list[str]:
    lines = ["v1bridge, one process (pinned), GET /v1/pods/{id}, wrk -t2 (closed loop: each connection waits for its "
             "answer), at the default in-flight limit and at `--max-inflight " + str(SHED_LIMIT) + "`; non-2xx are "
             "the 503s (with Retry-After) shed past the limit, answered without calling the upstream. Then the plain "
             "aiohttp pass-through (GET /v2/pods/{id}, pinned the same way): what any aiohttp server shows at these "
             f"levels. wrk --timeout {OVERLOAD_TIMEOUT}s, so slow answers count in the percentiles; every server "
             f"listens with a backlog of {pb.BACKLOG}. Listen overflows: connections the kernel dropped (TcpExt "
             "ListenOverflows, machine-wide) during the run; each comes back as a SYN retransmitted 1 s later.", "",
             "| target | --max-inflight | connections | req/s | p50 ms | p99 ms | non-2xx (shed 503) | "
             "socket errors (connect/read/write/timeout) | listen overflows |",
             "|---|---:|---:|---:|---:|---:|---:|---|---:|"]
    for r in rows:
        kinds = r["socket_error_kinds"]
        limit = "" if r["limit"] is None else str(r["limit"])
        lines.append(f"| {r['target']} | {limit} | {r['connections']} | {r['rps']:,.0f} | {r['p50']:.2f} | "
                     f"{r['p99']:.2f} | {r['non2xx']} | {kinds['connect']}/{kinds['read']}/{kinds['write']}/"
                     f"{kinds['timeout']} | {r['listen_overflows']} |")
    return lines


def render_workers(rows: list[dict], pinned: bool) -> list[str]:
    lines = ["`v1bridge proxy --workers N --upstream <fast upstream> --usage-dir DIR`, GET /v1/pods/{id}, wrk -t2 "
             f"pinned to CPU {LOAD_CPU} with the upstream. On this 2-core machine, workers pinned to CPU {PROXY_CPU} "
             "share one core: that row measures what N processes cost over one (SO_REUSEPORT spread, shared-metrics "
             "writes, context switches, less batching per event-loop turn), not scaling. Unpinned, the workers also "
             "compete with wrk and the upstream for CPU 0, so the gain is bounded by what those leave free; scaling "
             "needs a core per worker.", "",
             "| workers | CPUs | req/s | req/s per worker | CPU µs/req (all workers) | p50 ms | p99 ms | non-2xx |",
             "|---:|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        cpus = f"CPU {PROXY_CPU}" if r["pinned"] else "any"
        lines.append(f"| {r['workers']} | {cpus} | {r['rps']:,.0f} | {r['per_worker']:,.0f} | {r['cpu_us']:.0f} | "
                     f"{r['p50']:.2f} | {r['p99']:.2f} | {r['non2xx']} |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--routes", default="list,get,stop", help="comma-separated subset of list,get,stop")
    parser.add_argument("--loop", choices=("asyncio", "uvloop"), default="asyncio",
                        help="the event loop of every target (default asyncio's, as `v1bridge proxy` runs by default)")
    parser.add_argument("--baseline", metavar="DIR",
                        help="also run v1bridge from this checkout (a worktree of an earlier commit): A/B of a change")
    parser.add_argument("--overload", action="store_true",
                        help="only the overload scenario (50/200/400 connections, --seconds each), not the hot path")
    args = parser.parse_args()
    os.environ[pb.LOOP_ENV] = args.loop  # read by every target process (spawned after this)
    if not shutil.which("wrk"):
        print("wrk is needed: apt-get update && apt-get install -y wrk", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="hotpath-") as tmp:
        bench = Bench(Path(tmp), args.baseline)
        if args.overload:
            try:
                print(f"load {os.getloadavg()[0]:.2f}", flush=True)
                rows = overload(bench, args.seconds)
            finally:
                bench.stop()
            print("\n".join(render_overload(rows)) + f"\nload after: {os.getloadavg()[0]:.2f}")
            return 0
        try:
            results = hot_path(bench, args.rounds, args.seconds, args.connections, tuple(args.routes.split(",")))
        finally:
            bench.stop()
    print("\n".join(render_hot_path(results, bench, args.rounds, args.seconds, args.connections)))
    if args.baseline:
        print(f"\nA/B against {args.baseline}: CPU µs/req v1bridge vs baseline (medians of the same rounds)")
        for route, row in results.items():
            ours, base = row["v1bridge"]["cpu_us"], row["baseline"]["cpu_us"]
            print(f"  {route}: {ours:.0f} vs {base:.0f} ({(ours - base) / base:+.1%}); req/s "
                  f"{row['v1bridge']['rps']:.0f} vs {row['baseline']['rps']:.0f}")
    print(json.dumps(results, indent=1) if os.environ.get("HOTPATH_JSON") else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
