"""The current v2 through the proxy: paginated lists rebuilt whole (Q30), never a partial 2xx, no cursor ever
crossing from a v1 client; the explicit User-Agent; the 413 of large pod creates; argv type errors in v1 terms.

The sandbox upstream is capped to pages of 7 items, so every list below walks hundreds of pages.
"""
from __future__ import annotations

import orjson
import pytest

from mappings.translate import ResponseContext, translators
from mappings.typed import TypedReader
from proxy.app_keys import SERVICE
from sandbox.common import SANDBOX
from sandbox.pods import view as pod_view
from sandbox.resources import template_view
from sandbox.serverless import view as endpoint_view
from v1bridge import __version__

from tests.sandbox.tools import queue_endpoint
from tests.proxy.tools import clone, cursor_calls, seed_pods

PAGE = 7
LARGEST = "1000"  # v2.json's maximum `limit` of the pod, endpoint and template lists: the page the proxy asks for
T = translators()


@pytest.fixture
def sandbox_config(sandbox_config):
    sandbox_config.max_page_size = PAGE
    return sandbox_config


async def test_2500_pods_come_back_whole_newest_first_across_short_and_empty_pages(proxy, auth, recorder,
                                                                                   recording_sandbox_app, sandbox_keys):
    """358 pages of 7, with a run of cluster members that leaves short and empty pages mid-list."""
    app = recording_sandbox_app
    docs = seed_pods(app, sandbox_keys[0], 2500, cluster=range(1200, 1220))
    recorder.clear()
    r = await proxy.get("/v1/pods", headers=auth)
    assert r.status == 200, await r.text()
    got = await r.json()
    expected = [d for d in reversed(docs) if not d.get("_cluster")]
    assert len(got) == 2480
    assert [p["id"] for p in got] == [d["id"] for d in expected]
    sb = app[SANDBOX]
    now = sb.clock()
    for index in (0, 1234, 2479):  # whole v1 objects, as the mapping promises
        assert got[index] == T.response("pod", pod_view(sb, expected[index], now))
    calls = cursor_calls(recorder, "/v2/pods")
    assert len(calls) == 358 and calls[0] == {"limit": LARGEST}
    # the largest page asked on every page (the sandbox's cap makes it 7), nothing else changes between pages
    assert all(c == {"limit": LARGEST, "cursor": c["cursor"]} for c in calls[1:])
    assert "cursor" not in await r.text() and "nextCursor" not in r.headers.get("Link", "")


async def test_pages_read_typed_make_the_dict_paths_list_byte_for_byte(proxy, auth, recording_sandbox_app,
                                                                       sandbox_keys, monkeypatch):
    """30 pods over 5 pages of 7, each page read once, by the typed reader (mappings/typed.py), except the third,
    which it gives up on here (as on any page it cannot answer exactly: tests/mappings/test_typed.py) and which
    is read as dicts. The answer is the dict path's, byte for byte."""
    docs = seed_pods(recording_sandbox_app, sandbox_keys[0], 30)
    reads: list[bool] = []
    read_page = TypedReader.read_page

    def third_given_up(self, *args):
        page = read_page(self, *args) if len(reads) != 2 else None
        reads.append(page is not None)
        return page

    monkeypatch.setattr(TypedReader, "read_page", third_given_up)
    typed = await proxy.get("/v1/pods", headers=auth)
    assert typed.status == 200, await typed.text()
    assert reads == [True, True, False, True, True]
    monkeypatch.setattr(proxy.app[SERVICE].answer, "typed", {})  # no typed reader: every page read as dicts
    as_dicts = await proxy.get("/v1/pods", headers=auth)
    assert as_dicts.status == 200 and len(reads) == 5
    body = await typed.read()
    assert body == await as_dicts.read()
    got = orjson.loads(body)
    assert [p["id"] for p in got] == [d["id"] for d in reversed(docs)]
    sb = recording_sandbox_app[SANDBOX]
    assert got[16] == T.response("pod", pod_view(sb, docs[13], sb.clock()))  # a pod of the page read as dicts


async def test_filters_apply_across_every_page(proxy, auth, recorder, recording_sandbox_app, sandbox_keys):
    """gpuTypeId matches are spread one per 97 pods over 2,500: all of them, in order, nothing else."""
    docs = seed_pods(recording_sandbox_app, sandbox_keys[0], 2500, gpu_every={97: "NVIDIA L4"})
    r = await proxy.get("/v1/pods?gpuTypeId=NVIDIA%20L4&desiredStatus=RUNNING", headers=auth)
    assert r.status == 200, await r.text()
    got = await r.json()
    expected = [d["id"] for d in reversed(docs) if d["gpu"]["id"] == "NVIDIA L4"]
    assert len(expected) == 26 and [p["id"] for p in got] == expected
    assert {p["gpu"]["id"] for p in got} == {"NVIDIA L4"}
    assert "list-filters" in r.headers["X-V1bridge-Emulation"]


