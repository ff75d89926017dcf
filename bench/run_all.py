"""Every benchmark of v1bridge in one run, one table of figures and ratios.

    .venv/bin/python bench/run_all.py --quick     # under 3 minutes: 2 rounds x 2 s, 10 s soak, 1,000-file trees
    .venv/bin/python bench/run_all.py --full      # ~12 minutes: 5 rounds x 5 s, 5 min soak, 10,000-file trees
    .venv/bin/python bench/run_all.py --quick --files 10000   # quick, with the issues' 10,000-file trees
    .venv/bin/python bench/run_all.py --quick --files 10000 --large-sizes 0.5,5   # and issue 23's 5 MB file

Proxy hot path (bench/hotpath.py): against a fast upstream (nginx serving pre-serialised v2 answers, pinned
with wrk to CPU 0), direct / plain aiohttp pass-through / naive translator (bench/naive_translator.py) /
v1bridge as an operator runs it (metrics, access log, usage records), each proxy alone on CPU 1, in
interleaved rounds: medians of req/s, proxy CPU per request, p50/p99, the ratios to the pass-through and the
load average. Then `--workers N` (the real CLI) and overload (p50/p99 at 50, 200, 400 connections).
Sandbox scenario (labelled apart): the same comparison with the sandbox as the upstream; there the
sandbox sets the pace, so it measures the whole stack, not the proxy.
Memory: resident size of one proxy process idle, holding 1,000 concurrent keep-alive
connections (opened from one asyncio client), and over a mixed soak (growth bound stated).
Rewrite and audit: files/s on a generated tree, 1 and 2 jobs (bench/rewrite_bench.py,
bench/audit_bench.py).
Writes docs/bench.md (the one home of v1bridge's measured figures: nothing else quotes them), with the date,
commit, machine load and command of the run, and bench/results/latest.md and latest.json. `--only NAME`
runs one section and writes only bench/results/ (a partial run never replaces docs/bench.md).

Sections beyond the four above register in SECTIONS: (name, title, module in bench/, function). The function
takes `full: bool` (the large-file one also `sizes`, from `--large-sizes`) and returns the section's Markdown
lines, ratios against a baseline measured in the same run (the GraphQL endpoint against the REST route, a large
file against a small one, ...).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import platform
import resource
import shutil
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import hotpath  # noqa: E402
import proxy_bench as pb  # noqa: E402  (the proxy engineer's wrk helpers and servers)

RESULTS = ROOT / "bench" / "results"
DOCS_BENCH = ROOT / "docs" / "bench.md"
# extra sections: (name, title, module in bench/, function(full: bool) -> Markdown lines)
SECTIONS: list[tuple[str, str, str, str]] = [
    ("states", "Where the rewrite leaves each v1 call site (issue 21)", "rewrite_states", "section"),
    ("large-files", "Large files: rewrite and audit", "large_file_bench", "section"),
    ("graphql", "GraphQL against REST v1 through the proxy", "graphql_bench", "section"),
    ("answers", "Answers in flight: concurrent 100,000-pod lists, compressed answers", "answers_in_flight", "section"),
]
CORE = ("proxy", "sandbox", "memory", "files")
# soak: RSS may grow by at most this much between the end of warm-up and the end of the soak
SOAK_GROWTH_BOUND_MB = 10.0


def run_translating_shared(port: int, upstream: str) -> None:
    """One translating proxy process on a shared port (SO_REUSEPORT), like `v1bridge proxy --workers N`."""
    from aiohttp import web

    from proxy.app import create_proxy_app
    from proxy.serving import event_loop, serving_for_life
    from proxy.config import ProxyConfig

    web.run_app(serving_for_life(create_proxy_app(ProxyConfig(upstream=upstream, access_log=False, fingerprint_salt="bench"))),
                host="127.0.0.1", port=port, access_log=None, print=None, reuse_port=True,
                loop=event_loop(), backlog=pb.BACKLOG)  # the 1,000 connections of the memory scenario open at once


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# ------------------------------------------------------------------ proxy hot path (fast upstream)


def proxy_hot_path(rounds: int, seconds: int, connections: int, overload_seconds: int, warm: bool) -> dict:
    """Hot path, overload and --workers against the fast upstream, in one set of processes."""
    with tempfile.TemporaryDirectory(prefix="hotpath-") as tmp:
        bench = hotpath.Bench(Path(tmp))
        try:
            if warm:  # --full: a 1 s wrk run per target and route first (--quick: only the first answers)
                bench.warm(connections)
            load_before = os.getloadavg()
            results = hotpath.hot_path(bench, rounds, seconds, connections)
            over = hotpath.overload(bench, overload_seconds)
            workers = hotpath.workers(bench, overload_seconds, connections)
            load_after = os.getloadavg()
        finally:
            bench.stop()
    lines = ["## Proxy hot path (fast upstream)", "",
             *hotpath.render_hot_path(results, bench, rounds, seconds, connections), "",
             f"Load average (1 min) before {load_before[0]:.2f}, after {load_after[0]:.2f}; the machine's 2 cores are "
             "shared with other work, so absolute req/s move between runs; the ratios come from interleaved rounds "
             "of one run.", "",
             "## Overload", "", *hotpath.render_overload(over), "",
             "## --workers N", "", *hotpath.render_workers(workers, bench.pinned), ""]
    return {"results": results, "overload": over, "workers": workers, "load_before": load_before,
            "load_after": load_after, "upstream": bench.upstream.kind, "pinned": bench.pinned, "lines": lines}


# ------------------------------------------------------------------ sandbox scenario (the sandbox sets the pace)


def proxy_throughput(seconds: int, connections: int, full: bool = True) -> list[dict]:
    ctx = multiprocessing.get_context("spawn")
    ports = {"sandbox": pb.free_port(), "plain": pb.free_port(), "translating": pb.free_port(),
             "translating x2": pb.free_port()}
    upstream = f"http://127.0.0.1:{ports['sandbox']}"
    procs = [
        ctx.Process(target=pb.run_sandbox, args=(ports["sandbox"],), daemon=True),
        ctx.Process(target=pb.run_plain, args=(ports["plain"], upstream), daemon=True),
        ctx.Process(target=run_translating_shared, args=(ports["translating"], upstream), daemon=True),
        ctx.Process(target=run_translating_shared, args=(ports["translating x2"], upstream), daemon=True),
        ctx.Process(target=run_translating_shared, args=(ports["translating x2"], upstream), daemon=True),
    ]
    for p in procs:
        p.start()
    rows: list[dict] = []
    try:
        for port in set(ports.values()):
            pb.wait_up(port)
        time.sleep(0.5)  # the second x2 process binds a moment after the first
        bases = {k: f"http://127.0.0.1:{v}" for k, v in ports.items()}
        bases["direct"] = bases.pop("sandbox")
        pods = [pb.call(upstream + "/v2/pods", "POST", pb.V2_POD)["id"] for _ in range(pb.PODS)]
        tmp = Path(tempfile.mkdtemp(prefix="run-all-"))
        targets = ("direct", "plain", "translating", "translating x2")

        def path_for(target: str, v1: str, v2: str) -> str:
            return v1 if target.startswith("translating") else v2

        scenarios = [("list GET /v1/pods (20 pods)", "/v1/pods", "/v2/pods"),
                     ("get GET /v1/pods/{id}", f"/v1/pods/{pods[0]}", f"/v2/pods/{pods[0]}")]
        for name, v1, v2 in scenarios if full else scenarios[1:]:  # --quick: get only
            row = {t: pb.wrk(bases[t] + path_for(t, v1, v2), seconds, connections, None, tmp) for t in targets}
            rows.append({"scenario": name, **row})
        if full:  # actions and creates: --full only (they need fresh pods per target)
            per = pb.STOP_PODS_PER_THREAD * pb.THREADS
            stop_pods = [pb.call(upstream + "/v2/pods", "POST", pb.V2_POD)["id"] for _ in range(per * len(targets))]
            row = {}
            for index, t in enumerate(targets):
                quoted = ",".join(f'"{i}"' for i in stop_pods[index * per:(index + 1) * per])
                script = pb.LUA_STOP % (quoted, pb.STOP_PODS_PER_THREAD, path_for(t, "/v1/pods/{id}", "/v2/pods/{id}"),
                                        pb.KEY, pb.KEY)
                row[t] = pb.wrk(bases[t] + "/", seconds, connections, script, tmp)
            rows.append({"scenario": "action POST /v1/pods/{id}/stop, start", **row})
            row = {}
            for t in targets:
                body = pb.V1_POD if t.startswith("translating") else pb.V2_POD
                row[t] = pb.wrk(bases[t] + path_for(t, "/v1/pods", "/v2/pods"), seconds, connections,
                                pb.LUA_POST % (json.dumps(body), pb.KEY), tmp)
            rows.append({"scenario": "create POST /v1/pods", **row})
        shutil.rmtree(tmp, ignore_errors=True)
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.join(5)
    return rows


# ------------------------------------------------------------------ memory


async def _hold_connections(port: int, count: int) -> int:
    """Open `count` keep-alive connections from one client, each with a request answered, and keep them open."""
    import aiohttp

    connector = aiohttp.TCPConnector(limit=0, force_close=False, keepalive_timeout=600)
    session = aiohttp.ClientSession(connector=connector)
    gate = asyncio.Event()
    opened = 0

    async def one() -> None:
        nonlocal opened
        async with session.get(f"http://127.0.0.1:{port}/healthz") as resp:
            await resp.read()
            opened += 1
            await gate.wait()  # hold the connection (not returned to the pool) while measured

    tasks = [asyncio.create_task(one()) for _ in range(count)]
    while opened < count and not any(t.done() and t.exception() for t in tasks):
        await asyncio.sleep(0.1)
    return_value = opened
    _hold_connections.release = (gate, tasks, session)  # type: ignore[attr-defined]
    return return_value


def memory(soak_seconds: int, connections: int) -> dict:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, connections * 2 + 256))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    ctx = multiprocessing.get_context("spawn")
    up_port, px_port = pb.free_port(), pb.free_port()
    upstream = f"http://127.0.0.1:{up_port}"
    sandbox = ctx.Process(target=pb.run_sandbox, args=(up_port,), daemon=True)
    proxy = ctx.Process(target=run_translating_shared, args=(px_port, upstream), daemon=True)
    sandbox.start()
    proxy.start()
    out: dict = {}
    try:
        pb.wait_up(up_port)
        pb.wait_up(px_port)
        time.sleep(1)
        out["idle_mb"] = rss_mb(proxy.pid)

        async def held() -> tuple[int, float]:
            opened = await _hold_connections(px_port, connections)
            await asyncio.sleep(1)
            value = rss_mb(proxy.pid)
            gate, tasks, session = _hold_connections.release  # type: ignore[attr-defined]
            gate.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            await session.close()
            return opened, value

        opened, out["keepalive_mb"] = asyncio.run(held())
        out["keepalive_connections"] = opened
        pods = [pb.call(upstream + "/v2/pods", "POST", pb.V2_POD)["id"] for _ in range(pb.PODS)]
        # mixed soak: list and get, in alternating 5 s wrk runs, RSS sampled after each
        tmp = Path(tempfile.mkdtemp(prefix="soak-"))
        samples: list[float] = []
        deadline = time.monotonic() + soak_seconds
        turn = 0
        while time.monotonic() < deadline:
            path = "/v1/pods" if turn % 2 == 0 else f"/v1/pods/{pods[turn % len(pods)]}"
            pb.wrk(f"http://127.0.0.1:{px_port}{path}", 5, 16, None, tmp)
            samples.append(rss_mb(proxy.pid))
            turn += 1
        shutil.rmtree(tmp, ignore_errors=True)
        warm = samples[min(1, len(samples) - 1)]
        out.update(soak_seconds=soak_seconds, soak_start_mb=warm, soak_end_mb=samples[-1],
                   soak_max_mb=max(samples), soak_growth_mb=samples[-1] - warm,
                   soak_bound_mb=SOAK_GROWTH_BOUND_MB, soak_stable=samples[-1] - warm <= SOAK_GROWTH_BOUND_MB)
    finally:
        proxy.terminate()
        sandbox.terminate()
        proxy.join(5)
        sandbox.join(5)
    return out


# ------------------------------------------------------------------ rewrite and audit


def files_per_second(files: int) -> dict:
    import audit_bench
    import rewrite_bench

    out: dict = {"files": files}
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "rewrite"
        rewrite_bench.build_tree(tree, files, 0.05)
        for jobs in (1, 2):
            elapsed, code = min(rewrite_bench.run_once(tree, jobs) for _ in range(2))
            out[f"rewrite_jobs{jobs}"] = files / elapsed
        tree = Path(tmp) / "audit"
        tree.mkdir()
        audit_bench.generate(tree, files, 0.05)
        audit_bench.measure(tree, 1)  # warm the page cache
        for jobs in (1, 2):
            elapsed, scanned, _ = min(audit_bench.measure(tree, jobs) for _ in range(2))
            out[f"audit_jobs{jobs}"] = scanned / elapsed
    return out


# ------------------------------------------------------------------ report


def machine() -> str:
    import aiohttp

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"{platform.system()} {platform.release()} {platform.machine()}, {cpus} CPUs, "
            f"Python {platform.python_version()}, aiohttp {aiohttp.__version__}, load {os.getloadavg()[0]:.2f}")


def render(mode: str, args: argparse.Namespace, hot: dict, proxy_rows: list[dict], mem: dict, files: dict | None,
           started: str) -> str:
    lines = [f"# v1bridge benchmarks ({mode})", "",
             f"Command: `.venv/bin/python bench/run_all.py --{mode}`; run {started}, took {args.elapsed:.0f} s.",
             f"Machine: {machine()}.", "", *hot["lines"]]
    if proxy_rows:
        lines += ["## Sandbox scenario (the sandbox as upstream: measures the whole stack, not the proxy)", "",
                  f"wrk -t{pb.THREADS} -c{args.connections} -d{args.sandbox_seconds}s on loopback, unpinned: the "
                  "sandbox, the proxies and wrk share the cores, and the sandbox sets the pace. Kept to show the "
                  "end-to-end figure a sandbox user sees; the proxy's own cost is the table above.", "",
                  "| scenario | target | req/s | p50 ms | p99 ms | non-2xx |", "|---|---|---:|---:|---:|---:|"]
        for row in proxy_rows:
            for target in ("direct", "plain", "translating", "translating x2"):
                r = row[target]
                lines.append(f"| {row['scenario'] if target == 'direct' else ''} | {target} | {r['rps']:.0f} | "
                             f"{r['p50']:.2f} | {r['p99']:.2f} | {r['errors']} |")
        lines += ["", "| scenario | translated / pass-through (1 process) | translated x2 / pass-through |",
                  "|---|---:|---:|"]
        for row in proxy_rows:
            lines.append(f"| {row['scenario']} | {row['translating']['rps'] / row['plain']['rps']:.0%} | "
                         f"{row['translating x2']['rps'] / row['plain']['rps']:.0%} |")
        lines.append("")
    if "idle_mb" in mem:
        lines += ["## Memory (resident size of one translating proxy process)", "",
                  "| state | RSS MB |", "|---|---:|",
                  f"| idle | {mem['idle_mb']:.1f} |",
                  f"| holding {mem['keepalive_connections']} keep-alive connections | {mem['keepalive_mb']:.1f} |",
                  f"| soak start (after the first 5 s run) | {mem['soak_start_mb']:.1f} |",
                  f"| soak end ({mem['soak_seconds']} s of list/get load) | {mem['soak_end_mb']:.1f} |",
                  f"| soak max | {mem['soak_max_mb']:.1f} |", "",
                  f"Soak growth {mem['soak_growth_mb']:+.1f} MB, bound {mem['soak_bound_mb']:.0f} MB: "
                  f"**{'stable' if mem['soak_stable'] else 'NOT stable'}**.", ""]
    if files is not None:
        lines += [f"## Rewrite and audit ({files['files']:,}-file generated tree, 5% calling the API, some of it "
                  "multi-file clients in shell, Go and TypeScript, so the audit's project-wide pass runs; best of 2)",
                  "", "| tool | jobs 1 files/s | jobs 2 files/s | ratio | goal at jobs 2 (issues 21, 25) |",
                  "|---|---:|---:|---:|---|"]
        goals = {"rewrite": 1_500, "audit": 10_000}
        for tool in ("rewrite", "audit"):
            one, two = files[f"{tool}_jobs1"], files[f"{tool}_jobs2"]
            met = "met" if two >= goals[tool] else "not met"
            lines.append(f"| {tool} | {one:,.0f} | {two:,.0f} | x{two / one:.2f} | {goals[tool]:,} files/s: {met} |")
    return "\n".join(lines) + "\n"


def commit() -> str:
    """The commit measured, marked when the tree differs from it (a figure must name the code it measured)."""
    import subprocess

    def git(*argv: str) -> str:
        return subprocess.run(["git", *argv], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + (" + uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else "")


def docs_page(report: str, command: str, started: str, load_before: float, revision: str) -> str:
    """docs/bench.md: how to read the figures, then this run's tables, under the run's own header."""
    commands, _, method = __doc__.split("\n\n", 1)[1].split("Writes docs/bench.md")[0].partition("\n\n")
    intro = "```sh\n" + textwrap.dedent(commands).strip() + "\n```\n\n" + method.strip()
    return "\n".join([
        "# Measured figures", "",
        "Written by `bench/run_all.py` from its own run; do not edit by hand. Every figure of v1bridge lives here,",
        "with the run that produced it.", "",
        "| run | |", "|---|---|",
        f"| command | `{command}` |", f"| started | {started} |", f"| commit | `{revision}` |",
        f"| machine | {machine()} |", f"| load average before | {load_before:.2f} |", "",
        "## What is measured", "", intro, "",
        report.split("\n", 1)[1].replace("\n## ", "\n## ").strip(), ""])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="short runs (default)")
    mode.add_argument("--full", action="store_true", help="longer runs, 5-minute soak, 10,000-file trees")
    parser.add_argument("--connections", type=int, default=16, help="sandbox scenario connections")
    parser.add_argument("--hot-connections", type=int, default=50, help="hot-path connections (wrk -t1)")
    parser.add_argument("--files", type=int, metavar="N",
                        help="files in the rewrite and audit trees (default: 1,000 quick, 10,000 full; the issues' "
                             "goals are set on 10,000)")
    parser.add_argument("--large-sizes", type=lambda text: tuple(float(s) for s in text.split(",")),
                        metavar="MB,MB", help="the large-file section's sizes in MB (default: 0.125,0.5 quick, "
                                              "0.25,1,5 full; issue 23's goal is set on 5)")
    parser.add_argument("--only", choices=[*CORE, *(name for name, *_ in SECTIONS)], metavar="NAME",
                        help="run one section; writes bench/results/ only, never docs/bench.md")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        print("wrk is needed: apt-get update && apt-get install -y wrk", file=sys.stderr)
        return 2
    full = args.full
    rounds, args.seconds = (5, 5) if full else (2, 2)  # --quick: five targets x three routes must fit 3 minutes
    args.sandbox_seconds = 5 if full else 2
    soak = 300 if full else 10
    name = "full" if full else "quick"
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    began = time.monotonic()
    load_before = os.getloadavg()[0]
    revision = commit()
    wanted = (lambda section: args.only in (None, section))
    steps = [c for c in CORE if wanted(c)] + [name for name, *_ in SECTIONS if wanted(name)]
    step = iter(range(1, len(steps) + 1))
    tree_files = args.files or (10_000 if full else 1_000)
    hot, rows, files = {"lines": []}, [], None
    mem = {"soak_stable": True}
    if wanted("proxy"):
        print(f"[{next(step)}/{len(steps)}] proxy hot path, fast upstream ({rounds} rounds x {args.seconds} s), overload, --workers", flush=True)
        hot = proxy_hot_path(rounds, args.seconds, args.hot_connections, 3 if full else 2, full)
    if wanted("sandbox"):
        print(f"[{next(step)}/{len(steps)}] sandbox scenario ({args.sandbox_seconds} s per run)", flush=True)
        rows = proxy_throughput(args.sandbox_seconds, args.connections, full)
    if wanted("memory"):
        print(f"[{next(step)}/{len(steps)}] memory (1,000 connections, {soak} s soak)", flush=True)
        mem = memory(soak, 1000)
    if wanted("files"):
        print(f"[{next(step)}/{len(steps)}] rewrite and audit ({tree_files:,} files)", flush=True)
        files = files_per_second(tree_files)
    extra: list[str] = []
    for section, title, module_name, function in SECTIONS:
        if not wanted(section):
            continue
        print(f"[{next(step)}/{len(steps)}] {title}", flush=True)
        import importlib

        options = {"sizes": args.large_sizes} if section == "large-files" and args.large_sizes else {}
        extra += [f"## {title}", "", *getattr(importlib.import_module(module_name), function)(full, **options), ""]
    args.elapsed = time.monotonic() - began
    report = render(name, args, hot, rows, mem, files, started) + ("\n" + "\n".join(extra) if extra else "")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "latest.md").write_text(report)
    (RESULTS / "latest.json").write_text(json.dumps({"mode": name, "started": started, "machine": machine(),
                                                     "commit": revision, "only": args.only,
                                                     "seconds": args.seconds, "connections": args.connections,
                                                     "hot_path": {k: v for k, v in hot.items() if k != "lines"},
                                                     "proxy": rows, "memory": mem, "files": files}, indent=2))
    print(report)
    print(f"written: {RESULTS / 'latest.md'}, {RESULTS / 'latest.json'}")
    if args.only is None:
        command = (f".venv/bin/python bench/run_all.py --{name}" + (f" --files {args.files}" if args.files else "")
                   + (f" --large-sizes {','.join(f'{s:g}' for s in args.large_sizes)}" if args.large_sizes else ""))
        DOCS_BENCH.write_text(docs_page(report, command, started, load_before, revision))
        print(f"written: {DOCS_BENCH}")
    return 0 if mem["soak_stable"] else 1


if __name__ == "__main__":
    sys.exit(main())
