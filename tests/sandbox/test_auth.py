"""Auth, tenancy, problem shape and headers."""
from __future__ import annotations

import pytest

from sandbox import resolve_keys

from .tools import auth, gpu_pod


@pytest.mark.parametrize("header", [None, "Bearer wrong-key", "Basic key-alice", "key-alice"])
async def test_missing_or_unknown_key_is_401_problem(sandbox_client, header):
    headers = {"Authorization": header} if header else {}
    resp = await sandbox_client.get("/v2/pods", headers=headers)
    assert resp.status == 401
    assert resp.content_type == "application/problem+json"
    body = await resp.json()
    assert body["status"] == 401 and body["title"] == "Unauthorized"
    assert "API key" in body["detail"]
    assert "RateLimit" not in resp.headers
    assert resp.headers["x-request-id"]


async def test_openapi_needs_no_auth(sandbox_client):
    resp = await sandbox_client.get("/v2/openapi.json")
    assert resp.status == 200
    doc = await resp.json()
    assert doc["info"]["version"] == "2.0.0" and "/v2/pods" in doc["paths"]


async def test_authenticated_answers_carry_rate_limit_and_request_id(sandbox_client, sandbox_headers):
    resp = await sandbox_client.get("/v2/pods", headers=sandbox_headers)
    assert resp.status == 200
    assert resp.headers["RateLimit"].startswith('"default";r=')
    assert resp.headers["RateLimit-Policy"].startswith('"default";q=')
    assert len(resp.headers["x-request-id"]) == 32


async def test_other_tenant_gets_403_and_never_sees_the_resource(sandbox_client, sandbox_keys):
    alice, bob = auth(sandbox_keys[0]), auth(sandbox_keys[1])
    created = await (await sandbox_client.post("/v2/pods", json=gpu_pod(), headers=alice)).json()
    pid = created["id"]
    for method, path, body in [
        ("GET", f"/v2/pods/{pid}", None),
        ("PATCH", f"/v2/pods/{pid}", {"name": "stolen"}),
        ("DELETE", f"/v2/pods/{pid}", None),
        ("POST", f"/v2/pods/{pid}/action", {"action": "stop"}),
    ]:
        resp = await sandbox_client.request(method, path, json=body, headers=bob)
        assert resp.status == 403, (method, path)
        problem = await resp.json()
        assert problem == {"title": "Forbidden", "status": 403, "detail": f"You do not have access to pod '{pid}'"}
    assert (await (await sandbox_client.get("/v2/pods", headers=bob)).json()) == {
        "pods": [], "pagination": {"nextCursor": None, "hasNextPage": False}}
    still = await (await sandbox_client.get(f"/v2/pods/{pid}", headers=alice)).json()
    assert still["name"] == "trainer"


async def test_missing_resource_is_404_naming_it(sandbox_client, sandbox_headers):
    resp = await sandbox_client.get("/v2/network-volumes/nope123", headers=sandbox_headers)
    assert resp.status == 404
    assert await resp.json() == {"title": "Not Found", "status": 404, "detail": "network volume 'nope123' not found"}


async def test_unknown_path_and_v1_paths_are_404_problems(sandbox_client, sandbox_headers):
    for path in ["/v2/networkvolumes", "/v2/pods/abc/stop", "/v1/pods"]:
        resp = await sandbox_client.get(path, headers=sandbox_headers)
        assert resp.status == 404
        assert resp.content_type == "application/problem+json"


async def test_wrong_method_is_405_with_allow(sandbox_client, sandbox_headers):
    resp = await sandbox_client.put("/v2/pods", headers=sandbox_headers, json={})
    assert resp.status == 405
    assert set(resp.headers["Allow"].split(", ")) == {"GET", "POST"}


async def test_malformed_json_is_400(sandbox_client, sandbox_headers):
    resp = await sandbox_client.post("/v2/pods", data=b"{nope", headers=sandbox_headers)
    assert resp.status == 400
    assert (await resp.json())["detail"] == "request body is not valid JSON"


def test_resolve_keys_sources(tmp_path):
    keys_file = tmp_path / "keys"
    keys_file.write_text("k3\n# comment\n\nk4\n")
    keys, generated = resolve_keys("k1, k2", keys_file, environ={"V1BRIDGE_KEYS": "k5,k1"})
    assert keys == ["k1", "k2", "k3", "k4", "k5"] and generated is False
    keys, generated = resolve_keys(None, None, environ={"V1BRIDGE_KEYS": "envkey"})
    assert keys == ["envkey"] and generated is False
    keys, generated = resolve_keys(None, None, environ={})
    assert generated is True and len(keys) == 1 and keys[0].startswith("sandbox-")


async def test_rate_limit_answers_429_with_retry_after(aiohttp_client):
    from sandbox import SandboxConfig, create_sandbox_app

    client = await aiohttp_client(create_sandbox_app(SandboxConfig(keys=["k"], rate_limit=2, rate_window=60)))
    statuses = [(await client.get("/v2/pods", headers=auth("k"))).status for _ in range(3)]
    assert statuses == [200, 200, 429]
    resp = await client.get("/v2/pods", headers=auth("k"))
    assert int(resp.headers["Retry-After"]) >= 1
    assert (await resp.json())["title"] == "Too Many Requests"
