"""Emulations on the proxy's worst day: one deadline per v1 request, nothing new after the client left, bounded
walks and retries, bounded fan-out, and 2xx answers that are not answers turned into v1 502s naming the call."""
from __future__ import annotations

import asyncio
import time
from pathlib import Path

import aiohttp
import orjson
import pytest

from proxy.app import create_proxy_app
from tests.stress.conftest import fast_config, is_action

V1_POD = {"name": "w", "imageName": "img", "gpuTypeIds": ["NVIDIA A40"]}
NO_CAPACITY = ("There are no instances currently available with the requested configuration. "
               "Please try again later or choose a different GPU or CPU type.")
RESET, STOP, START = "POST /pods/{podId}/reset", "POST /pods/{podId}/stop", "POST /pods/{podId}/start"


def creates(saboteur) -> list[str]:
    return [s.body["gpu"]["id"] for s in saboteur.seen if (s.method, s.path) == ("POST", "/v2/pods")]


def is_create_with(gpu: str):
    return lambda s, n: (s.method, s.path) == ("POST", "/v2/pods") and (s.body or {}).get("gpu", {}).get("id") == gpu


def usage(tmp_path: Path) -> list[dict]:
    return [orjson.loads(line) for f in (tmp_path / "usage").glob("usage-*.jsonl") for line in f.read_bytes().splitlines()]


@pytest.fixture
async def make_proxy(aiohttp_client, sabotaged_upstream, tmp_path):
    async def make(**extra):
        return await aiohttp_client(create_proxy_app(fast_config(str(sabotaged_upstream.make_url("")), tmp_path,
                                                                 **extra)))
    return make


async def make_pod(proxy, auth) -> str:
    r = await proxy.post("/v1/pods", json=V1_POD, headers=auth)
    assert r.status == 201, await r.text()
    return (await r.json())["id"]


async def leave_early(proxy, method: str, path: str, auth, seconds: float, body=None) -> None:
    """A client that gives up after `seconds` (its connection closed), as a client-side timeout does."""
    with pytest.raises((asyncio.TimeoutError, aiohttp.ServerTimeoutError)):
        await proxy.request(method, path, json=body, headers=auth, timeout=aiohttp.ClientTimeout(total=seconds))


# ------------------------------------------------------------------ the walk walks only on "cannot be had"


async def test_gpu_walk_ends_at_once_on_a_400_about_the_request(proxy, auth, saboteur):
    """A 400 that is not capacity (W01) is the request's own error: answered as is, the next type never tried."""
    saboteur.on(is_create_with("NVIDIA H200"), "problem", 400, "globalNetworking requires an NVIDIA GPU")
    r = await proxy.post("/v1/pods", json={**V1_POD, "gpuTypeIds": ["NVIDIA H200", "NVIDIA A40"],
                                           "gpuTypePriority": "custom"}, headers=auth)
    assert (r.status, await r.json()) == (400, {"message": "globalNetworking requires an NVIDIA GPU"})
    assert creates(saboteur) == ["NVIDIA H200"]


async def test_gpu_walk_stops_at_a_later_choice_on_a_400_about_the_request(proxy, auth, saboteur):
    """H200 has no capacity (the sandbox's real 400, W01); A40's 400 is about the request: the walk ends there."""
    saboteur.on(is_create_with("NVIDIA A40"), "problem", 400, "mounts.persistent is not supported on CPU pods")
    r = await proxy.post("/v1/pods", json={**V1_POD, "gpuTypeIds": ["NVIDIA H200", "NVIDIA A40", "NVIDIA L4"],
                                           "gpuTypePriority": "custom"}, headers=auth)
    # v2's field names reach the v1 client in v1 words (issue 15): mounts.persistent is volumeInGb
    assert (r.status, await r.json()) == (400, {"message": (
        "the fallback stopped at NVIDIA A40 after NVIDIA H200 had no capacity: "
        "volumeInGb is not supported on CPU pods")})
    assert creates(saboteur) == ["NVIDIA H200", "NVIDIA A40"]


