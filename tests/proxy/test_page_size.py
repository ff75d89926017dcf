"""The page a whole-list read asks v2 for (Q30): the largest its `limit` allows in v2.json, on every page, so a
long v1 list costs the fewest upstream calls whatever v2's default page size is; the v1 answer unchanged."""
from __future__ import annotations

import math

import pytest

from mappings.index import index
from mappings.loader import default_mappings
from proxy.forward import Forward, PageSizes
from proxy.routes import RouteTable
from sandbox.common import SANDBOX

from tests.proxy.tools import cursor_calls, seed_pods

PODS = 250


def smaller_default_page(app, size: int) -> None:
    """The sandbox as a v2 whose default page (no `limit` asked) is `size`, below the maximum it allows."""
    pager = app[SANDBOX].pager
    page = pager.page
    pager.page = lambda *args, **kwargs: page(*args, **{**kwargs, "default_limit": size})


async def test_250_pods_take_one_call_asking_the_largest_page(proxy, auth, recorder, recording_sandbox_app,
                                                             sandbox_keys):
    docs = seed_pods(recording_sandbox_app, sandbox_keys[0], PODS)
    recorder.clear()
    r = await proxy.get("/v1/pods", headers=auth)
    assert r.status == 200, await r.text()
    assert [p["id"] for p in await r.json()] == [d["id"] for d in reversed(docs)]
    assert cursor_calls(recorder, "/v2/pods") == [{"limit": "1000"}]


async def test_a_v2_with_a_smaller_default_page_is_asked_for_its_largest(proxy, auth, recorder,
                                                                        recording_sandbox_app, sandbox_keys):
    """Against a v2 that pages by 20 unless asked, 250 pods are one call, not ceil(250 / 20) = 13."""
    smaller_default_page(recording_sandbox_app, 20)
    docs = seed_pods(recording_sandbox_app, sandbox_keys[0], PODS)
    recorder.clear()
    r = await proxy.get("/v1/pods", headers=auth)
    assert [p["id"] for p in await r.json()] == [d["id"] for d in reversed(docs)]
    assert cursor_calls(recorder, "/v2/pods") == [{"limit": "1000"}]


@pytest.mark.parametrize("cap", [100, 249, 250])
async def test_a_capped_sandbox_still_takes_ceil_count_over_the_page(proxy, auth, recorder, recording_sandbox_app,
                                                                     sandbox_keys, cap):
    """`--max-page-size` caps pages below the limit asked: ceil(250 / cap) calls, the same limit on each page and
    the cursor of the one before."""
    recording_sandbox_app[SANDBOX].pager.max_page_size = cap
    docs = seed_pods(recording_sandbox_app, sandbox_keys[0], PODS)
    recorder.clear()
    r = await proxy.get("/v1/pods", headers=auth)
    assert [p["id"] for p in await r.json()] == [d["id"] for d in reversed(docs)]
    calls = cursor_calls(recorder, "/v2/pods")
    assert len(calls) == math.ceil(PODS / cap)
    assert calls[0] == {"limit": "1000"} and all(c == {"limit": "1000", "cursor": c["cursor"]} for c in calls[1:])


def test_every_paginated_v1_list_asks_v2_json_maximum_and_no_other_list_asks_anything():
    table = RouteTable()
    forward = Forward(table, {})
    asked = {}
    for route in table.routes.values():
        if route.op.policy != "translate" or route.v2_method != "GET" or route.op.shape != "list":
            continue
        params = {name: "x1" for name in route.op.path_params}
        plan = forward.plan(route, params)
        asked[route.label] = [value for name, value in plan.request.query if name == "limit"]
    paginated = {label: sizes for label, sizes in asked.items() if sizes}
    assert paginated == {"GET /pods": ["1000"], "GET /endpoints": ["1000"], "GET /templates": ["1000"]}
    assert asked["GET /networkvolumes"] == []  # v2 answers network volumes whole: no limit in v2.json
    # the codemod's Q30 rule reads the same maxima
    idx = index()
    assert {r.op.v1.method + " " + r.op.v1.path: idx.page_limit(r) for r in idx.routes if idx.page_limit(r)} == {
        "GET /pods": 1000, "GET /endpoints": 1000, "GET /templates": 1000}


def test_a_query_that_names_a_limit_keeps_it_and_an_unpaginated_list_is_asked_nothing():
    sizes = PageSizes(default_mappings())
    assert sizes.whole_list("/v2/pods", [("includeClusterPods", "true")]) == [("includeClusterPods", "true"),
                                                                               ("limit", "1000")]
    assert sizes.whole_list("/v2/pods", [("limit", "5")]) == [("limit", "5")]
    assert sizes.whole_list("/v2/serverless/{id}/builds", []) == [("limit", "100")]
    assert sizes.whole_list("/v2/network-volumes", []) == []