async def test_2500_endpoints_come_back_whole(proxy, auth, recorder, recording_sandbox_app, sandbox_keys):
    first = await (await proxy.post("/v2/serverless", json=queue_endpoint(), headers=auth)).json()
    sb = recording_sandbox_app[SANDBOX]
    docs = clone(recording_sandbox_app, "endpoint", sb.store.get("endpoint", first["id"]), 2499, "ep")
    recorder.clear()
    r = await proxy.get("/v1/endpoints", headers=auth)
    assert r.status == 200, await r.text()
    got = await r.json()
    assert [e["id"] for e in got] == [d["id"] for d in reversed(docs)] + [first["id"]]
    catalog = proxy.app[SERVICE].emulations.lookups._catalog[1]  # the catalog the answer was made with
    assert got[0] == T.response("endpoint", endpoint_view(sb, docs[-1]), ResponseContext(lookups={"catalog": catalog}))
    assert len(cursor_calls(recorder, "/v2/serverless")) == 358


async def test_2500_templates_and_official_ones_come_back_whole(proxy, auth, recorder, recording_sandbox_app,
                                                               sandbox_keys):
    """Owned templates in the service's order over 358 pages, then the official catalog once, deduplicated."""
    made = await (await proxy.post("/v1/templates", json={"name": "seed", "imageName": "i"}, headers=auth)).json()
    sb = recording_sandbox_app[SANDBOX]
    docs = clone(recording_sandbox_app, "template", sb.store.get("template", made["id"]), 2499, "tpl")
    recorder.clear()
    r = await proxy.get("/v1/templates?includeRunpodTemplates=true", headers=auth)
    assert r.status == 200, await r.text()
    got = await r.json()
    owned = [made["id"]] + [d["id"] for d in docs]
    official = ["runpod-torch-v240", "runpod-torch-v280", "runpod-ubuntu", "runpod-worker-vllm"]
    assert [t["id"] for t in got] == owned + official
    assert got[5] == T.response("template", template_view(docs[4]))
    assert [t["isRunpod"] for t in got[-5:]] == [False, True, True, True, True]
    assert len(cursor_calls(recorder, "/v2/templates")) == 358
    assert len(cursor_calls(recorder, "/v2/catalog/templates")) == 1


@pytest.mark.parametrize("status", [500, 429, 422])
async def test_a_failed_page_midway_is_a_502_and_no_partial_list(proxy, auth, recorder, recording_sandbox_app,
                                                                 sandbox_keys, status):
    seed_pods(recording_sandbox_app, sandbox_keys[0], 100)
    pages = {"n": 0}

    def fifth_page(seen) -> bool:
        if seen.path == "/v2/pods" and seen.method == "GET":
            pages["n"] += 1
            return pages["n"] == 5
        return False

    recorder.fail(fifth_page, status, "injected page failure")
    r = await proxy.get("/v1/pods", headers=auth)
    assert r.status == 502
    assert await r.json() == {"message": f"GET /pods: page 5 of the v2 list failed (v2 status {status}): "
                                         "injected page failure; the list is answered whole or not at all, "
                                         "so no partial list is returned"}
    assert pages["n"] == 5  # the walk stopped at the failure


async def test_a_page_the_upstream_never_answers_is_a_502(proxy, auth, recorder, recording_sandbox_app, sandbox_keys,
                                                          proxy_config):
    seed_pods(recording_sandbox_app, sandbox_keys[0], 30)
    pages = {"n": 0}

    def third_page(seen) -> bool:
        if seen.path == "/v2/pods":
            pages["n"] += 1
            return pages["n"] == 3
        return False

    recorder.fail(third_page, 503, "maintenance")
    r = await proxy.get("/v1/pods", headers=auth)
    assert r.status == 502 and (await r.json())["message"].startswith("GET /pods: page 3 of the v2 list failed")


async def test_a_client_cursor_or_limit_is_never_forwarded(proxy, auth, recorder, recording_sandbox_app,
                                                          sandbox_keys):
    """v1 had no cursor: a v1 client's cursor/limit (even a valid v2 one) never reaches v2, the list is whole."""
    docs = seed_pods(recording_sandbox_app, sandbox_keys[0], 20)
    page = await (await proxy.get("/v2/pods?limit=5", headers=auth)).json()
    foreign = page["pagination"]["nextCursor"]
    recorder.clear()
    r = await proxy.get(f"/v1/pods?cursor={foreign}&limit=5", headers=auth)
    assert r.status == 200
    assert [p["id"] for p in await r.json()] == [d["id"] for d in reversed(docs)]
    calls = cursor_calls(recorder, "/v2/pods")
    assert "cursor" not in calls[0] and all(c["limit"] == LARGEST for c in calls)  # the proxy's own, not 5
    assert all(c.get("cursor") != foreign for c in calls)


