"""Upstream faults: every one answered fast, v1-shaped, exactly worded; the proxy keeps serving and leaks nothing."""
from __future__ import annotations

import asyncio
import time

import pytest

from proxy.app import create_proxy_app
from tests.stress.conftest import CONNECT_TIMEOUT, TOTAL_TIMEOUT, fast_config, is_action, open_fds

AUTH = {"Authorization": "Bearer stress-key"}
# (fault, status, message): the proxy's whole answer for GET /v1/pods/<fault>
FAULTS = [
    ("hang", 504, f"the v2 upstream did not answer within {TOTAL_TIMEOUT:g}s"),
    ("slow", 504, f"the v2 upstream did not answer within {TOTAL_TIMEOUT:g}s"),
    ("close", 502, "the v2 upstream is unreachable (it closed the connection without answering)"),
    ("reset", 502, "the v2 upstream broke off its answer mid-body (connection reset)"),
    ("truncated", 502, "the v2 upstream broke off its answer mid-body (connection closed)"),
    ("notjson", 502, "the v2 upstream answered 200 to GET /v2/pods/notjson (pods.get) with a body that is not JSON "
                "(text/html) where an object was expected"),
    ("badjson", 502, "the v2 upstream answered 200 to GET /v2/pods/badjson (pods.get) with a body that is not JSON "
                "(application/json) where an object was expected"),
    ("wrongshape", 502, "the v2 upstream answered 200 to GET /v2/pods/wrongshape (pods.get) with a JSON list where an "
                   "object was expected"),
    # a v2 5xx keeps its status (DESIGN: v1 clients get the v2 status code) with the problem's words
    ("error500", 502, "the v2 upstream failed (500): database unavailable"),
    ("error503", 502, "the v2 upstream failed (503): the v2 upstream answered 503 without a problem detail"),
    ("oddproblem", 422, "the v2 upstream answered 422 without a problem detail: image: bad"),
]
# no answer may take longer than the configured timeout plus this much
SLACK = 0.4


async def assert_still_serves(proxy) -> None:
    r = await proxy.get("/v1/pods/pod-good", headers=AUTH)
    assert r.status == 200
    assert (await r.json())["id"] == "pod-good"


@pytest.fixture
async def faulty_proxy(aiohttp_client, faulty_url, tmp_path):
    return await aiohttp_client(create_proxy_app(fast_config(faulty_url, tmp_path)))


@pytest.mark.parametrize(("fault", "status", "message"), FAULTS, ids=[f[0] for f in FAULTS])
async def test_each_fault_is_a_fast_exact_v1_error(faulty_proxy, fault, status, message):
    """One misbehaviour per path; a good request right after proves the proxy kept serving."""
    started = time.perf_counter()
    r = await faulty_proxy.get(f"/v1/pods/{fault}", headers=AUTH)
    elapsed = time.perf_counter() - started
    assert (r.status, await r.json()) == (status, {"message": message})
    assert r.headers["Content-Type"].startswith("application/json")
    assert r.headers["Deprecation"].startswith("@")  # still a v1 answer, headers and all
    assert elapsed < TOTAL_TIMEOUT + SLACK
    if fault in ("hang", "slow"):
        assert elapsed >= TOTAL_TIMEOUT * 0.9
    await assert_still_serves(faulty_proxy)


async def test_upstream_down_is_a_fast_502(aiohttp_client, closed_port_url, tmp_path):
    """Nothing listening: refused at once, retried twice for a GET, still well under the timeout."""
    proxy = await aiohttp_client(create_proxy_app(fast_config(closed_port_url, tmp_path)))
    for method, path in (("GET", "/v1/pods/abc"), ("POST", "/v1/pods/abc/stop")):
        started = time.perf_counter()
        r = await proxy.request(method, path, headers=AUTH)
        assert (r.status, await r.json()) == (502, {"message": "the v2 upstream is unreachable (Connection refused)"})
        assert time.perf_counter() - started < TOTAL_TIMEOUT + SLACK
    assert (await proxy.get("/healthz")).status == 200
    r = await proxy.get("/readyz")
    assert r.status == 503