async def test_gpu_walk_moves_on_past_a_403_problem_but_not_past_a_cloudflare_403(proxy, auth, saboteur):
    """W02: a v2 problem 403 (no access to that type's pool) tries the next type; a 403 page that is not a
    problem (Cloudflare 1010) says nothing about the type and ends the walk."""
    saboteur.on(is_create_with("NVIDIA H100 80GB HBM3"), "problem", 403, "no access to this GPU pool")
    r = await proxy.post("/v1/pods", json={**V1_POD, "gpuTypeIds": ["NVIDIA H100 80GB HBM3", "NVIDIA A40"],
                                           "gpuTypePriority": "custom"}, headers=auth)
    assert r.status == 201, await r.text()
    assert creates(saboteur) == ["NVIDIA H100 80GB HBM3", "NVIDIA A40"]
    saboteur.clear()
    saboteur.on(is_create_with("NVIDIA H100 80GB HBM3"), "raw", 403, "text/html", b"error code: 1010")
    r = await proxy.post("/v1/pods", json={**V1_POD, "gpuTypeIds": ["NVIDIA H100 80GB HBM3", "NVIDIA A40"],
                                           "gpuTypePriority": "custom"}, headers=auth)
    assert r.status == 403
    assert creates(saboteur) == ["NVIDIA H100 80GB HBM3"]


async def test_gpu_list_longer_than_v1_accepted_is_400_before_anything_is_sent(proxy, auth, saboteur):
    """v1 knew 49 GPU types (its enum in v1.json): a list of 50 is refused before the first create."""
    types = ["NVIDIA A40", "NVIDIA L4"] * 25
    r = await proxy.post("/v1/pods", json={**V1_POD, "gpuTypeIds": types, "gpuTypePriority": "custom"}, headers=auth)
    assert (r.status, await r.json()) == (400, {"message": (
        "gpuTypeIds lists 50 entries; v1 accepted at most 49 (one per type it knows)")})
    assert creates(saboteur) == []


def first_times(predicate, count: int):
    """The first `count` requests `predicate` matches (the later ones go to the next rule or the sandbox)."""
    matched = []

    def first(s, n) -> bool:
        if not predicate(s, n) or len(matched) >= count:
            return False
        matched.append(n)
        return True
    return first


RATE_LIMITED = "Too many pod creates; retry later"
H100_THEN_A40 = {**V1_POD, "gpuTypeIds": ["NVIDIA H100 80GB HBM3", "NVIDIA A40"], "gpuTypePriority": "custom"}


async def test_gpu_walk_waits_out_a_429_and_sends_the_same_type_again(proxy, auth, saboteur):
    """W03 (pod create per status: 429 = wait Retry-After seconds, same candidate): A40 is rate limited once,
    waited for 1 s and created; the walk neither ends on the 429 nor moves past A40."""
    saboteur.on(is_create_with("NVIDIA H100 80GB HBM3"), "problem", 400, NO_CAPACITY)
    saboteur.on(first_times(is_create_with("NVIDIA A40"), 1), "problem", 429, RATE_LIMITED, {"Retry-After": "1"})
    started = time.perf_counter()
    r = await proxy.post("/v1/pods", json=H100_THEN_A40, headers=auth)
    assert r.status == 201, await r.text()
    assert time.perf_counter() - started >= 1.0
    assert creates(saboteur) == ["NVIDIA H100 80GB HBM3", "NVIDIA A40", "NVIDIA A40"]


async def test_gpu_walk_answers_the_429_when_waiting_would_pass_the_deadline(make_proxy, auth, saboteur):
    """Retry-After 30 s against a 2 s deadline: no wait, no second send; the 429 and its Retry-After reach the
    client, saying where the walk stopped."""
    proxy = await make_proxy(request_deadline=2.0)
    saboteur.on(is_create_with("NVIDIA H100 80GB HBM3"), "problem", 400, NO_CAPACITY)
    saboteur.on(is_create_with("NVIDIA A40"), "problem", 429, RATE_LIMITED, {"Retry-After": "30"})
    started = time.perf_counter()
    r = await proxy.post("/v1/pods", json=H100_THEN_A40, headers=auth)
    assert time.perf_counter() - started < 1.0
    assert (r.status, r.headers["Retry-After"], await r.json()) == (429, "30", {"message": (
        f"the fallback stopped at NVIDIA A40 after NVIDIA H100 80GB HBM3 had no capacity: {RATE_LIMITED}")})
    assert creates(saboteur) == ["NVIDIA H100 80GB HBM3", "NVIDIA A40"]


