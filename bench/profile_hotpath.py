"""Where the proxy's time goes per request: cProfile of v1bridge (as an operator runs it) under wrk load against
the fast upstream, one route at a time.

    .venv/bin/python bench/profile_hotpath.py [--route list|get|stop] [--seconds 5] [--top 30]

Prints the functions with the most own time (tottime) and the most cumulative time, per request (the profile's
overhead inflates every figure alike; compare shares, not absolute µs, with bench/hotpath.py).
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import pstats
import signal
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import fast_upstream as fu  # noqa: E402
import hotpath  # noqa: E402
import proxy_bench as pb  # noqa: E402


def profiled_proxy(port: int, upstream: str, records: str, out: str) -> None:
    import cProfile

    from aiohttp import web

    from proxy.app import create_proxy_app
    from proxy.serving import event_loop, serving_for_life
    from proxy.config import ProxyConfig

    sys.stderr = open(os.path.join(records, "access.log"), "a", buffering=1)  # noqa: SIM115
    app = serving_for_life(create_proxy_app(ProxyConfig(upstream=upstream, access_log=True, usage_dir=records,
                                                        fingerprint_salt="bench")))
    profile = cProfile.Profile()
    profile.enable()
    try:
        web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None, loop=event_loop())
    finally:
        profile.disable()
        profile.dump_stats(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--route", choices=("list", "get", "stop"), default="get")
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="profile-") as tmp:
        work = Path(tmp)
        captured = fu.capture()
        up_port, px_port = pb.free_port(), pb.free_port()
        upstream = fu.FastUpstream(captured, up_port, work)
        out = str(work / "proxy.prof")
        proc = multiprocessing.get_context("spawn").Process(
            target=profiled_proxy, args=(px_port, f"http://127.0.0.1:{up_port}", tmp, out))
        proc.start()
        try:
            if hotpath.two_cpus():
                fu.pin(upstream.pid, {hotpath.LOAD_CPU})
                fu.pin(proc.pid, {hotpath.PROXY_CPU})
            pb.wait_up(px_port)
            path, script = hotpath.requests_for(args.route, "v1bridge", captured.pod_id)
            hotpath.first_answers(f"http://127.0.0.1:{px_port}{hotpath.requests_for('get', 'v1bridge', captured.pod_id)[0]}", 2)
            got = hotpath.wrk(f"http://127.0.0.1:{px_port}{path}", args.seconds, 50, 1, script, work)
        finally:
            os.kill(proc.pid, signal.SIGINT)
            proc.join(30)
            upstream.stop()
        requests = got["requests"] + 2
        stats = pstats.Stats(out)
        print(f"{args.route}: {got['requests']} requests, {got['rps']:.0f} req/s under the profiler, non-2xx "
              f"{got['non2xx']}; figures are µs per request")
        for key in ("tottime", "cumulative"):
            print(f"\n--- top {args.top} by {key} ---")
            rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2 if key == "tottime" else 3], reverse=True)
            for (file, line, name), (cc, nc, tt, ct, _) in rows[:args.top]:
                where = f"{Path(file).name}:{line}({name})" if line else name
                print(f"{tt / requests * 1e6:8.1f} own {ct / requests * 1e6:8.1f} cum {nc / requests:6.1f} calls  {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
