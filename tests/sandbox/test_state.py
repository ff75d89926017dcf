"""State survives a restart on the same SQLite file and stays consistent under concurrent requests."""
from __future__ import annotations

import asyncio

from sandbox import SandboxConfig, create_sandbox_app

from .tools import auth, cpu_pod, gpu_pod


async def test_state_survives_restart(aiohttp_client, tmp_path):
    db = str(tmp_path / "sandbox.db")
    client = await aiohttp_client(create_sandbox_app(SandboxConfig(keys=["k"], db_path=db)))
    pod = await (await client.post("/v2/pods", json=gpu_pod(), headers=auth("k"))).json()
    await client.post(f"/v2/pods/{pod['id']}/action", json={"action": "stop"}, headers=auth("k"))
    tpl = await (await client.post("/v2/templates", json={"name": "t", "image": "i"}, headers=auth("k"))).json()
    await client.put("/v2/account/ssh-keys", json={"keys": ["ssh-ed25519 AAAA me"]}, headers=auth("k"))
    await client.close()

    client = await aiohttp_client(create_sandbox_app(SandboxConfig(keys=["k"], db_path=db)))
    again = await (await client.get(f"/v2/pods/{pod['id']}", headers=auth("k"))).json()
    assert again["status"] == "EXITED" and again["name"] == pod["name"]
    assert (await (await client.get(f"/v2/templates/{tpl['id']}", headers=auth("k"))).json())["name"] == "t"
    assert (await (await client.get("/v2/account/ssh-keys", headers=auth("k"))).json()) == {"keys": ["ssh-ed25519 AAAA me"]}
    resp = await client.post("/v2/templates", json={"name": "t", "image": "i"}, headers=auth("k"))
    assert resp.status == 400  # uniqueness still enforced against restored state
    billing = await (await client.get("/v2/billing/pods", headers=auth("k"))).json()
    assert billing["metadata"]["uniquePodCount"] == 1


async def test_concurrent_requests_stay_consistent(sandbox_client, sandbox_headers):
    h = sandbox_headers
    creates = await asyncio.gather(*[
        sandbox_client.post("/v2/pods", json=cpu_pod(name=f"p{i}"), headers=h) for i in range(30)
    ])
    assert [r.status for r in creates] == [201] * 30
    ids = {(await r.json())["id"] for r in creates}
    assert len(ids) == 30
    # 10 racing creates of one template name: exactly one wins
    racing = await asyncio.gather(*[
        sandbox_client.post("/v2/templates", json={"name": "same", "image": "i"}, headers=h) for _ in range(10)
    ])
    assert sorted(r.status for r in racing) == [201] + [400] * 9
    # racing stop actions on one pod: one 200, the rest 409
    pid = next(iter(ids))
    stops = await asyncio.gather(*[
        sandbox_client.post(f"/v2/pods/{pid}/action", json={"action": "stop"}, headers=h) for _ in range(8)
    ])
    assert sorted(r.status for r in stops) == [200] + [409] * 7
    listed = await (await sandbox_client.get("/v2/pods", headers=h)).json()
    assert {p["id"] for p in listed["pods"]} == ids
    deletes = await asyncio.gather(*[sandbox_client.delete(f"/v2/pods/{i}", headers=h) for i in ids])
    assert {r.status for r in deletes} == {204}
    assert (await (await sandbox_client.get("/v2/pods", headers=h)).json()) == {"pods": [], "pagination": {"nextCursor": None, "hasNextPage": False}}


async def test_response_schema_check_catches_a_bad_answer(aiohttp_client):
    """The fixture's safety net works: a non-conforming answer becomes a recorded 500."""
    from sandbox.common import SANDBOX, VIOLATIONS

    app = create_sandbox_app(SandboxConfig(keys=["k"], validate_responses=True))
    client = await aiohttp_client(app)
    pod = await (await client.post("/v2/pods", json=gpu_pod(), headers=auth("k"))).json()
    app[SANDBOX].store.get("pod", pod["id"])["cloud"] = "MOON"  # corrupt the stored document
    resp = await client.get(f"/v2/pods/{pod['id']}", headers=auth("k"))
    assert resp.status == 500
    assert app[VIOLATIONS] and "$.cloud" in app[VIOLATIONS][0]
    app[VIOLATIONS].clear()