async def test_gpu_walk_waits_for_the_same_type_at_most_three_times(proxy, auth, saboteur):
    """A type that answers 429 (Retry-After 0) forever is sent 1 + max_waits (3) times, then the 429 is the
    answer; a 429 without Retry-After is not waited for at all."""
    saboteur.on(is_create_with("NVIDIA H100 80GB HBM3"), "problem", 429, RATE_LIMITED, {"Retry-After": "0"})
    r = await proxy.post("/v1/pods", json=H100_THEN_A40, headers=auth)
    assert (r.status, r.headers["Retry-After"], await r.json()) == (429, "0", {"message": RATE_LIMITED})
    assert creates(saboteur) == ["NVIDIA H100 80GB HBM3"] * 4
    saboteur.clear()
    saboteur.on(is_create_with("NVIDIA H100 80GB HBM3"), "problem", 429, RATE_LIMITED)
    r = await proxy.post("/v1/pods", json=H100_THEN_A40, headers=auth)
    assert (r.status, await r.json()) == (429, {"message": RATE_LIMITED})
    assert creates(saboteur) == ["NVIDIA H100 80GB HBM3"]


# ------------------------------------------------------------------ one deadline per v1 request


async def test_gpu_walk_sends_no_create_after_the_request_deadline(make_proxy, auth, saboteur, tmp_path):
    """Each create takes 0.2 s and finds no capacity; with a 0.3 s deadline the third type is never sent."""
    proxy = await make_proxy(request_deadline=0.3)
    for gpu in ("NVIDIA H100 80GB HBM3", "NVIDIA A40", "NVIDIA L4"):
        saboteur.on(is_create_with(gpu), "delay", 0.2)
        saboteur.on(is_create_with(gpu), "problem", 400, NO_CAPACITY)
    started = time.perf_counter()
    r = await proxy.post("/v1/pods", json={**V1_POD, "gpuTypeIds": ["NVIDIA H100 80GB HBM3", "NVIDIA A40", "NVIDIA L4"],
                                           "gpuTypePriority": "custom"}, headers=auth)
    assert time.perf_counter() - started < 0.3 + 0.2 + 0.3
    message = ("the request reached its 0.3s deadline; the create with NVIDIA L4 was not sent "
               "(NVIDIA H100 80GB HBM3, NVIDIA A40 had no capacity; nothing was created)")
    assert (r.status, await r.json()) == (504, {"message": message})
    assert creates(saboteur) == ["NVIDIA H100 80GB HBM3", "NVIDIA A40"]
    await proxy.close()
    [record] = usage(tmp_path)
    assert (record["status"], record["outcome"], record["delivered"]) == (504, message, True)


async def test_reset_start_409_is_retried_a_bounded_number_of_times(make_proxy, auth, saboteur):
    """start keeps answering 409: re-sent step_retries (3) times, then the 409 is the answer, with the state."""
    proxy = await make_proxy(step_retries=3, reset_wait_seconds=60.0)
    pod = await make_pod(proxy, auth)
    saboteur.clear()
    saboteur.on(lambda s, n: is_action(s, "start"), "problem", 409, "the pod is still stopping")
    r = await proxy.post(f"/v1/pods/{pod}/reset", headers=auth)
    assert (r.status, await r.json()) == (400, {"message": (
        f"{RESET} failed at step 2/2 ({START}) after {STOP} succeeded: the pod is still stopping; "
        "the resource was left with desiredStatus EXITED (v2 status EXITED)")})
    assert sum(1 for s in saboteur.seen if is_action(s, "start")) == 1 + 3


async def test_reset_start_409_retries_end_at_the_request_deadline(make_proxy, auth, saboteur):
    """With many retries allowed, the 0.5 s deadline ends them: a 504 naming the step not sent."""
    proxy = await make_proxy(step_retries=1000, reset_wait_seconds=60.0, request_deadline=0.5)
    pod = await make_pod(proxy, auth)
    saboteur.clear()
    saboteur.on(lambda s, n: is_action(s, "start"), "problem", 409, "the pod is still stopping")
    started = time.perf_counter()
    r = await proxy.post(f"/v1/pods/{pod}/reset", headers=auth)
    elapsed = time.perf_counter() - started
    assert (r.status, await r.json()) == (504, {"message": (
        f"{RESET} failed at step 2/2 ({START}) after {STOP} succeeded: the request reached its 0.5s deadline; "
        f"step 2/2 ({START}) was not sent ({STOP} succeeded); "
        "its state was not read (the request's deadline had passed)")})
    assert elapsed < 0.5 + 0.5
    assert 2 <= sum(1 for s in saboteur.seen if is_action(s, "start")) <= 8
    assert saboteur.seen[-1].method == "POST"  # nothing after the deadline, not even the state read


