"""The benchmark harness runs end to end (bench/hotpath.py, bench/fast_upstream.py, bench/naive_translator.py,
bench/answer_bench.py).
Its figures are not asserted (a timed test on a shared machine is noise): that every target answered, that the
fast upstream replays the sandbox's bytes, and that the naive reference renames what v1bridge renames."""
from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import orjson
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import answer_bench  # noqa: E402
import fast_upstream as fu  # noqa: E402
import hotpath  # noqa: E402
import naive_translator  # noqa: E402


@pytest.fixture(scope="module")
def captured() -> fu.Captured:
    return fu.capture()


def test_capture_records_the_three_v2_answers(captured):
    paths = [(a.method, a.path, a.status) for a in captured.answers]
    pod = captured.pod_id
    assert paths == [("GET", "/v2/pods", 200), ("GET", f"/v2/pods/{pod}", 200),
                     ("POST", f"/v2/pods/{pod}/action", 200)]
    listed = orjson.loads(captured.answers[0].body)
    assert len(listed["pods"]) == 20 and pod in [p["id"] for p in listed["pods"]]
    assert listed["pagination"] == {"nextCursor": None, "hasNextPage": False}  # one page: the proxy follows none


async def _fetch(port: int, request: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
    body = await reader.readexactly(length)
    writer.close()
    return head.split(b"\r\n")[0] + b" " + body


@pytest.mark.parametrize("prefer_nginx", [False, True], ids=["python", "nginx"])
def test_fast_upstream_replays_the_captured_bytes(captured, tmp_path, prefer_nginx):
    if prefer_nginx and not shutil.which("nginx"):
        pytest.skip("nginx not installed (scripts/test.sh installs it when run as root)")
    port = hotpath.pb.free_port()
    upstream = fu.FastUpstream(captured, port, tmp_path, prefer_nginx=prefer_nginx)
    try:
        assert upstream.kind == ("nginx" if prefer_nginx else "python")
        pod = captured.pod_id
        got = asyncio.run(_fetch(port, f"POST /v2/pods/{pod}/action HTTP/1.1\r\nHost: x\r\nContent-Length: 17\r\n"
                                       'Content-Type: application/json\r\n\r\n{"action":"stop"}'.encode()))
        assert got == b"HTTP/1.1 200 OK " + captured.answers[2].body
        got = asyncio.run(_fetch(port, b"GET /v2/pods HTTP/1.1\r\nHost: x\r\n\r\n"))
        assert got == b"HTTP/1.1 200 OK " + captured.answers[0].body
    finally:
        upstream.stop()


def test_naive_translator_renames_as_v1bridge_does(captured):
    from mappings import default_mappings
    from proxy.backward import Backward
    from proxy.routes import RouteTable

    v2 = orjson.loads(captured.answers[1].body)
    table = RouteTable(default_mappings())
    ours = Backward(table).translators.response("pod", v2)
    naive = naive_translator.pod(v2)
    # the same values under the same v1 names; v1bridge leaves out what v2 has no value for
    assert {k: ours.get(k) for k in naive} == naive
    assert {k for k, v in naive.items() if v is None} == set(naive) - set(ours)


def test_answer_bench_runs_the_answer_stage_of_every_route(captured):
    from mappings import default_mappings
    from proxy.config import ProxyConfig
    from proxy.routes import RouteTable
    from proxy.v1 import V1Service

    service = V1Service(RouteTable(default_mappings()), ProxyConfig(upstream="http://127.0.0.1:9"), lambda: None)
    for name in answer_bench.ROUTES:
        timed = answer_bench.pieces(service, captured, name)
        answered = timed["answer stage, from the v2 bytes"]()
        # the whole stage, from the captured v2 bytes, gives the v1 answer its pieces make
        assert answered.status == 200, name
        assert answered.body == orjson.dumps(timed["  backward translation"]()), name
        assert timed["  typed reader: decode, translate, dump"]() == answered.body, name  # the typed path answered
        assert answered.headers["x-request-id"] == dict(captured.answers[answer_bench.ROUTES[name][1]].headers)[
            "x-request-id"]
        assert all(answer_bench.best_us(fn, 1, runs=1) >= 0 for fn in timed.values())  # each piece runs
    listed = orjson.loads(answer_bench.pieces(service, captured, "list")["answer stage, from the v2 bytes"]().body)
    assert len(listed) == 20 and {p["id"] for p in listed} == {p["id"] for p in orjson.loads(captured.answers[0].body)["pods"]}


@pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk not installed (scripts/test.sh installs it as root)")
def test_hot_path_harness_runs_every_target(tmp_path):
    bench = hotpath.Bench(tmp_path)
    try:
        results = hotpath.hot_path(bench, rounds=1, seconds=1, connections=4, routes=("get", "stop"))
        over = hotpath.overload(bench, 1, levels=(8,))
        workers = hotpath.workers(bench, 1, 4, runs=((2, True),))
    finally:
        bench.stop()
    for route in ("get", "stop"):
        for target in hotpath.TARGETS:
            r = results[route][target]
            assert r["rps"] > 0 and r["cpu_us"] > 0, (route, target, r)
            assert r["non2xx"] == 0, (route, target, r)  # every target answered every request with a 2xx
    assert [(o["target"], o["limit"], o["connections"]) for o in over] == [
        ("v1bridge", 1024, 8), ("v1bridge", hotpath.SHED_LIMIT, 8), ("plain", None, 8)]
    assert all(o["requests"] > 0 and o["non2xx"] == 0 for o in over)
    assert all(set(o["socket_error_kinds"]) == {"connect", "read", "write", "timeout"} for o in over)
    assert "| plain |  | 8 | " in "\n".join(hotpath.render_overload(over))
    assert workers[0]["workers"] == 2 and workers[0]["non2xx"] == 0 and workers[0]["requests"] > 0
    table = "\n".join(hotpath.render_hot_path(results, bench, 1, 1, 4))
    assert "| GET /v1/pods/{id} | direct (upstream CPU) |" in table
    assert "| POST /v1/pods/{id}/stop | " in table and "GET /v1/pods (20 pods)" not in table


def test_run_all_writes_the_figures_page_with_its_run(tmp_path):
    """docs/bench.md is the one home of figures: a run's page names its command, start, commit and load."""
    import argparse

    import run_all

    args = argparse.Namespace(elapsed=12.0, connections=16, sandbox_seconds=2)
    files = {"files": 1000, "rewrite_jobs1": 100.0, "rewrite_jobs2": 180.0, "audit_jobs1": 900.0, "audit_jobs2": 1700.0}
    report = run_all.render("quick", args, {"lines": []}, [], {"soak_stable": True}, files, "2026-11-25 15:00 UTC")
    page = run_all.docs_page(report, ".venv/bin/python bench/run_all.py --quick", "2026-11-25 15:00 UTC", 0.5, "abc1234")
    assert page.startswith("# Measured figures\n\nWritten by `bench/run_all.py` from its own run")
    assert "| command | `.venv/bin/python bench/run_all.py --quick` |" in page
    assert "| commit | `abc1234` |" in page and "| load average before | 0.50 |" in page
    assert "| rewrite | 100 | 180 | x1.80 |" in page
    assert "## Memory" not in page  # a section that did not run prints nothing, never stale figures
    assert "```sh\n.venv/bin/python bench/run_all.py --quick" in page  # the commands read as commands


def test_the_figures_page_is_one_run_of_run_all():
    """docs/bench.md is only ever written by bench/run_all.py: its header names the run that made every figure."""
    page = (ROOT / "docs" / "bench.md").read_text()
    assert page.startswith("# Measured figures\n\nWritten by `bench/run_all.py` from its own run")
    for row in ("| command | `.venv/bin/python bench/run_all.py --", "| started | ", "| commit | `", "| load average before | "):
        assert row in page