async def test_upstream_refusing_connections_is_a_504_after_the_connect_timeout(aiohttp_client, full_backlog_url,
                                                                                 tmp_path):
    """A host that never completes the TCP handshake: bounded by the connect timeout, and the message says so."""
    proxy = await aiohttp_client(create_proxy_app(fast_config(full_backlog_url, tmp_path)))
    for method, path in (("GET", "/v1/pods/abc"), ("POST", "/v1/pods/abc/stop"), ("GET", "/v2/pods/abc")):
        started = time.perf_counter()
        r = await proxy.request(method, path, headers=AUTH)
        elapsed = time.perf_counter() - started
        assert r.status == 504
        body = await r.json()
        expected = f"the v2 upstream did not accept a connection within {CONNECT_TIMEOUT:g}s"
        assert body == ({"message": expected} if path.startswith("/v1") else
                        {"title": "Gateway Timeout", "status": 504, "detail": expected})
        assert CONNECT_TIMEOUT * 0.9 <= elapsed < CONNECT_TIMEOUT + SLACK


async def test_v2_passthrough_faults_are_problem_objects(faulty_proxy):
    """/v2 callers get the same bounded behaviour, as RFC 9457 problems."""
    started = time.perf_counter()
    r = await faulty_proxy.get("/v2/pods/hang", headers=AUTH)
    assert r.status == 504
    assert r.headers["Content-Type"] == "application/problem+json"
    assert await r.json() == {"title": "Gateway Timeout", "status": 504,
                              "detail": f"the v2 upstream did not answer within {TOTAL_TIMEOUT:g}s"}
    assert time.perf_counter() - started < TOTAL_TIMEOUT + SLACK
    r = await faulty_proxy.get("/v2/pods/pod-good", headers=AUTH)
    assert r.status == 200


async def test_hundreds_of_faults_leak_no_fd_or_task(faulty_proxy):
    """320 faulty requests, 40 at a time, after a warm-up round: fds and tasks come back to where they were.

    The warm-up fills both keep-alive pools (test client -> proxy, proxy -> upstream) to their working
    size, so what remains is growth. Slack: 4 fds, 2 tasks (a connection closing as the count is taken).
    """
    faults = [f for f, _, _ in FAULTS] + ["pod-good"]

    async def round_(n: int) -> None:
        async def one(i: int) -> None:
            r = await faulty_proxy.get(f"/v1/pods/{faults[i % len(faults)]}", headers=AUTH)
            await r.read()
            assert r.status in (200, 422, 500, 502, 503, 504)

        await asyncio.gather(*(one(i) for i in range(n)))

    await round_(40)
    await asyncio.sleep(0.1)
    fds, tasks = open_fds(), len(asyncio.all_tasks())
    for _ in range(8):
        await round_(40)
    await asyncio.sleep(0.1)
    assert open_fds() - fds <= 4
    assert len(asyncio.all_tasks()) - tasks <= 2
    await assert_still_serves(faulty_proxy)


# ------------------------------------------------------- multi-step emulations

V1_POD = {"name": "w", "imageName": "img", "gpuTypeIds": ["NVIDIA A40"]}
RESET = "POST /pods/{podId}/reset"
STOP = "POST /pods/{podId}/stop"
START = "POST /pods/{podId}/start"


async def make_pod(proxy, auth) -> str:
    r = await proxy.post("/v1/pods", json=V1_POD, headers=auth)
    assert r.status == 201, await r.text()
    return (await r.json())["id"]


async def test_reset_stop_timing_out_names_step_1_and_the_state(proxy, auth, saboteur):
    pod = await make_pod(proxy, auth)
    saboteur.clear()
    saboteur.on(lambda s, n: is_action(s, "stop"), "hang")
    started = time.perf_counter()
    r = await proxy.post(f"/v1/pods/{pod}/reset", headers=auth)
    assert time.perf_counter() - started < TOTAL_TIMEOUT + SLACK
    assert (r.status, await r.json()) == (504, {"message": (
        f"{RESET} failed at step 1/2 ({STOP}) after nothing succeeded: the v2 upstream did not answer within "
        f"{TOTAL_TIMEOUT:g}s; the resource was left with desiredStatus RUNNING (v2 status RUNNING)")})
    assert [c[:2] for c in saboteur.calls()] == [("POST", f"/v2/pods/{pod}/action"), ("GET", f"/v2/pods/{pod}")]


