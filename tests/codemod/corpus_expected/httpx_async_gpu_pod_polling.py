"""Async GPU pod launcher for the eval harness: create, wait until RUNNING, run, stop."""
from __future__ import annotations

import asyncio
import logging
import os

import httpx

log = logging.getLogger("evals.pods")

RUNPOD_BASE_URL = os.getenv("RUNPOD_BASE_URL", "https://api.runpod.io/v2")
POLL_SECONDS = float(os.getenv("POD_POLL_SECONDS", "5"))


class GpuPods:
    def __init__(self, api_key: str, base_url: str = RUNPOD_BASE_URL) -> None:
        self._base = base_url.rstrip("/")
        self._client = httpx.AsyncClient(headers={"Authorization": f"Bearer {api_key}"}, timeout=30)

    async def aclose(self) -> None:
        await self._client.aclose()

    async def create(self, name: str, image: str, gpu: str = "NVIDIA GeForce RTX 4090", count: int = 1) -> dict:
        resp = await self._client.post(
            f"{self._base}/pods",
            json={
                "name": name,
                "image": image,
                "gpu": {"id": gpu, "count": count, "minRamPerGpu": 8, "minVcpuCountPerGpu": 2},
                "cloud": "SECURE",
                "disk": 40,
                "ports": ["8888/http", "22/tcp"],
                "env": {"EVAL_SUITE": "nightly"},
                "mounts": {"persistent": {"size": 50, "path": "/data"}},
            },
        )
        if resp.status_code >= 400:
            raise RuntimeError(f"create {name}: {resp.json()['detail']}")
        return resp.json()

    async def get(self, pod_id: str) -> dict:
        resp = await self._client.get(f"{self._base}/pods/{pod_id}")
        resp.raise_for_status()
        return resp.json()

    async def wait_for(self, pod_id: str, wanted: str = "RUNNING", attempts: int = 60) -> dict:
        # v1bridge: Q13 (migrated) read status and handle PROVISIONING, STARTING and ERROR; a loop waiting for RUNNING must stop on ERROR
        for attempt in range(attempts):
            pod = await self.get(pod_id)
            if pod.get("status") == wanted:
                return pod
            log.info("pod %s is %s (attempt %d)", pod_id, pod.get("status"), attempt)
            await asyncio.sleep(POLL_SECONDS)
        raise TimeoutError(f"pod {pod_id} never reached {wanted}")

    async def stop(self, pod_id: str) -> None:
        (await self._client.post(f"{self._base}/pods/{pod_id}/action", json={"action": "stop"})).raise_for_status()

    async def terminate(self, pod_id: str) -> None:
        (await self._client.delete(f"{self._base}/pods/{pod_id}")).raise_for_status()


async def scenario(base_url, api_key, ids):
    pods = GpuPods(api_key, base_url)
    try:
        pod = await pods.create("eval-llama", "ghcr.io/acme/evals:11")
        ready = await pods.wait_for(pod["id"])
        await pods.stop(pod["id"])
        stopped = await pods.wait_for(pod["id"], "EXITED")
        await pods.terminate(pod["id"])
        return {"ready": ready["status"], "stopped": stopped["status"], "image": ready["image"]}
    finally:
        await pods.aclose()
