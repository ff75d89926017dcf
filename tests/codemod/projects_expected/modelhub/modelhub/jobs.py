"""The serverless job API of an endpoint (run, runsync, status, health)."""
import os

import httpx

from .constants import RUNPOD_JOBS_URL


def _client(endpoint_id, timeout=120.0):
    return httpx.AsyncClient(base_url=f"{RUNPOD_JOBS_URL}/{endpoint_id}", timeout=timeout,
                             headers={"Authorization": f"Bearer {os.environ['RUNPOD_API_KEY']}"})


async def runsync(endpoint_id, payload):
    async with _client(endpoint_id) as c:
        r = await c.post("/runsync", json={"input": payload})
        r.raise_for_status()
        return r.json()


async def health(endpoint_id):
    async with _client(endpoint_id, timeout=10.0) as c:
        r = await c.get("/health")
        r.raise_for_status()
        return r.json()["workers"]
