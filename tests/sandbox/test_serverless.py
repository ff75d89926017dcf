"""Serverless endpoints: create rules, PATCH rules, workers, releases."""
from __future__ import annotations

import pytest

from .tools import queue_endpoint


async def call(client, method, path, headers, body=None, status=200):
    resp = await client.request(method, path, json=body, headers=headers)
    data = await resp.json() if resp.status != 204 else None
    assert resp.status == status, data
    return data


async def test_create_defaults_and_request_urls(sandbox_client, sandbox_headers):
    ep = await call(sandbox_client, "POST", "/v2/serverless", sandbox_headers, queue_endpoint(), 201)
    assert ep["workers"] == {"min": 0, "max": 3, "idleTimeout": 10}
    assert ep["flashboot"] == "OFF" and ep["timeout"] == 0
    assert ep["gpu"] == {"pools": ["ADA_24"], "excludedTypes": [], "count": 1, "allowedCudaVersions": [],
                         "minCudaVersion": None}
    assert ep["requestUrls"]["runSync"] == f"https://api.runpod.ai/v2/{ep['id']}/runsync"
    listed = await call(sandbox_client, "GET", "/v2/serverless", sandbox_headers)
    assert [e["id"] for e in listed["endpoints"]] == [ep["id"]]


async def test_cpu_and_load_balancer_endpoint(sandbox_client, sandbox_headers):
    body = queue_endpoint(type="LOAD_BALANCER", scaling={"type": "REQUEST_COUNT", "requestCount": 10},
                          cpu=[{"id": "cpu3c", "vcpuCount": 4}, {"id": "cpu3c", "vcpuCount": 8}])
    del body["gpu"]
    ep = await call(sandbox_client, "POST", "/v2/serverless", sandbox_headers, body, 201)
    assert ep["gpu"] is None
    assert ep["cpu"] == [{"id": "cpu3c", "vcpuCount": 4, "memory": 8}, {"id": "cpu3c", "vcpuCount": 8, "memory": 16}]
    assert ep["requestUrls"] == {"base": f"https://{ep['id']}.api.runpod.ai", "health": f"https://{ep['id']}.api.runpod.ai/ping"}
    problem = await call(sandbox_client, "PATCH", f"/v2/serverless/{ep['id']}", sandbox_headers,
                         {"gpu": {"count": 2}}, 400)
    assert problem["detail"] == "the compute family of an endpoint cannot change: this is a CPU endpoint"


@pytest.mark.parametrize(
    "changes, status, detail",
    [
        ({"cpu": [{"id": "cpu3c", "vcpuCount": 2}]}, 400, "exactly one of gpu or cpu must be set"),
        ({"gpu": {"pools": ["NOPE_1"]}}, 400, None),
        ({"gpu": {"pools": ["ADA_24"], "excludedTypes": ["NVIDIA A40"]}}, 400,
         "gpu.excludedTypes: 'NVIDIA A40' is not a GPU type in the selected pools"),
        ({"gpu": {"pools": ["ADA_24"], "allowedCudaVersions": ["12.4"], "minCudaVersion": "12.1"}}, 400,
         "gpu.allowedCudaVersions and gpu.minCudaVersion are mutually exclusive; send one or the other"),
        ({"scaling": {"type": "REQUEST_COUNT", "requestCount": 2}, "workers": {"idleTimeout": 5}}, 422,
         "workers.idleTimeout does not apply to a QUEUE endpoint scaling on REQUEST_COUNT"),
        ({"workers": {"min": 4, "max": 2}}, 400, "workers.min (4) must not exceed workers.max (2)"),
        ({"flashboot": True}, 422, None),
        ({"type": "LOAD_BALANCER"}, 422, None),
        ({"templateId": "missing"}, 404, "template 'missing' not found"),
    ],
)
async def test_create_rules(sandbox_client, sandbox_headers, changes, status, detail):
    body = {**queue_endpoint(), **changes}
    if "cpu" in changes and "gpu" not in changes:
        pass  # both set on purpose
    problem = await call(sandbox_client, "POST", "/v2/serverless", sandbox_headers, body, status)
    if detail:
        assert problem["detail"] == detail


