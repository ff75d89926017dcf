"""What the current v2 added, as the sandbox serves it: cursor pagination, account secrets, builds, the
args/cmd/entrypoint encoding, GPU placement floors and totals, and the 102,400-byte pod create limit."""
from __future__ import annotations

import pytest

from sandbox import SandboxConfig, create_sandbox_app
from sandbox.common import SANDBOX, VIOLATIONS
from sandbox.pods import build_pod
from sandbox.problems import NO_CAPACITY

from .tools import GPU, auth, gpu_pod, queue_endpoint

EXHAUSTED = {"nextCursor": None, "hasNextPage": False}


async def call(client, method, path, headers, body=None, status=200, **kw):
    resp = await client.request(method, path, json=body, headers=headers, **kw)
    data = await resp.json() if resp.status != 204 else None
    assert resp.status == status, data
    return data


def seed_pods(app, key: str, count: int, *, cluster_every: int = 0) -> list[str]:
    """`count` pods straight into the store (oldest first); every `cluster_every`-th is a cluster member."""
    sb = app[SANDBOX]
    owner = sb.owners[key]
    ids = []
    for n in range(count):
        member = {"id": "clu1", "rank": n, "ip": "10.65.0.2"} if cluster_every and n % cluster_every == 0 else None
        doc = build_pod(sb, gpu_pod(name=f"p{n:04d}"), owner, cluster=member)
        sb.store.put("pod", doc)
        ids.append(doc["id"])
    return ids


async def walk(client, path, headers, **params) -> tuple[list[list[dict]], list[dict]]:
    """Every page of a v2 list, following nextCursor: (items per page, pagination blocks)."""
    pages, blocks, query = [], [], dict(params)
    key = None
    while True:
        data = await call(client, "GET", path, headers, params=query)
        key = key or next(k for k in data if isinstance(data[k], list))
        pages.append(data[key])
        blocks.append(data["pagination"])
        if not data["pagination"]["hasNextPage"]:
            return pages, blocks
        query = {**params, "cursor": data["pagination"]["nextCursor"]}


# ---------------------------------------------------------------- pagination


async def test_pods_page_newest_first_with_limit_and_end_marker(sandbox_app, sandbox_client, sandbox_headers,
                                                                sandbox_keys):
    ids = seed_pods(sandbox_app, sandbox_keys[0], 12)
    pages, blocks = await walk(sandbox_client, "/v2/pods", sandbox_headers, limit=5)
    assert [len(p) for p in pages] == [5, 5, 2]
    assert [p["id"] for page in pages for p in page] == ids[::-1]
    assert blocks[-1] == EXHAUSTED and all(b["hasNextPage"] and b["nextCursor"] for b in blocks[:-1])
    assert (await call(sandbox_client, "GET", "/v2/pods", sandbox_headers))["pagination"] == EXHAUSTED


async def test_cluster_members_leave_short_and_empty_pages_while_more_follow(sandbox_app, sandbox_client,
                                                                             sandbox_headers, sandbox_keys):
    """Members are removed after the page is cut: a short page, even an empty one, is not the end."""
    seed_pods(sandbox_app, sandbox_keys[0], 10, cluster_every=1)
    ids = seed_pods(sandbox_app, sandbox_keys[0], 4)
    pages, blocks = await walk(sandbox_client, "/v2/pods", sandbox_headers, limit=3)
    assert [len(p) for p in pages] == [3, 1, 0, 0, 0]
    assert [b["hasNextPage"] for b in blocks] == [True, True, True, True, False]
    assert [p["id"] for page in pages for p in page] == ids[::-1]
    with_members, _ = await walk(sandbox_client, "/v2/pods", sandbox_headers, limit=3, includeClusterPods="true")
    assert sum(len(p) for p in with_members) == 14


@pytest.mark.parametrize("limit", ["0", "1001", "-1", "ten"])
async def test_limit_out_of_bounds_is_422(sandbox_client, sandbox_headers, limit):
    problem = await call(sandbox_client, "GET", "/v2/pods", sandbox_headers, status=422, params={"limit": limit})
    assert problem["errors"][0].startswith("query.limit: ")


