"""Pod client on the v2 API (migrated in full; must stay as it is)."""
from __future__ import annotations

import os

import requests

API_URL = os.environ.get("RUNPOD_API_URL", "https://api.runpod.io/v2")


class V2Pods:
    def __init__(self, api_key: str, base: str = API_URL) -> None:
        self.base = base.rstrip("/")
        self.s = requests.Session()
        self.s.headers.update({"Authorization": f"Bearer {api_key}", "User-Agent": "acme-tools/4.0"})

    def _json(self, resp: requests.Response):
        if resp.status_code >= 400:
            problem = resp.json()
            raise RuntimeError(f"{problem['title']}: {problem['detail']}")
        return resp.json() if resp.content else None

    def all(self) -> list[dict]:
        pods, cursor = [], None
        while True:
            params = {"cursor": cursor} if cursor else {}
            page = self._json(self.s.get(f"{self.base}/pods", params=params, timeout=30))
            pods.extend(page["pods"])
            pagination = page.get("pagination") or {}
            if not pagination.get("hasNextPage"):
                return pods
            cursor = pagination["nextCursor"]

    def create_cpu(self, name: str, image: str) -> dict:
        return self._json(self.s.post(f"{self.base}/pods", json={
            "name": name, "image": image, "cpu": {"id": "cpu3c", "vcpuCount": 2}, "disk": 10, "ports": ["8080/http"],
        }, timeout=60))

    def action(self, pod_id: str, action: str) -> dict | None:
        return self._json(self.s.post(f"{self.base}/pods/{pod_id}/action", json={"action": action}, timeout=30))

    def volumes(self) -> list[dict]:
        return self._json(self.s.get(f"{self.base}/network-volumes", timeout=30))["networkVolumes"]

    def spend(self) -> float:
        data = self._json(self.s.get(f"{self.base}/billing/serverless", params={"bucketSize": "day"}, timeout=30))
        return sum(r["totalAmount"] for r in data["records"])


def scenario(base_url, api_key, ids):
    c = V2Pods(api_key, base=base_url)
    pod = c.create_cpu("v2-box", "busybox:latest")
    stopped = c.action(pod["id"], "stop")["status"]
    c.action(pod["id"], "terminate")
    return {"stopped": stopped, "n": len(c.all()), "vols": c.volumes(), "spend": c.spend() >= 0}
