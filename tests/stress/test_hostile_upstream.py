"""Issue 23, proxy items 1-4 and 7: an upstream that redirects, answers list pages that are not pages, pages slowly
past the request's deadline, compresses a huge answer into a small one, or fails the read a translation needs.
Each fault is played by the out-of-process FaultyUpstream, one scenario per proxy (`<upstream>/<scenario>`)."""
from __future__ import annotations

import asyncio
import gc
import resource
import time

import aiohttp
import orjson
import pytest

from proxy.app import create_proxy_app
from tests.stress.conftest import fast_config
from proxy import offload
from proxy.app_keys import SERVICE
from tests.stress.faulty_upstream import (ELSEWHERE, GZIP_PODS, HELD_PAGES, HELD_PODS, LIST_PAGES, PAGE_DELAY, PAGE_PODS,
                                         SLOW_PAGES)

AUTH = {"Authorization": "Bearer key-alice"}
ONE_PAGE = "; the list is answered whole or not at all, so no partial list is returned"


@pytest.fixture
def proxy_for(aiohttp_client, faulty_url, tmp_path):
    """A proxy whose upstream plays one scenario (its first path segment)."""
    async def make(scenario: str, **extra):
        return await aiohttp_client(create_proxy_app(fast_config(f"{faulty_url}/{scenario}", tmp_path, **extra)))

    return make


async def hits(faulty_url: str, scenario: str) -> int:
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{faulty_url}/_hits/{scenario}") as r:
            return (await r.json())["hits"]


# ------------------------------------------------------------------ 1. redirects


@pytest.mark.parametrize("status", [301, 302, 307, 308])
async def test_an_upstream_redirect_is_a_502_naming_it_never_the_clients(proxy_for, status):
    proxy = await proxy_for(f"redirect-{status}")
    for method, path, body in (("GET", "/v1/pods/pod-ok", None), ("GET", "/v1/pods", None),
                               ("POST", "/v1/pods/pod-ok/stop", None)):
        r = await proxy.request(method, path, json=body, headers=AUTH, allow_redirects=False)
        assert r.status == 502, (method, path)
        assert "Location" not in r.headers
        message = (await r.json())["message"]
        assert f"with a redirect ({status}) to {ELSEWHERE!r}; the proxy follows no redirect and passes none on" \
            in message, message


async def test_the_v2_pass_through_never_hands_on_a_location_to_another_origin(proxy_for):
    proxy = await proxy_for("redirect-302")
    r = await proxy.get("/v2/pods", headers=AUTH, allow_redirects=False)
    assert (r.status, "Location" in r.headers, await r.json()) == (502, False, {
        "title": "Bad Gateway", "status": 502, "detail": "the v2 upstream answered 302 with a Location on another "
        "origin; it is not passed on (the client would follow it with its credentials)"})


@pytest.mark.parametrize("scenario", ["redirect-relative", "redirect-same"])
async def test_the_v2_pass_through_hands_on_a_redirect_within_the_upstream_relative(proxy_for, scenario):
    """A Location within the upstream stays with the proxy: relative as sent, or made relative."""
    proxy = await proxy_for(scenario)
    r = await proxy.get("/v2/pods", headers=AUTH, allow_redirects=False)
    assert (r.status, r.headers["Location"]) == (302, "/v2/pods?limit=5")


# ------------------------------------------------------------------ 2. pages that are not pages


@pytest.mark.parametrize("scenario, problem", [
    ("bare-array", "a JSON list where a page object was expected"),
    ("no-pagination", "no 'pagination' block"),
    ("null-pagination", "'pagination' None where an object was expected"),
    ("string-pagination", "'pagination' 'next' where an object was expected"),
    ("string-more", "pagination.hasNextPage 'true' where true or false was expected"),
])
async def test_a_list_page_that_is_not_a_v2_page_is_a_502(proxy_for, scenario, problem):
    proxy = await proxy_for(scenario)
    r = await proxy.get("/v1/pods", headers=AUTH)
    assert (r.status, await r.json()) == (502, {
        "message": f"GET /pods: page 1 of the v2 list is not a v2 list page ({problem}){ONE_PAGE}"})