async def test_malformed_and_empty_cursors_are_422(sandbox_client, sandbox_headers):
    for cursor in ("not-a-cursor", "eyJzIjoiYSIsInAiOjF9", "A" * 60):
        problem = await call(sandbox_client, "GET", "/v2/templates", sandbox_headers, status=422,
                             params={"cursor": cursor})
        assert problem["errors"] == ["query.cursor: not a cursor issued by this service"]
    problem = await call(sandbox_client, "GET", "/v2/templates", sandbox_headers, status=422, params={"cursor": ""})
    assert problem["errors"][0].startswith("query.cursor: ")


async def test_foreign_cursors_are_422(sandbox_app, sandbox_client, sandbox_headers, sandbox_keys):
    """A cursor is bound to its operation and every query parameter, limit and path id included."""
    seed_pods(sandbox_app, sandbox_keys[0], 4)
    first = await call(sandbox_client, "GET", "/v2/pods", sandbox_headers, params={"limit": 2})
    cursor = first["pagination"]["nextCursor"]
    for path, params in [
        ("/v2/serverless", {"limit": 2}),  # another list
        ("/v2/pods", {"limit": 3}),  # another limit
        ("/v2/pods", {"limit": 2, "includeClusterPods": "true"}),  # another filter
    ]:
        problem = await call(sandbox_client, "GET", path, sandbox_headers, status=422, params={**params, "cursor": cursor})
        assert problem["errors"] == ["query.cursor: foreign cursor"]
    ok = await call(sandbox_client, "GET", "/v2/pods", sandbox_headers, params={"limit": 2, "cursor": cursor})
    assert len(ok["pods"]) == 2 and ok["pagination"] == EXHAUSTED
    # releases of one endpoint are not the releases of another
    h = sandbox_headers
    a = await call(sandbox_client, "POST", "/v2/serverless", h, queue_endpoint(name="a"), 201)
    b = await call(sandbox_client, "POST", "/v2/serverless", h, queue_endpoint(name="b"), 201)
    await call(sandbox_client, "PATCH", f"/v2/serverless/{a['id']}", h, {"image": "runpod/worker:2.0"})
    releases = await call(sandbox_client, "GET", f"/v2/serverless/{a['id']}/releases", h, params={"limit": 1})
    assert releases["pagination"]["hasNextPage"] and releases["endpointVersion"] == 2
    problem = await call(sandbox_client, "GET", f"/v2/serverless/{b['id']}/releases", h, status=422,
                         params={"limit": 1, "cursor": releases["pagination"]["nextCursor"]})
    assert problem["errors"] == ["query.cursor: foreign cursor"]
    rest = await call(sandbox_client, "GET", f"/v2/serverless/{a['id']}/releases", h,
                      params={"limit": 1, "cursor": releases["pagination"]["nextCursor"]})
    assert [r["version"] for r in rest["releases"]] == [1] and rest["rollout"] == releases["rollout"]


async def test_max_page_size_caps_every_list_below_the_limit(sandbox_keys):
    from aiohttp.test_utils import TestClient, TestServer

    app = create_sandbox_app(SandboxConfig(keys=sandbox_keys, validate_responses=True, max_page_size=3))
    seed_pods(app, sandbox_keys[0], 7)
    async with TestClient(TestServer(app)) as client:
        h = auth(sandbox_keys[0])
        pages, _ = await walk(client, "/v2/pods", h, limit=1000)
        assert [len(p) for p in pages] == [3, 3, 1]
        for n in range(5):
            await call(client, "POST", "/v2/templates", h, {"name": f"t{n}", "image": "i"}, 201)
        pages, _ = await walk(client, "/v2/templates", h)
        assert [[t["name"] for t in p] for p in pages] == [["t0", "t1", "t2"], ["t3", "t4"]]
    assert app[VIOLATIONS] == []


async def test_catalog_templates_carry_the_exhausted_marker(sandbox_client, sandbox_headers):
    data = await call(sandbox_client, "GET", "/v2/catalog/templates", sandbox_headers, params={"source": "community"})
    assert data["pagination"] == EXHAUSTED and len(data["templates"]) == 2


# -------------------------------------------------------------------- builds