# ------------------------------------------------------------------ nothing new after the client left


async def test_gpu_walk_sends_nothing_after_the_client_disconnected(make_proxy, auth, saboteur, tmp_path):
    """The client gives up while the first type is being tried: the next create is never sent; recorded as 499."""
    proxy = await make_proxy()
    saboteur.on(is_create_with("NVIDIA H100 80GB HBM3"), "delay", 0.3)
    saboteur.on(is_create_with("NVIDIA H100 80GB HBM3"), "problem", 400, NO_CAPACITY)
    await leave_early(proxy, "POST", "/v1/pods", auth, 0.1,
                      {**V1_POD, "gpuTypeIds": ["NVIDIA H100 80GB HBM3", "NVIDIA A40"], "gpuTypePriority": "custom"})
    await asyncio.sleep(0.6)
    assert creates(saboteur) == ["NVIDIA H100 80GB HBM3"]
    await proxy.close()
    [record] = usage(tmp_path)
    assert (record["status"], record["delivered"], record["outcome"]) == (499, False, (
        "the client disconnected; the create with NVIDIA A40 was not sent "
        "(NVIDIA H100 80GB HBM3 had no capacity; nothing was created)"))


async def test_reset_never_starts_after_the_client_disconnected(make_proxy, auth, saboteur, tmp_path):
    """The stop already sent is finished (the pod is stopped); the start is never sent."""
    proxy = await make_proxy()
    pod = await make_pod(proxy, auth)
    saboteur.clear()
    saboteur.on(lambda s, n: is_action(s, "stop"), "delay", 0.3)
    await leave_early(proxy, "POST", f"/v1/pods/{pod}/reset", auth, 0.1)
    await asyncio.sleep(0.6)
    assert [s.body["action"] for s in saboteur.seen if s.path.endswith("/action")] == ["stop"]
    r = await proxy.get(f"/v1/pods/{pod}", headers=auth)
    assert (await r.json())["desiredStatus"] == "EXITED"
    await proxy.close()
    record = next(r for r in usage(tmp_path) if r["operation"] == "pods.reset")
    assert (record["status"], record["delivered"], record["outcome"]) == (499, False, (
        f"the client disconnected; step 2/2 ({START}) was not sent ({STOP} succeeded)"))


async def test_create_sent_before_the_client_left_is_finished_and_recorded_but_not_locked(make_proxy, auth, saboteur,
                                                                                         tmp_path):
    """The create was on its way: it completes (the pod exists), the lock-after-create PATCH is not sent, and the
    usage record names the pod that was created for a client that had gone."""
    proxy = await make_proxy()
    saboteur.on(lambda s, n: (s.method, s.path) == ("POST", "/v2/pods"), "delay", 0.3)
    await leave_early(proxy, "POST", "/v1/pods", auth, 0.1, {**V1_POD, "locked": True})
    await asyncio.sleep(0.6)
    assert [s.method for s in saboteur.seen] == ["POST"]
    r = await proxy.get("/v1/pods", headers=auth)
    [pod] = await r.json()
    await proxy.close()
    record = next(r for r in usage(tmp_path) if r["operation"] == "pods.create")
    assert (record["status"], record["delivered"], record["outcome"]) == (499, False, (
        f"the client disconnected; PATCH /pods/{{podId}} (locked) was not sent (created {pod['id']})"))


# ------------------------------------------------------------------ bounded fan-out


@pytest.mark.parametrize(("settings", "most"), [({"lookup_concurrency": 4}, 4),
                                                    ({"upstream_connections": 2}, 2)],
                         ids=["lookup-concurrency", "connection-pool"])