async def test_reset_start_connection_dropped_names_step_2_and_the_state(proxy, auth, saboteur):
    pod = await make_pod(proxy, auth)
    saboteur.clear()
    saboteur.on(lambda s, n: is_action(s, "start"), "drop")
    r = await proxy.post(f"/v1/pods/{pod}/reset", headers=auth)
    assert (r.status, await r.json()) == (502, {"message": (
        f"{RESET} failed at step 2/2 ({START}) after {STOP} succeeded: the v2 upstream is unreachable "
        "(it closed the connection without answering); the resource was left with desiredStatus EXITED (v2 status EXITED)")})
    # the pod really is stopped, as the answer said
    r = await proxy.get(f"/v1/pods/{pod}", headers=auth)
    assert (await r.json())["desiredStatus"] == "EXITED"


async def test_reset_with_unreadable_state_says_so(proxy, auth, saboteur):
    """Start fails and the state read hangs too: two timeouts at most, and no invented state."""
    pod = await make_pod(proxy, auth)
    saboteur.clear()
    saboteur.on(lambda s, n: is_action(s, "start"), "problem", 500, "host failure")
    saboteur.on(lambda s, n: s.method == "GET", "hang")
    started = time.perf_counter()
    r = await proxy.post(f"/v1/pods/{pod}/reset", headers=auth)
    assert time.perf_counter() - started < 2 * TOTAL_TIMEOUT + SLACK
    assert (r.status, await r.json()) == (502, {"message": (
        f"{RESET} failed at step 2/2 ({START}) after {STOP} succeeded: the v2 upstream failed (500): host failure; "
        "its state could not be read")})


async def test_gpu_walk_failing_on_a_later_choice_names_it_and_creates_nothing(proxy, auth, saboteur):
    """H200 has no capacity (the sandbox's real 400), A40 then fails with a 500: the walk stops there."""
    saboteur.on(lambda s, n: s.method == "POST" and s.path == "/v2/pods" and (s.body or {}).get("gpu", {}).get("id")
                == "NVIDIA A40", "problem", 500, "host failure")
    r = await proxy.post("/v1/pods", json={**V1_POD, "gpuTypeIds": ["NVIDIA H200", "NVIDIA A40", "NVIDIA L4"],
                                                  "gpuTypePriority": "custom"},
                         headers=auth)
    assert (r.status, await r.json()) == (502, {"message": (
        "the fallback stopped at NVIDIA A40 after NVIDIA H200 had no capacity: the v2 upstream failed (500): host failure")})
    creates = [c[2]["gpu"]["id"] for c in saboteur.calls() if c[:2] == ("POST", "/v2/pods")]
    assert creates == ["NVIDIA H200", "NVIDIA A40"]  # L4 never tried after a non-capacity failure
    saboteur.clear()
    r = await proxy.get("/v1/pods", headers=auth)
    assert await r.json() == []


async def test_gpu_walk_timing_out_says_the_outcome_is_unknown(proxy, auth, saboteur):
    saboteur.on(lambda s, n: s.method == "POST" and (s.body or {}).get("gpu", {}).get("id") == "NVIDIA A40", "hang")
    started = time.perf_counter()
    r = await proxy.post("/v1/pods", json={**V1_POD, "gpuTypeIds": ["NVIDIA H200", "NVIDIA A40"],
                                                      "gpuTypePriority": "custom"}, headers=auth)
    assert time.perf_counter() - started < TOTAL_TIMEOUT + SLACK
    assert (r.status, await r.json()) == (504, {"message": (
        f"the fallback stopped at NVIDIA A40 after NVIDIA H200 had no capacity: the v2 upstream did not answer "
        f"within {TOTAL_TIMEOUT:g}s; whether NVIDIA A40 was placed is unknown")})


async def test_nth_call_dropped_during_a_burst_is_retried_for_gets_only(proxy, auth, saboteur):
    """The 7th upstream call of a burst of 12 GETs is dropped: the GET retry hides it. A dropped POST is a 502."""
    pod = await make_pod(proxy, auth)
    saboteur.clear()
    saboteur.on(lambda s, n: n == 7, "drop")
    results = await asyncio.gather(*(proxy.get(f"/v1/pods/{pod}", headers=auth) for _ in range(12)))
    assert [r.status for r in results] == [200] * 12
    assert len(saboteur.seen) == 13
    saboteur.clear()
    saboteur.on(lambda s, n: n == 1, "drop")
    r = await proxy.post(f"/v1/pods/{pod}/stop", headers=auth)
    assert (r.status, await r.json()) == (502, {"message": "the v2 upstream is unreachable (it closed the connection without answering)"})
    assert len(saboteur.seen) == 1  # never re-sent: a stop is not known to be safe to repeat
    r = await proxy.post(f"/v1/pods/{pod}/stop", headers=auth)
    assert r.status == 200