async def test_builds_page_by_100_and_are_reachable_by_id(sandbox_app, sandbox_client, sandbox_headers, sandbox_keys):
    ep = await call(sandbox_client, "POST", "/v2/serverless", sandbox_headers, queue_endpoint(), 201)
    sb = sandbox_app[SANDBOX]
    for n in range(130):
        sb.store.put("build", {"id": f"b{n:03d}", "_owner": sb.owners[sandbox_keys[0]], "_endpoint": ep["id"],
                               "status": "COMPLETED", "commitHash": f"{n:040x}", "commitMessage": "m", "branch": "main",
                               "commitDate": None, "imageName": "ghcr.io/acme/worker", "startedAt": None,
                               "completedAt": None, "error": None})
    first = await call(sandbox_client, "GET", f"/v2/serverless/{ep['id']}/builds", sandbox_headers)
    assert len(first["builds"]) == 100 and first["builds"][0]["id"] == "b129" and first["pagination"]["hasNextPage"]
    rest = await call(sandbox_client, "GET", f"/v2/serverless/{ep['id']}/builds", sandbox_headers,
                      params={"cursor": first["pagination"]["nextCursor"]})
    assert [b["id"] for b in rest["builds"]][-1] == "b000" and rest["pagination"] == EXHAUSTED
    await call(sandbox_client, "GET", f"/v2/serverless/{ep['id']}/builds", sandbox_headers, status=422,
               params={"limit": 101})
    build = await call(sandbox_client, "GET", f"/v2/serverless/{ep['id']}/builds/b007", sandbox_headers)
    assert build["commitHash"] == f"{7:040x}" and "_endpoint" not in build
    await call(sandbox_client, "GET", f"/v2/serverless/{ep['id']}/builds/nope", sandbox_headers, status=404)


# ------------------------------------------------------------------- secrets


async def test_secrets_lifecycle_and_rules(sandbox_client, sandbox_headers, sandbox_keys):
    h = sandbox_headers
    created = await call(sandbox_client, "POST", "/v2/account/secrets", h,
                         {"name": "HF_TOKEN", "value": "hf_abc", "description": "hub"}, 201)
    assert set(created) == {"id", "name", "description", "createdAt", "valueLastUpdatedAt"}
    assert created["name"] == "HF_TOKEN" and created["description"] == "hub"
    await call(sandbox_client, "POST", "/v2/account/secrets", h, {"name": "HF_TOKEN", "value": "x"}, 409)
    for name in ("RUNPOD_KEY", "runpod.x"):
        problem = await call(sandbox_client, "POST", "/v2/account/secrets", h, {"name": name, "value": "x"}, 422)
        assert "reserved" in problem["detail"]
    await call(sandbox_client, "POST", "/v2/account/secrets", h, {"name": "9lives", "value": "x"}, 422)
    listed = await call(sandbox_client, "GET", "/v2/account/secrets", h, params={"name": "hf_token"})
    assert [s["id"] for s in listed["secrets"]] == [created["id"]] and "value" not in listed["secrets"][0]
    assert (await call(sandbox_client, "GET", "/v2/account/secrets", h, params={"name": "HF"}))["secrets"] == []
    await call(sandbox_client, "PATCH", f"/v2/account/secrets/{created['id']}", h, {}, 422)
    # not atomic: the value is written, then the description is refused
    problem = await call(sandbox_client, "PATCH", f"/v2/account/secrets/{created['id']}", h,
                         {"value": "hf_new", "description": "é" * 40000}, 422)
    assert "65,535 bytes" in problem["detail"]
    after = await call(sandbox_client, "GET", f"/v2/account/secrets/{created['id']}", h)
    assert after["description"] == "hub" and after["valueLastUpdatedAt"] >= created["valueLastUpdatedAt"]
    cleared = await call(sandbox_client, "PATCH", f"/v2/account/secrets/{created['id']}", h, {"description": ""})
    assert cleared["description"] is None
    await call(sandbox_client, "GET", f"/v2/account/secrets/{created['id']}", auth(sandbox_keys[1]), status=403)
    await call(sandbox_client, "DELETE", f"/v2/account/secrets/{created['id']}", h, status=204)
    await call(sandbox_client, "GET", f"/v2/account/secrets/{created['id']}", h, status=404)


# ------------------------------------------------------- command and GPU fields


