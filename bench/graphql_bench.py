"""GraphQL against REST v1 through the same proxy, in the same run (issue 22): the runpod SDK's own documents.

One v1bridge proxy (production defaults: metrics, access log, usage records) in front of the fast upstream
(bench/fast_upstream.py: captured v2 answers served by nginx, 20 pods), pinned as bench/hotpath.py pins (wrk and
the upstream on CPU 0, the proxy alone on CPU 1). Two pairs, measured in interleaved rounds with wrk:

- list: `GET /v1/pods` against the SDK's `get_pods()` document (`myself { pods { ...20 fields, runtime { ports },
  machine } }`), both one `GET /v2/pods` of 20 pods;
- stop: `POST /v1/pods/{id}/stop` against the SDK's `stop_pod()` mutation (`podStop { id desiredStatus }`),
  both one `POST /v2/pods/{id}/action`.

Reported: medians of req/s and of the proxy's CPU time per request, and GraphQL's cost per request as a multiple
of REST's (CPU per request, and 1 / req/s). The issue's bound is 1.5x. The parsed and validated document is
cached per query text, so the figures are those of a client that sends the same document again.

    .venv/bin/python bench/graphql_bench.py --rounds 3 --seconds 3
    .venv/bin/python bench/run_all.py --only graphql
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fast_upstream as fu  # noqa: E402
import hotpath  # noqa: E402
import proxy_bench as pb  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

# the runpod SDK 1.12.0's documents (runpod/api/queries/pods.py QUERY_POD, mutations/pods.py podStop), one line
PODS = ("query myPods { myself { pods { id containerDiskInGb costPerHr desiredStatus dockerArgs dockerId env gpuCount "
        "imageName lastStatusChange machineId memoryInGb name podType port ports uptimeSeconds vcpuCount volumeInGb "
        "volumeMountPath runtime { ports { ip isIpPublic privatePort publicPort type } } "
        "machine { gpuDisplayName } } } }")
STOP = 'mutation { podStop(input: { podId: "%s" }) { id desiredStatus } }'


def run_proxy(port: int, upstream: str, records: str) -> None:
    """The proxy as `v1bridge proxy --upstream URL --usage-dir DIR` runs it (as hotpath.run_translating: access
    log to a file, usage records, metrics), GraphQL endpoint included."""
    from aiohttp import web

    from proxy import app as proxy_app
    from proxy.config import ProxyConfig

    sys.stderr = open(os.path.join(records, "access.log"), "a", buffering=1)  # noqa: SIM115 - the log collector
    app = proxy_app.create_proxy_app(ProxyConfig(upstream=upstream, access_log=True, usage_dir=records,
                                                 fingerprint_salt="bench"))
    web.run_app(proxy_app.serving_for_life(app), host="127.0.0.1", port=port, access_log=None, print=None,
                loop=pb.bench_loop(), backlog=pb.BACKLOG)


def requests_for(pair: str, api: str, pod: str) -> tuple[str, str | None]:
    if api == "rest":
        return hotpath.requests_for(pair, "v1bridge", pod)
    query = PODS if pair == "list" else STOP % pod
    body = json.dumps({"query": query}).replace("\\", "\\\\").replace("'", "\\'")  # a Lua string literal
    return "/graphql", hotpath.post_script("/graphql", body)


def measure(rounds: int, seconds: int, connections: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        captured = fu.capture()
        port_up, port_proxy = pb.free_port(), pb.free_port()
        upstream = fu.FastUpstream(captured, port_up, workdir)
        records = workdir / "records"
        records.mkdir()
        ctx = multiprocessing.get_context("spawn")
        proc = ctx.Process(target=run_proxy, args=(port_proxy, f"http://127.0.0.1:{port_up}", str(records)),
                           daemon=True)
        proc.start()
        try:
            pinned = hotpath.two_cpus()
            if pinned:
                fu.pin(upstream.pid, {hotpath.LOAD_CPU})
                fu.pin(proc.pid, {hotpath.PROXY_CPU})
            pb.wait_up(port_proxy)
            base = f"http://127.0.0.1:{port_proxy}"
            hotpath.first_answers(base + "/v1/pods", 2)
            runs: dict[tuple[str, str], list[dict]] = {}
            for pair in ("list", "stop"):  # warm-up: first translations, the document cache
                for api in ("rest", "graphql"):
                    path, script = requests_for(pair, api, captured.pod_id)
                    got = hotpath.wrk(base + path, 1, connections, 1, script, workdir)
                    if got["non2xx"]:
                        raise RuntimeError(f"{api} {pair}: {got['non2xx']} answers were not 2xx")
            for _ in range(rounds):
                for pair in ("list", "stop"):
                    for api in ("rest", "graphql"):
                        path, script = requests_for(pair, api, captured.pod_id)
                        runs.setdefault((pair, api), []).append(
                            hotpath.measure(base + path, [proc.pid], seconds, connections, script, workdir))
        finally:
            proc.terminate()
            proc.join(5)
            upstream.stop()
    out: dict = {"pinned": pinned, "upstream": upstream.kind, "rounds": rounds, "seconds": seconds,
                 "connections": connections, "pairs": {}}
    for pair in ("list", "stop"):
        rest, gql = (runs[(pair, api)] for api in ("rest", "graphql"))
        row = {}
        for api, got in (("rest", rest), ("graphql", gql)):
            row[api] = {"rps": statistics.median(r["rps"] for r in got),
                        "cpu_us": statistics.median(r["cpu_us"] for r in got),
                        "p50": statistics.median(r["p50"] for r in got),
                        "non2xx": sum(r["non2xx"] for r in got)}
        row["cpu_ratio"] = row["graphql"]["cpu_us"] / row["rest"]["cpu_us"]
        row["time_ratio"] = row["rest"]["rps"] / row["graphql"]["rps"]
        out["pairs"][pair] = row
    out["load"] = os.getloadavg()[0]
    return out


def render(result: dict) -> list[str]:
    lines = [
        f"`bench/graphql_bench.py`: one v1bridge proxy in front of the fast upstream ({result['upstream']}), "
        f"{'pinned (wrk + upstream on CPU 0, the proxy alone on CPU 1)' if result['pinned'] else 'not pinned'}; "
        f"wrk -t1 -c{result['connections']}, {result['rounds']} interleaved rounds x {result['seconds']} s, medians; "
        f"load average at the end {result['load']:.2f}. The runpod SDK's documents against the equivalent REST v1 "
        "route; GraphQL's cost per request as a multiple of REST's (bound: 1.5x).",
        "",
        "| pair | REST v1 req/s | GraphQL req/s | REST CPU/req | GraphQL CPU/req | CPU ratio | time ratio |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    names = {"list": "`myself { pods {...} }` vs GET /v1/pods (20 pods)",
             "stop": "`podStop` vs POST /v1/pods/{id}/stop"}
    for pair, row in result["pairs"].items():
        rest, gql = row["rest"], row["graphql"]
        lines.append(f"| {names[pair]} | {rest['rps']:.0f} | {gql['rps']:.0f} | {rest['cpu_us']:.0f} µs | "
                     f"{gql['cpu_us']:.0f} µs | {row['cpu_ratio']:.2f}x | {row['time_ratio']:.2f}x |")
    return lines


def section(full: bool) -> list[str]:
    """run_all.py's section: 5 rounds x 5 s with --full, 2 x 2 s with --quick."""
    return render(measure(5 if full else 2, 5 if full else 2, 16))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (medians are reported)")
    parser.add_argument("--seconds", type=int, default=3, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=16, help="wrk connections")
    args = parser.parse_args()
    result = measure(args.rounds, args.seconds, args.connections)
    print("\n".join(render(result)))
    print(json.dumps(result["pairs"], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
