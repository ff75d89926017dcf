"""Large answers with bounded memory (issue 12, item 8; proxy/offload.py): with `large_answer` set low, every v2
answer below is spooled to a file, checked from its parse events, translated entry by entry in the answer pool and
sent from a file -- across pages, with filters, include* lookups, joins, catalog additions and grouping. Each v1
answer is compared byte for byte with the in-loop path's (large_answer=0) over the same upstream."""
from __future__ import annotations

import os
import tempfile

import orjson
import pytest
from aiohttp import web

from proxy.app import create_proxy_app
from proxy.app_keys import SERVICE
from proxy.config import ProxyConfig
from sandbox.common import SANDBOX

from tests.proxy.tools import clone, seed_pods
from tests.sandbox.tools import queue_endpoint

PAGE = 7
SPOOL_OVER = 2048  # every page of 7 pods, endpoints or templates is larger than this


@pytest.fixture
def sandbox_config(sandbox_config):
    sandbox_config.max_page_size = PAGE
    return sandbox_config


@pytest.fixture
def spool_dir(tmp_path, monkeypatch):
    """Every temporary file of the proxy and of its spawned workers goes here (checked empty afterwards)."""
    where = tmp_path / "spool"
    where.mkdir()
    monkeypatch.setenv("TMPDIR", str(where))
    monkeypatch.setattr(tempfile, "tempdir", None)
    return where


async def both(aiohttp_client, upstream_url: str, tmp_path, **extra):
    def config(name: str, large: int) -> ProxyConfig:
        return ProxyConfig(upstream=upstream_url, usage_dir=str(tmp_path / name), fingerprint_salt="s",
                           access_log=False, large_answer=large, answer_processes=1, **extra)

    return (await aiohttp_client(create_proxy_app(config("spooled", SPOOL_OVER))),
            await aiohttp_client(create_proxy_app(config("in-loop", 0))))


async def same_answer(spooled, in_loop, path: str, auth) -> bytes:
    a = await spooled.get(path, headers={**auth, "X-Request-ID": "r-1"})
    b = await in_loop.get(path, headers={**auth, "X-Request-ID": "r-1"})
    body_a, body_b = await a.read(), await b.read()
    assert (a.status, path) == (b.status, path), (body_a[:300], body_b[:300])
    assert body_a == body_b, path
    assert a.headers["Content-Type"] == b.headers["Content-Type"]
    assert a.headers["Content-Length"] == b.headers["Content-Length"] == str(len(body_a))
    assert "Content-Disposition" not in a.headers
    return body_a


async def test_spooled_lists_across_pages_with_filters_lookups_and_catalog_are_the_in_loop_bytes(
        aiohttp_client, upstream, recording_sandbox_app, sandbox_keys, auth, tmp_path, spool_dir):
    app = recording_sandbox_app
    seed_pods(app, sandbox_keys[0], 120, gpu_every={9: "NVIDIA L4"})
    spooled, in_loop = await both(aiohttp_client, str(upstream.make_url("")).rstrip("/"), tmp_path)
    first = await (await in_loop.post("/v2/serverless", json=queue_endpoint(), headers=auth)).json()
    clone(app, "endpoint", app[SANDBOX].store.get("endpoint", first["id"]), 40, "ep")
    made = await (await in_loop.post("/v1/templates", json={"name": "seed", "imageName": "i"}, headers=auth)).json()
    clone(app, "template", app[SANDBOX].store.get("template", made["id"]), 30, "tpl")
    pods = await same_answer(spooled, in_loop, "/v1/pods", auth)
    assert len(orjson.loads(pods)) == 120
    filtered = await same_answer(spooled, in_loop, "/v1/pods?gpuTypeId=NVIDIA%20L4&desiredStatus=RUNNING", auth)
    assert len(orjson.loads(filtered)) == 14
    assert await same_answer(spooled, in_loop, "/v1/pods?gpuTypeId=nothing", auth) == b"[]"
    endpoints = await same_answer(spooled, in_loop, "/v1/endpoints", auth)
    assert len(orjson.loads(endpoints)) == 41
    with_workers = orjson.loads(await same_answer(spooled, in_loop, "/v1/endpoints?includeWorkers=true", auth))
    assert all("workers" in e for e in with_workers)
    assert len(orjson.loads(await same_answer(spooled, in_loop, "/v1/templates", auth))) == 31
    templates = orjson.loads(await same_answer(spooled, in_loop, "/v1/templates?includeRunpodTemplates=true", auth))
    assert len(templates) > 31 and sum(1 for t in templates if t["name"] == "seed") == 1
    pod = orjson.loads(pods)[3]["id"]
    assert orjson.loads(await same_answer(spooled, in_loop, f"/v1/pods/{pod}", auth))["id"] == pod
    assert spooled.app[SERVICE].answer.pool.started and in_loop.app[SERVICE].answer.pool is None
    assert sorted(os.listdir(spool_dir)) == []  # every spool and output file removed