async def test_command_fields_encode_into_args_and_read_back(sandbox_client, sandbox_headers):
    h = sandbox_headers
    pod = await call(sandbox_client, "POST", "/v2/pods", h,
                     gpu_pod(entrypoint=["/bin/sh", "-c"], cmd=["echo 'a b' && sleep 1"]), 201)
    assert (pod["entrypoint"], pod["cmd"]) == (["/bin/sh", "-c"], ["echo 'a b' && sleep 1"])
    assert pod["args"] == '{"entrypoint":["/bin/sh","-c"],"cmd":["echo \'a b\' && sleep 1"]}'
    # echoing the three fields as read is accepted; a disagreeing args is not
    same = await call(sandbox_client, "PATCH", f"/v2/pods/{pod['id']}", h,
                      {k: pod[k] for k in ("args", "cmd", "entrypoint")})
    assert same["args"] == pod["args"]
    await call(sandbox_client, "PATCH", f"/v2/pods/{pod['id']}", h, {"args": "sleep 5", "cmd": ["sleep", "6"]}, 400)
    cleared = await call(sandbox_client, "PATCH", f"/v2/pods/{pod['id']}", h, {"entrypoint": []})
    assert (cleared["entrypoint"], cleared["cmd"], cleared["args"]) == ([], ["echo 'a b' && sleep 1"],
                                                                        "'echo '\"'\"'a b'\"'\"' && sleep 1'")
    plain = await call(sandbox_client, "POST", "/v2/pods", h, gpu_pod(args="python -m http.server 8888"), 201)
    assert (plain["entrypoint"], plain["cmd"]) == ([], ["python", "-m", "http.server", "8888"])


async def test_gpu_floors_narrow_placement_and_totals_are_reported(sandbox_client, sandbox_headers):
    h = sandbox_headers
    pod = await call(sandbox_client, "POST", "/v2/pods", h,
                     gpu_pod(gpu={"id": GPU, "count": 2, "minRamPerGpu": 64, "minVcpuCountPerGpu": 16}), 201)
    assert pod["gpu"] == {"id": GPU, "count": 2, "vcpuCount": 32, "memory": 128}
    problem = await call(sandbox_client, "POST", "/v2/pods", h, gpu_pod(gpu={"id": GPU, "minRamPerGpu": 65}), 400)
    assert problem["detail"] == NO_CAPACITY
    # the answer's gpu block echoed into a create is refused: the create schema is closed
    await call(sandbox_client, "POST", "/v2/pods", h, gpu_pod(gpu=pod["gpu"]), 422)


async def test_pod_create_over_102400_bytes_is_413_before_auth_and_after_template_expansion(sandbox_client,
                                                                                          sandbox_headers):
    big = gpu_pod(env={"BLOB": "x" * 102_400})
    resp = await sandbox_client.post("/v2/pods", json=big)  # no key: the size check comes first
    assert resp.status == 413 and (await resp.json())["status"] == 413
    tpl = await call(sandbox_client, "POST", "/v2/templates", sandbox_headers,
                     {"name": "fat", "image": "i", "env": {"BLOB": "y" * 60_000}}, 201)
    small = gpu_pod(templateId=tpl["id"], env={"MORE": "z" * 50_000})
    problem = await call(sandbox_client, "POST", "/v2/pods", sandbox_headers, small, 413)
    assert "template" in problem["detail"]


async def test_cluster_from_a_template_keeps_the_link_and_refuses_inline_container_fields(sandbox_client,
                                                                                        sandbox_headers):
    h = sandbox_headers
    tpl = await call(sandbox_client, "POST", "/v2/templates", h,
                     {"name": "trainer", "image": "ghcr.io/acme/train:3", "cmd": ["python", "train.py"]}, 201)
    body = {"name": "c", "type": "SLURM", "compute": {"gpuTypeId": GPU, "gpuCountPerPod": 1, "podCount": 2},
            "templateId": tpl["id"]}
    cluster = await call(sandbox_client, "POST", "/v2/clusters", h, body, 201)
    assert cluster["template"] == tpl["id"] and cluster["pods"]["total"] == 2
    members = await call(sandbox_client, "GET", f"/v2/clusters/{cluster['id']}/pods", h)
    assert {(p["image"], tuple(p["cmd"])) for p in members["pods"]} == {("ghcr.io/acme/train:3", ("python", "train.py"))}
    problem = await call(sandbox_client, "POST", "/v2/clusters", h, {**body, "image": "x", "env": {"A": "1"}}, 400)
    assert problem["detail"].startswith("templateId cannot be combined with image, env")