async def test_include_workers_fan_out_is_bounded(make_proxy, auth, saboteur, settings, most):
    """30 endpoints with includeWorkers: 30 worker reads, never more than the bound in flight at once.
    The bound is under test, not the timeouts: the stress suite's 0.3 s connect timeout once cut a connect on a
    loaded CI machine (a 504 that says nothing about the bound), so this test allows a slow machine its time."""
    proxy = await make_proxy(**settings, connect_timeout=5.0, total_timeout=10.0)
    r = await proxy.post("/v1/templates", json={"name": "s", "imageName": "i", "isServerless": True}, headers=auth)
    template = (await r.json())["id"]
    for n in range(30):
        r = await proxy.post("/v1/endpoints", json={"name": f"e{n}", "templateId": template,
                                                    "gpuTypeIds": ["NVIDIA A40"]}, headers=auth)
        assert r.status == 200, await r.text()
    saboteur.clear()
    in_flight = [0, 0]

    class Count:
        def __call__(self, seen, n):
            if seen.path.endswith("/workers"):
                in_flight[0] += 1
                in_flight[1] = max(in_flight[1], in_flight[0])
                asyncio.get_running_loop().call_later(0.05, lambda: in_flight.__setitem__(0, in_flight[0] - 1))
                return True
            return False

    saboteur.on(Count(), "delay", 0.05)
    r = await proxy.get("/v1/endpoints?includeWorkers=true", headers=auth)
    assert r.status == 200
    assert len(await r.json()) == 30
    assert sum(1 for s in saboteur.seen if s.path.endswith("/workers")) == 30
    assert 1 < in_flight[1] <= most


# ------------------------------------------------------------------ 2xx that are not answers


async def test_create_answered_with_an_empty_201_is_a_502_naming_the_call(proxy, auth, saboteur):
    saboteur.on(lambda s, n: (s.method, s.path) == ("POST", "/v2/pods"), "raw", 201, "application/json", b"")
    r = await proxy.post("/v1/pods", json=V1_POD, headers=auth)
    assert (r.status, await r.json()) == (502, {"message": (
        "the v2 upstream answered 201 to POST /v2/pods (pods.create) with an empty body where an object was expected")})


async def test_create_without_an_id_is_a_502_and_never_patches_none(proxy, auth, saboteur):
    """{"name": ...} with no id, and locked asked for: no PATCH /v2/pods/None, no 201 with id "None"."""
    saboteur.on(lambda s, n: (s.method, s.path) == ("POST", "/v2/pods"), "raw", 201, "application/json",
                orjson.dumps({"name": "w", "image": "img", "status": "RUNNING"}))
    r = await proxy.post("/v1/pods", json={**V1_POD, "locked": True}, headers=auth)
    assert (r.status, await r.json()) == (502, {"message": (
        "the v2 upstream answered 201 to POST /v2/pods (pods.create) with a created object without an id (None)")})
    assert [(s.method, s.path) for s in saboteur.seen] == [("POST", "/v2/pods")]


async def test_reset_whose_start_answers_an_empty_200_is_a_502_naming_the_step_and_state(proxy, auth, saboteur):
    pod = await make_pod(proxy, auth)
    saboteur.clear()
    saboteur.on(lambda s, n: is_action(s, "start"), "raw", 200, "application/json", b"")
    r = await proxy.post(f"/v1/pods/{pod}/reset", headers=auth)
    assert (r.status, await r.json()) == (502, {"message": (
        f"{RESET} failed at step 2/2 ({START}) after {STOP} succeeded: the v2 upstream answered 200 to "
        f"POST /v2/pods/{pod}/action (pods.start) with an empty body where an object was expected; "
        "the resource was left with desiredStatus EXITED (v2 status EXITED)")})


@pytest.mark.parametrize(("body", "problem"), [
    (b"[1,2,3]", "a list whose entries are not all objects"),
    (b'{"pods": {"id": "p1"}}', "a JSON dict under 'pods' where a list was expected"),
    (b'{"items": []}', "no list under 'pods' where a list was expected"),
    (b"", "an empty body where a list was expected"),
], ids=["list-of-numbers", "object-for-list", "no-list-key", "empty"])
async def test_list_that_is_not_a_list_is_a_502(proxy, auth, saboteur, body, problem):
    saboteur.on(lambda s, n: (s.method, s.path) == ("GET", "/v2/pods"), "raw", 200, "application/json", body)
    r = await proxy.get("/v1/pods", headers=auth)
    assert (r.status, await r.json()) == (502, {"message": (
        f"the v2 upstream answered 200 to GET /v2/pods (pods.list) with {problem}")})


