"""Async status page backend: every call spells out the full URL.

Pod config comes from the REST API, queue health from the endpoint's job API;
both are fetched together.
"""
import asyncio
import os

import httpx

API_KEY = os.environ.get("RUNPOD_API_KEY", "")


async def pod_summary(client: httpx.AsyncClient, pod_id: str) -> dict:
    r = await client.get(f"https://api.runpod.io/v2/pods/{pod_id}", headers={"Authorization": f"Bearer {API_KEY}"})
    r.raise_for_status()
    pod = r.json()
    return {"name": pod["name"], "status": pod["status"], "image": pod["image"]}


async def queue_health(client: httpx.AsyncClient, endpoint_id: str) -> dict:
    r = await client.get(f"https://api.runpod.ai/v2/{endpoint_id}/health", headers={"Authorization": f"Bearer {API_KEY}"})
    r.raise_for_status()
    return r.json()["jobs"]


async def status_page(pod_id: str, endpoint_id: str) -> dict:
    async with httpx.AsyncClient(timeout=15) as client:
        pod, jobs = await asyncio.gather(pod_summary(client, pod_id), queue_health(client, endpoint_id))
    return {"pod": pod, "queue": jobs.get("inQueue", 0)}


async def launch_canary(name: str) -> str:
    async with httpx.AsyncClient(timeout=60) as client:
        r = await client.post(
            "https://api.runpod.io/v2/pods",
            headers={"Authorization": f"Bearer {API_KEY}"},
            json={
                "name": name,
                "image": "ghcr.io/acme/status-canary:1",
                "cpu": {"id": "cpu3c", "vcpuCount": 2},
                "dataCenterIds": ["EU-RO-1", "US-KS-2"],
                "disk": 5,
                "ports": ["8080/http"],
            },
        )
        r.raise_for_status()
        return r.json()["id"]


async def retire_canary(pod_id: str) -> None:
    async with httpx.AsyncClient(timeout=30) as client:
        r = await client.delete(f"https://api.runpod.io/v2/pods/{pod_id}", headers={"Authorization": f"Bearer {API_KEY}"})
        r.raise_for_status()


async def scenario(base_url, api_key, ids):
    global API_KEY
    API_KEY = api_key
    pod_id = await launch_canary("status-canary")
    page = await status_page(pod_id, ids["endpoint"])
    await retire_canary(pod_id)
    return page


if __name__ == "__main__":
    print(asyncio.run(status_page(os.environ["POD_ID"], os.environ["RUNPOD_ENDPOINT_ID"])))
