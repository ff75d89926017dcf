"""Pod lifecycle commands for the ops bot (httpx)."""
from __future__ import annotations

import os

import httpx

RUNPOD_REST_URL = os.getenv("RUNPOD_REST_URL", "https://api.runpod.io/v2")
_LIFECYCLE_VERBS = ("start", "stop", "restart")


class PodOps:
    def __init__(self, api_key: str, base_url: str = RUNPOD_REST_URL) -> None:
        self._client = httpx.Client(
            base_url=base_url,
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=httpx.Timeout(30.0, connect=5.0),
        )

    def close(self) -> None:
        self._client.close()

    def lifecycle(self, pod_id: str, verb: str) -> None:
        if verb not in _LIFECYCLE_VERBS:
            raise ValueError(f"unsupported verb {verb!r}; expected one of {_LIFECYCLE_VERBS}")
        resp = self._client.post(f"/pods/{pod_id}/action", json={"action": verb})
        if resp.is_error:
            raise RuntimeError(f"{verb} {pod_id}: {resp.json()['detail']}")

    def stop(self, pod_id: str) -> None:
        self.lifecycle(pod_id, "stop")

    def start(self, pod_id: str) -> None:
        self.lifecycle(pod_id, "start")

    def status(self, pod_id: str) -> str:
        resp = self._client.get(f"/pods/{pod_id}")
        resp.raise_for_status()
        return resp.json()["status"]


def bounce(ops: PodOps, pod_id: str) -> list[str]:
    seen = []
    for verb in ("stop", "start", "restart"):
        ops.lifecycle(pod_id, verb)
        seen.append(ops.status(pod_id))
    return seen


def scenario(base_url, api_key, ids):
    ops = PodOps(api_key, base_url=base_url)
    try:
        seen = bounce(ops, ids["pod"])
        try:
            ops.lifecycle(ids["pod"], "start")  # already running
            refused = None
        except RuntimeError as exc:
            refused = "refused"
        return {"seen": seen, "refused": refused}
    finally:
        ops.close()