async def test_catalog_that_is_not_an_object_is_a_502(proxy, auth, saboteur):
    """Endpoints read the GPU catalog to map pools back to types: a list there is the upstream's failure."""
    r = await proxy.post("/v1/templates", json={"name": "s", "imageName": "i", "isServerless": True}, headers=auth)
    r = await proxy.post("/v1/endpoints", json={"templateId": (await r.json())["id"], "gpuTypeIds": ["NVIDIA A40"]},
                         headers=auth)
    endpoint = (await r.json())["id"]
    saboteur.clear()
    saboteur.on(lambda s, n: s.path == "/v2/catalog/gpus", "raw", 200, "application/json", b"[1]")
    service = proxy.server.app[__import__("proxy.app_keys", fromlist=["SERVICE"]).SERVICE]
    service.emulations.lookups._catalog = None
    r = await proxy.get(f"/v1/endpoints/{endpoint}", headers=auth)
    assert (r.status, await r.json()) == (502, {"message": (
        "the GPU catalog from v2 (GET /v2/catalog/gpus) answered 200 with a JSON list where an object was expected")})


# ------------------------------------------------------------------ caller's bad input is never a 500


async def test_env_nested_1000_deep_is_a_400_not_a_500(proxy, auth, saboteur):
    env = b'{"x": ' * 1000 + b"{}" + b"}" * 1000
    body = orjson.dumps(V1_POD)[:-1] + b', "env": ' + env + b"}"
    r = await proxy.post("/v1/pods", data=body, headers={**auth, "Content-Type": "application/json"})
    assert (r.status, await r.json()) == (400, {"message": "the request body is nested deeper than 32 levels"})
    assert saboteur.seen == []


# ------------------------------------------------------------------ the bounds as flags and environment


def _parsed(*argv: str):
    import argparse

    from proxy.cli_proxy import config_from_args, configure

    parser = argparse.ArgumentParser()
    configure(parser)
    return config_from_args(parser.parse_args(["--upstream", "http://u", *argv]))[0]


def test_step_retries_and_lookup_concurrency_from_flags_and_environment():
    """--step-retries / --lookup-concurrency and V1BRIDGE_STEP_RETRIES / V1BRIDGE_LOOKUP_CONCURRENCY; defaults 8, 16;
    a negative retry count is none, a concurrency under 1 is 1."""
    from proxy.config import config_from_env

    default = _parsed()
    assert (default.step_retries, default.lookup_concurrency) == (8, 16)
    given = _parsed("--step-retries", "0", "--lookup-concurrency", "3")
    assert (given.step_retries, given.lookup_concurrency) == (0, 3)
    clamped = _parsed("--step-retries", "-2", "--lookup-concurrency", "0")
    assert (clamped.step_retries, clamped.lookup_concurrency) == (0, 1)
    env = config_from_env({"V1BRIDGE_UPSTREAM": "http://u", "V1BRIDGE_STEP_RETRIES": "5",
                           "V1BRIDGE_LOOKUP_CONCURRENCY": "2"})
    assert (env.step_retries, env.lookup_concurrency) == (5, 2)
    assert (config_from_env({"V1BRIDGE_UPSTREAM": "http://u"}).step_retries,
            config_from_env({"V1BRIDGE_UPSTREAM": "http://u"}).lookup_concurrency) == (8, 16)


async def test_step_retries_flag_bounds_the_start_resends(make_proxy, auth, saboteur):
    """A proxy configured by `--step-retries 2`: start refused with 409 is sent exactly 1 + 2 times."""
    proxy = await make_proxy(step_retries=_parsed("--step-retries", "2").step_retries, reset_wait_seconds=60.0)
    pod = await make_pod(proxy, auth)
    saboteur.clear()
    saboteur.on(lambda s, n: is_action(s, "start"), "problem", 409, "the pod is still stopping")
    r = await proxy.post(f"/v1/pods/{pod}/reset", headers=auth)
    assert r.status == 400
    assert sum(1 for s in saboteur.seen if is_action(s, "start")) == 1 + 2


async def test_lookup_concurrency_flag_bounds_the_worker_reads(make_proxy, auth, saboteur):
    """A proxy configured by `--lookup-concurrency 2`: 30 includeWorkers reads, at most 2 in flight."""
    await test_include_workers_fan_out_is_bounded(
        make_proxy, auth, saboteur, {"lookup_concurrency": _parsed("--lookup-concurrency", "2").lookup_concurrency}, 2)