async def test_a_later_page_that_is_not_a_page_is_a_502(proxy_for):
    proxy = await proxy_for("later-page-bare")
    r = await proxy.get("/v1/pods", headers=AUTH)
    assert (r.status, await r.json()) == (502, {
        "message": f"GET /pods: page 2 of the v2 list is not a JSON object{ONE_PAGE}"})


async def test_a_large_page_that_is_not_a_page_is_a_502_too(proxy_for):
    """The same check in the answer pool (offload.py): a page spooled to a file (large_answer 1 byte)."""
    proxy = await proxy_for("no-pagination", large_answer=1)
    r = await proxy.get("/v1/pods", headers=AUTH)
    assert (r.status, await r.json()) == (502, {
        "message": f"GET /pods: page 1 of the v2 list is not a v2 list page (no 'pagination' block){ONE_PAGE}"})


# ------------------------------------------------------------------ 3. the deadline covers every page


async def test_the_deadline_bounds_a_paginated_list_and_no_call_follows(proxy_for, faulty_url):
    """Ten pages of 0.4 s each and a 1 s deadline: a 504 at about 1 s, the third page cut, no fourth asked."""
    before = await hits(faulty_url, "slow-pages")
    proxy = await proxy_for("slow-pages", request_deadline=1.0, total_timeout=30.0)
    started = time.perf_counter()
    r = await proxy.get("/v1/pods", headers=AUTH)
    elapsed = time.perf_counter() - started
    assert r.status == 504
    assert (await r.json())["message"].startswith("GET /pods: page 3 of the v2 list failed: the request reached its "
                                                  "deadline while the v2 upstream answered GET /v2/pods")
    assert 1.0 <= elapsed < 1.0 + PAGE_DELAY
    await asyncio.sleep(PAGE_DELAY * 2)
    assert await hits(faulty_url, "slow-pages") - before == 3 < SLOW_PAGES


# ------------------------------------------------------------------ 4. compressed answers are bounded decoded


async def test_a_gzip_bomb_is_a_502_at_the_decoded_bound_without_ballooning(proxy_for):
    proxy = await proxy_for("gzip-bomb", max_answer=8 * 1024 * 1024, total_timeout=30.0)
    gc.collect()
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    r = await proxy.get("/v1/pods", headers=AUTH)
    assert (r.status, await r.json()) == (502, {"message": (
        "the v2 upstream's answer is larger than 8388608 bytes (decoded; the proxy's --max-answer)")})
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before  # KiB
    assert grown < 32 * 1024, f"peak memory grew {grown} KiB for a 64 MiB bomb"


async def test_a_small_compressed_large_answer_is_spooled_and_translated_whole(proxy_for):
    """~20 MB of pods in a few hundred KB of gzip: decoded into the spool (not memory), translated off the loop."""
    proxy = await proxy_for("gzip-list", total_timeout=30.0)
    r = await proxy.get("/v1/pods", headers=AUTH)
    assert r.status == 200
    pods = orjson.loads(await r.read())
    assert len(pods) == GZIP_PODS and pods[-1]["id"] == f"pod-{GZIP_PODS - 1}"


async def test_a_compressed_answer_past_the_bound_is_a_502(proxy_for):
    proxy = await proxy_for("gzip-list", max_answer=4 * 1024 * 1024, total_timeout=30.0)
    r = await proxy.get("/v1/pods", headers=AUTH)
    assert (r.status, await r.json()) == (502, {"message": (
        "the v2 upstream's answer is larger than 4194304 bytes (decoded; the proxy's --max-answer)")})


# ------------------------------------------------------------------ 5. one memory budget for all lists in flight


