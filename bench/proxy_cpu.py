"""Proxy CPU per request: plain pass-through vs translating proxy, from /proc/<pid>/stat over fixed wrk runs.

    .venv/bin/python bench/proxy_cpu.py [--seconds 5] [--connections 16] [--runs 3]

Same three processes as bench/proxy_bench.py, always pinned (wrk + upstream on CPU 0, each proxy alone
on CPU 1). For GET /v1/pods/{id} and GET /v1/pods (20 pods) it prints req/s and the proxy's own CPU time
(utime + stime) per request, the most stable figure on a shared, noisy VM. Each target keeps its best run.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import proxy_bench as pb  # noqa: E402


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    ctx = multiprocessing.get_context("spawn")
    ports = {"sandbox": pb.free_port(), "plain": pb.free_port(), "translating": pb.free_port()}
    upstream = f"http://127.0.0.1:{ports['sandbox']}"
    tmp = Path(tempfile.mkdtemp(prefix="proxy-cpu-"))
    procs = {
        "sandbox": ctx.Process(target=pb.run_sandbox, args=(ports["sandbox"],), daemon=True),
        "plain": ctx.Process(target=pb.run_plain, args=(ports["plain"], upstream), daemon=True),
        "translating": ctx.Process(target=pb.run_translating, args=(ports["translating"], upstream, str(tmp)),
                                   daemon=True),
    }
    for p in procs.values():
        p.start()
    pb.PIN.extend(["taskset", "-c", "0"])
    os.sched_setaffinity(procs["sandbox"].pid, {0})
    os.sched_setaffinity(procs["plain"].pid, {1})
    os.sched_setaffinity(procs["translating"].pid, {1})
    try:
        for port in ports.values():
            pb.wait_up(port)
        pod = [pb.call(upstream + "/v2/pods", "POST", pb.V2_POD)["id"] for _ in range(pb.PODS)][0]
        scenarios = [
            ("get", {"plain": f"/v2/pods/{pod}", "translating": f"/v1/pods/{pod}"}),
            ("list", {"plain": "/v2/pods", "translating": "/v1/pods"}),
        ]
        for name, targets in scenarios:
            seen: dict[str, list[tuple[float, float]]] = {k: [] for k in targets}
            for _ in range(args.runs):
                for key, path in targets.items():
                    pid = procs[key].pid
                    before = cpu_seconds(pid)
                    got = pb.wrk(f"http://127.0.0.1:{ports[key]}{path}", args.seconds, args.connections, None, tmp)
                    used = cpu_seconds(pid) - before
                    seen[key].append((got["rps"], used / max(got["requests"], 1) * 1e6))
            plain = max(seen["plain"])
            trans = max(seen["translating"])
            cpu_p = min(c for _, c in seen["plain"])
            cpu_t = min(c for _, c in seen["translating"])
            print(f"{name}: plain {plain[0]:.0f} req/s {cpu_p:.0f} us/req | translating {trans[0]:.0f} req/s "
                  f"{cpu_t:.0f} us/req | ratio {trans[0] / plain[0]:.0%} (cpu ratio {cpu_p / cpu_t:.0%})", flush=True)
    finally:
        for p in procs.values():
            p.terminate()
        for p in procs.values():
            p.join(5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
