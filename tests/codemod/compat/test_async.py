"""The async twins: the same steps driven by awaitable calls (httpx.AsyncClient, aiohttp)."""
from __future__ import annotations

import aiohttp
import httpx

from tests.codemod.compat.tools import AUTH, AVAILABLE_GPU, UNAVAILABLE_GPU, pod_body


async def test_httpx_async_client_fallback_reset_pages_and_call_v1(cm, sandbox, v1):
    async with httpx.AsyncClient(base_url=sandbox.url + "/v2", headers=AUTH, timeout=10) as http:
        answer = await cm.acreate_with_fallback(lambda body: http.post("/pods", json=body), pod_body(),
                                                [UNAVAILABLE_GPU, AVAILABLE_GPU])
        assert isinstance(answer, httpx.Response) and answer.json()["gpu"]["id"] == AVAILABLE_GPU
        pod_id = answer.json()["id"]
        started = await cm.areset_pod(http.request, pod_id, interval=0.01)
        assert started.status_code == 200
        pods = await cm.aall_pages(http.request, "/pods")
        assert pod_id in [p["id"] for p in pods]
        got = await cm.acall_v1(http.request, "GET", f"/pods/{pod_id}")
        assert got.status_code == 200 and got.json() == v1.get(f"/pods/{pod_id}")
        view = await cm.av1_view("pod", await http.get(f"/pods/{pod_id}"))
        assert view == got.json()
        body = {"imageName": "runpod/base:0.6.2", "gpuTypeIds": [UNAVAILABLE_GPU, AVAILABLE_GPU],
                "gpuTypePriority": "custom"}
        made = await cm.awith_v1_body(lambda b: http.post("/pods", json=b), "pods.create", body)
        assert made.json()["gpu"]["id"] == AVAILABLE_GPU


async def test_aiohttp_answers_are_read_with_their_coroutines(cm, sandbox):
    """aiohttp's json() is a coroutine: the driver reads it once, before the steps look at it."""
    async with aiohttp.ClientSession(headers=AUTH) as session:
        def send(method, path, json=None):
            return session.request(method, sandbox.url + "/v2" + path, json=json)

        answer = await cm.acreate_with_fallback(lambda body: send("POST", "/pods", body), pod_body(),
                                                [UNAVAILABLE_GPU, AVAILABLE_GPU])
        assert answer.status == 201
        pod = await answer.json()
        assert pod["gpu"]["id"] == AVAILABLE_GPU
        listed = await cm.acall_v1(send, "GET", "/pods", params={"desiredStatus": "RUNNING"})
        assert listed.status_code == 200 and pod["id"] in [p["id"] for p in listed.json()]
