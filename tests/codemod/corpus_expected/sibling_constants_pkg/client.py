"""Fleet client: method and base come from the sibling constants module."""
from __future__ import annotations

import logging
import urllib.parse

import requests

from .constants import DEFAULT_FLAVOR, DEFAULT_IMAGE, HTTP_DELETE, HTTP_GET, HTTP_POST, REQUEST_TIMEOUT, RUNPOD_REST_URL

logger = logging.getLogger(__name__)


class FleetClient:
    def __init__(self, api_key: str, base_url: str = RUNPOD_REST_URL) -> None:
        self.base_url = base_url
        self.session = requests.Session()
        self.session.headers.update({"Authorization": f"Bearer {api_key}"})

    def _request(self, method: str, path: str, body: dict | None = None):
        url = self.base_url + path
        logger.debug("%s %s", method, url)
        resp = self.session.request(method, url, json=body, timeout=REQUEST_TIMEOUT)
        resp.raise_for_status()
        return resp.json() if resp.content else None

    def workers(self) -> list[dict]:
        pods, paging = [], ""
        while True:
            page = self._request(HTTP_GET, "/pods" + paging)
            pods += page["pods"]
            if not page["pagination"]["hasNextPage"]:
                break
            paging = "?" + urllib.parse.urlencode({"cursor": page["pagination"]["nextCursor"]})
        return [p for p in pods if p["name"].startswith("fleet-")]

    def spawn(self, index: int) -> dict:
        return self._request(HTTP_POST, "/pods", {
            "name": f"fleet-{index}",
            "image": DEFAULT_IMAGE,
            "cpu": {"id": DEFAULT_FLAVOR, "vcpuCount": 2},
            "disk": 10,
            "ports": [],
        })

    def pause(self, pod_id: str) -> None:
        self._request(HTTP_POST, f"/pods/{pod_id}/action", {"action": "stop"})

    def retire(self, pod_id: str) -> None:
        self._request(HTTP_DELETE, f"/pods/{pod_id}")


def scenario(base_url, api_key, ids):
    fleet = FleetClient(api_key, base_url=base_url)
    spawned = [fleet.spawn(i) for i in range(2)]
    fleet.pause(spawned[0]["id"])
    states = sorted(p["status"] for p in fleet.workers())
    for pod in spawned:
        fleet.retire(pod["id"])
    return {"states": states, "left": len(fleet.workers())}