async def test_lists_past_the_processs_budget_go_on_from_files_and_stay_exact(proxy_for, monkeypatch):
    """Three lists at once with a budget smaller than one: each goes on from files once the budget is spent
    (its later pages spooled, its entries appended to a file), and answers the same bytes as without a bound."""
    unbounded = await proxy_for("pages", answer_memory=0, total_timeout=30.0)
    expected = await (await unbounded.get("/v1/pods", headers=AUTH)).read()
    assert len(orjson.loads(expected)) == LIST_PAGES * PAGE_PODS

    handed_over = []
    original = offload.continue_pages

    async def spy(service, call, plan, resp, page, *rest):
        handed_over.append(page)
        assert resp.spool is not None  # the page after the budget ran out was spooled, not read into memory
        return await original(service, call, plan, resp, page, *rest)

    monkeypatch.setattr(offload, "continue_pages", spy)
    bounded = await proxy_for("pages", answer_memory=PAGE_PODS * 300, total_timeout=30.0)
    budget = bounded.server.app[SERVICE].answer.budget
    bodies = await asyncio.gather(*(_read(bounded) for _ in range(3)))
    assert bodies == [expected] * 3
    assert len(handed_over) == 3 and set(handed_over) <= {2, 3}
    assert budget.held == 0 and budget.limit == PAGE_PODS * 300


async def test_a_list_built_in_memory_holds_its_budget_until_it_is_sent(proxy_for):
    """A list within the budget is sent as it was built, chunk by chunk (no joined copy): its entries count against
    the budget until the client has them, so a client that reads slowly makes other lists spill, not the proxy
    grow. A HEAD, or a client gone before the end, gives its share back all the same."""
    proxy = await proxy_for("held-pages", total_timeout=30.0)
    budget = proxy.server.app[SERVICE].answer.budget
    r = await proxy.get("/v1/pods", headers=AUTH)  # the status and headers are in; the body is not read yet
    await asyncio.sleep(0.3)
    assert 0 < budget.held <= int(r.headers["Content-Length"])
    pods = orjson.loads(await r.read())
    assert len(pods) == HELD_PAGES * HELD_PODS and pods[-1]["id"] == f"pod-{HELD_PAGES}-{HELD_PODS - 1}"
    assert budget.held == 0

    r = await proxy.head("/v1/pods", headers=AUTH)
    assert r.status == 200 and int(r.headers["Content-Length"]) > 0
    assert budget.held == 0

    r = await proxy.get("/v1/pods", headers=AUTH)
    await r.content.readexactly(1024)
    r.close()  # the client goes away with most of the list unsent
    for _ in range(50):
        if budget.held == 0:
            break
        await asyncio.sleep(0.1)
    assert budget.held == 0


async def _read(client) -> bytes:
    r = await client.get("/v1/pods", headers=AUTH)
    assert r.status == 200
    return await r.read()


# ------------------------------------------------------------------ 7. a lookup that fails is never a 500


@pytest.mark.parametrize("scenario, status, message", [
    ("current-500", 502, "the resource's current state (GET /v2/serverless/ep1) could not be read from v2 "
                         "(status 500)"),
    ("current-list", 502, "the resource's current state (GET /v2/serverless/ep1) answered 200 with a JSON list "
                          "where an object was expected"),
    ("current-html", 502, "the resource's current state (GET /v2/serverless/ep1) answered 200 with a body that "
                          "is not JSON (text/html) where an object was expected"),
    ("current-404", 404, "injected 404"),
    ("current-403", 403, "injected 403"),
])
async def test_the_current_state_read_failing_is_a_502_or_the_upstreams_404_403(proxy_for, scenario, status,
                                                                                  message):
    """PATCH of one scaling field needs the endpoint's current scaling: its read failing is never a 500."""
    proxy = await proxy_for(scenario)
    r = await proxy.patch("/v1/endpoints/ep1", json={"scalerValue": 9}, headers=AUTH)
    assert (r.status, (await r.json())["message"]) == (status, message)


async def test_vcpu_count_on_a_gpu_endpoint_is_the_clients_400_not_a_500(proxy_for):
    proxy = await proxy_for("current-gpu")
    r = await proxy.patch("/v1/endpoints/ep1", json={"vcpuCount": 4}, headers=AUTH)
    assert (r.status, await r.json()) == (400, {"message": (
        "vcpuCount applies to an endpoint's CPU flavors and this endpoint has none (a GPU endpoint); give "
        "cpuFlavorIds with it")})