def _pods_pages(sizes: list[int]) -> list[bytes]:
    """v2 pod list pages of the given sizes, chained by cursors."""
    pages = []
    n = 0
    for index, size in enumerate(sizes):
        pods = [{"id": f"pod{n + i:05d}", "name": f"p{n + i}", "image": "runpod/pytorch:2.4.0",
                 "desiredStatus": "RUNNING", "gpu": {"id": "NVIDIA A40", "count": 1}, "env": {"N": str(n + i)},
                 "costPerHr": 0.39, "ports": ["8888/http"]} for i in range(size)]
        n += size
        more = index + 1 < len(sizes)
        pages.append(orjson.dumps({"pods": pods, "pagination": {"hasNextPage": more,
                                                                "nextCursor": f"c{index + 1}" if more else None}}))
    return pages


@pytest.fixture
async def paged_upstream(aiohttp_server):
    """/v2/pods in pages: page 1 small (under the spool threshold), page 2 large, page 3 small; page 4 is
    served by ?fault= variants; /v2/billing/pods records joined with the pod list."""
    pages = _pods_pages([2, 400, 3])
    records = [{"startTime": f"2026-11-01T{h % 24:02d}:00:00Z", "totalAmount": round(0.1 + (h % 7) / 10, 2),
                "podId": f"pod{h % 50:05d}", "timeBilledMs": 3_600_000, "diskSpaceBilledGb": 20}
               for h in range(3000)]

    async def pods(request: web.Request) -> web.Response:
        cursor = request.query.get("cursor")
        index = int(cursor[1:]) if cursor else 0
        return web.Response(body=pages[index], content_type="application/json")

    async def billing(request: web.Request) -> web.Response:
        return web.Response(body=orjson.dumps({"records": records}), content_type="application/json")

    app = web.Application()
    app.router.add_get("/v2/pods", pods)
    app.router.add_get("/v2/billing/pods", billing)
    return await aiohttp_server(app)


async def test_small_first_page_then_large_page_hands_over_to_the_files_and_stays_exact(
        aiohttp_client, paged_upstream, tmp_path, spool_dir):
    """Page 1 (2 pods) is paged in the loop; page 2 (400 pods) is spooled: the list so far goes to the output
    file, page 2 and 3 are translated in the pool. 405 pods, the in-loop bytes."""
    spooled, in_loop = await both(aiohttp_client, str(paged_upstream.make_url("")).rstrip("/"), tmp_path)
    auth = {"Authorization": "Bearer k"}
    body = await same_answer(spooled, in_loop, "/v1/pods", auth)
    assert [p["id"] for p in orjson.loads(body)] == [f"pod{n:05d}" for n in range(405)]
    assert spooled.app[SERVICE].answer.pool.started
    assert os.listdir(spool_dir) == []


async def test_spooled_billing_joined_with_pods_and_grouped_is_the_in_loop_bytes(aiohttp_client, paged_upstream,
                                                                                 tmp_path, spool_dir):
    """billing.pods: the pod_gpu join (a whole-list lookup over three pages), default grouping by gpuTypeId,
    grouping by podId, and a gpuTypeId filter after translation."""
    spooled, in_loop = await both(aiohttp_client, str(paged_upstream.make_url("")).rstrip("/"), tmp_path)
    auth = {"Authorization": "Bearer k"}
    grouped = orjson.loads(await same_answer(spooled, in_loop, "/v1/billing/pods", auth))
    assert {r["gpuTypeId"] for r in grouped} == {"NVIDIA A40"}
    by_pod = orjson.loads(await same_answer(spooled, in_loop, "/v1/billing/pods?grouping=podId", auth))
    assert len({r["podId"] for r in by_pod}) == 50
    await same_answer(spooled, in_loop, "/v1/billing/pods?gpuTypeId=NVIDIA%20A40&grouping=podId", auth)
    assert os.listdir(spool_dir) == []