async def test_v2_callers_page_themselves_through_the_pass_through(proxy, auth, recorder, recording_sandbox_app,
                                                                  sandbox_keys):
    seed_pods(recording_sandbox_app, sandbox_keys[0], 12)
    first = await (await proxy.get("/v2/pods?limit=5", headers=auth)).json()
    assert len(first["pods"]) == 5 and first["pagination"]["hasNextPage"]
    second = await proxy.get(f"/v2/pods?limit=5&cursor={first['pagination']['nextCursor']}", headers=auth)
    assert len((await second.json())["pods"]) == 5
    assert dict(recorder[-1].query) == {"limit": "5", "cursor": first["pagination"]["nextCursor"]}
    foreign = await proxy.get(f"/v2/serverless?cursor={first['pagination']['nextCursor']}", headers=auth)
    assert foreign.status == 422 and (await foreign.json())["errors"] == ["query.cursor: foreign cursor"]


async def test_network_volume_includes_are_read_for_every_page(proxy, auth, recording_sandbox_app, sandbox_keys):
    vol = await (await proxy.post("/v1/networkvolumes", json={"name": "v", "size": 20, "dataCenterId": "EU-SE-1"},
                                  headers=auth)).json()
    docs = seed_pods(recording_sandbox_app, sandbox_keys[0], 20)
    sb = recording_sandbox_app[SANDBOX]
    for doc in docs[:3]:  # the oldest pods, on the last pages
        sb.store.put("pod", {**doc, "mounts": {"network": [{"volumeId": vol["id"], "path": "/workspace"}]}})
    r = await proxy.get("/v1/pods?includeNetworkVolume=true", headers=auth)
    got = await r.json()
    with_volume = [p["id"] for p in got if p.get("networkVolume")]
    assert with_volume == [d["id"] for d in reversed(docs[:3])]
    assert got[-1]["networkVolume"] == {"id": vol["id"], "name": "v", "size": 20, "dataCenterId": "EU-SE-1"}


async def test_single_page_list_makes_one_call(proxy, auth, recorder, recording_sandbox_app, sandbox_keys):
    seed_pods(recording_sandbox_app, sandbox_keys[0], PAGE)
    recorder.clear()
    r = await proxy.get("/v1/pods", headers=auth)
    assert len(await r.json()) == PAGE and cursor_calls(recorder, "/v2/pods") == [{"limit": LARGEST}]


# ------------------------------------------------------------------- the rest


async def test_upstream_calls_carry_the_proxys_user_agent(proxy, auth, recorder):
    await proxy.get("/v1/pods", headers={**auth, "User-Agent": "python-requests/2.32"})
    assert recorder[-1].headers["User-Agent"] == f"v1bridge/{__version__}"
    await proxy.get("/v2/pods", headers={**auth, "User-Agent": "my-v2-client/1.0"})
    assert recorder[-1].headers["User-Agent"] == "my-v2-client/1.0"  # a v2 caller's own passes untouched
    await proxy.get("/v2/pods", headers=auth, skip_auto_headers=("User-Agent",))
    assert recorder[-1].headers["User-Agent"] == f"v1bridge/{__version__}"


async def test_pod_create_too_large_after_template_expansion_is_a_v1_413(proxy, auth, recorder):
    tpl = await (await proxy.post("/v2/templates", json={"name": "fat", "image": "i", "env": {"A": "x" * 90_000}},
                                  headers=auth)).json()
    r = await proxy.post("/v1/pods", json={"templateId": tpl["id"], "gpuTypeIds": ["NVIDIA L4", "NVIDIA A40"],
                                           "env": {"B": "y" * 20_000}, "gpuTypePriority": "custom"}, headers=auth)
    assert r.status == 413
    message = (await r.json())["message"]
    assert "larger than 102400 bytes" in message and "template" in message
    assert [s.path for s in recorder if s.method == "POST"][-1:] == ["/v2/pods"]  # the walk stopped at the 413
    assert sum(1 for s in recorder if s.method == "POST" and s.path == "/v2/pods") == 1


async def test_bad_start_cmd_is_a_v1_400_naming_the_v1_field(proxy, auth, recorder):
    """dockerStartCmd moves to cmd as is; a non-string element is refused before v2 sees it, in v1 terms."""
    r = await proxy.post("/v1/pods", json={"imageName": "u", "gpuTypeIds": ["NVIDIA A40"], "dockerStartCmd": [1, 2]},
                         headers=auth)
    assert r.status == 400
    # v1.json refuses it first (issue 15), naming each element as v1 sees it
    assert await r.json() == {"message": "invalid input: dockerStartCmd.0: 1 is not of type \"string\"; "
                                         "dockerStartCmd.1: 2 is not of type \"string\""}
    assert list(recorder) == []


def test_the_lists_followed_page_by_page_are_read_from_the_schema():
    """Which v2 lists paginate comes from v2.json (the cursor parameter), not from a list in code."""
    from proxy.routes import RouteTable

    table = RouteTable()
    assert table.paginated == {"/v2/pods", "/v2/serverless", "/v2/templates", "/v2/serverless/{id}/releases",
                               "/v2/serverless/{id}/builds"}
    assert {r.op_id for r in table if r.paginated} == {"pods.list", "endpoints.list", "templates.list"}