async def test_idle_timeout_is_omitted_for_queue_request_count(sandbox_client, sandbox_headers):
    ep = await call(sandbox_client, "POST", "/v2/serverless", sandbox_headers,
                    queue_endpoint(scaling={"type": "REQUEST_COUNT", "requestCount": 2}), 201)
    assert ep["workers"] == {"min": 0, "max": 3}


async def test_pod_template_on_endpoint_is_422(sandbox_client, sandbox_headers):
    tpl = await call(sandbox_client, "POST", "/v2/templates", sandbox_headers, {"name": "pod", "image": "i"}, 201)
    problem = await call(sandbox_client, "POST", "/v2/serverless", sandbox_headers, queue_endpoint(templateId=tpl["id"]), 422)
    assert problem["detail"] == f"template '{tpl['id']}' is a pod template and cannot be used for an endpoint"


async def test_patch_workers_releases_and_pools(sandbox_client, sandbox_headers):
    h = sandbox_headers
    ep = await call(sandbox_client, "POST", "/v2/serverless", h,
                    queue_endpoint(gpu={"pools": ["ADA_24", "AMPERE_48"], "excludedTypes": ["NVIDIA L4"]}), 201)
    url = f"/v2/serverless/{ep['id']}"
    updated = await call(sandbox_client, "PATCH", url, h, {"workers": {"min": 2}, "image": "runpod/worker:2.0"})
    assert updated["workers"] == {"min": 2, "max": 3, "idleTimeout": 10} and updated["image"] == "runpod/worker:2.0"
    workers = await call(sandbox_client, "GET", f"{url}/workers", h)
    assert workers["summary"] == {"running": 0, "idle": 2, "initializing": 0, "throttled": 0, "unhealthy": 0, "total": 2}
    assert workers["endpointVersion"] == 2
    assert {w["gpuTypeId"] for w in workers["workers"]} == {"NVIDIA GeForce RTX 4090"}
    assert all(w["version"] == 2 and w["isStale"] is False for w in workers["workers"])
    releases = await call(sandbox_client, "GET", f"{url}/releases", h)
    assert [r["version"] for r in releases["releases"]] == [2, 1]
    assert releases["releases"][0]["diff"] == [{"field": "template.imageName", "old": "runpod/worker:1.0",
                                                "new": "runpod/worker:2.0"}]
    assert releases["rollout"] == {"inProgress": False, "workersOnLatest": 2, "workersTotal": 2, "percentOnLatest": 100}
    # sending pools without excludedTypes clears the exclusions
    updated = await call(sandbox_client, "PATCH", url, h, {"gpu": {"pools": ["ADA_24"]}})
    assert updated["gpu"]["excludedTypes"] == []
    problem = await call(sandbox_client, "PATCH", url, h, {"gpu": {"excludedTypes": ["NVIDIA L4"]}}, 422)
    assert problem["errors"]
    updated = await call(sandbox_client, "PATCH", url, h, {"gpu": {"minCudaVersion": "12.4"}})
    assert updated["gpu"]["minCudaVersion"] == "12.4"
    updated = await call(sandbox_client, "PATCH", url, h, {"gpu": {"minCudaVersion": ""}})
    assert updated["gpu"]["minCudaVersion"] is None
    wid = workers["workers"][0]["id"]
    resp = await sandbox_client.get(f"{url}/workers/{wid}/logs", headers=h)
    assert resp.status == 200 and resp.content_type == "text/event-stream"
    assert "data: " in await resp.text()
    await call(sandbox_client, "GET", f"{url}/workers/nope/logs", h, None, 404)


async def test_switching_to_request_count_drops_idle_timeout(sandbox_client, sandbox_headers):
    ep = await call(sandbox_client, "POST", "/v2/serverless", sandbox_headers, queue_endpoint(), 201)
    url = f"/v2/serverless/{ep['id']}"
    updated = await call(sandbox_client, "PATCH", url, sandbox_headers, {"scaling": {"type": "REQUEST_COUNT", "requestCount": 3}})
    assert updated["workers"] == {"min": 0, "max": 3}
    await call(sandbox_client, "PATCH", url, sandbox_headers, {"workers": {"idleTimeout": 30}}, 422)
