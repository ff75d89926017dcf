"""Thin REST client for the pod API.

Kept deliberately small: one request helper, relative paths, retries on
connection errors and 5xx through urllib3.
"""
from __future__ import annotations

import logging
import os
import time
from typing import Any

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

log = logging.getLogger("gpu_fleet.rest")

DEFAULT_REST_API_URL = "https://api.runpod.io/v2"
DEFAULT_TIMEOUT = 30


class RestError(RuntimeError):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


class PodsClient:
    def __init__(self, api_key: str | None = None, rest_url: str | None = None) -> None:
        self._api_key = api_key or os.environ.get("RUNPOD_API_KEY", "")
        self._rest_url = rest_url or DEFAULT_REST_API_URL
        self._session = requests.Session()
        retry = Retry(total=3, backoff_factor=0.3, status_forcelist=(502, 503, 504), allowed_methods=None)
        self._session.mount("https://", HTTPAdapter(max_retries=retry))
        self._session.mount("http://", HTTPAdapter(max_retries=retry))

    def _rest_request(self, method: str, path: str, **kwargs: Any) -> Any:
        url = f"{self._rest_url}/{path.lstrip('/')}"
        headers = {"Authorization": f"Bearer {self._api_key}", "Content-Type": "application/json"}
        started = time.monotonic()
        resp = self._session.request(method, url, headers=headers, timeout=DEFAULT_TIMEOUT, **kwargs)
        log.debug("%s %s -> %s in %.0f ms", method, path, resp.status_code, (time.monotonic() - started) * 1000)
        if resp.status_code >= 400:
            try:
                message = resp.json()["detail"]
            except (ValueError, KeyError):
                message = resp.text
            raise RestError(resp.status_code, message)
        if not resp.content:
            return None
        return resp.json()

    # pods -----------------------------------------------------------------

    def list_pods(self) -> list[dict]:
        pods, paging = [], {}
        while True:
            page = self._rest_request("GET", "pods", params=paging)
            pods += page["pods"]
            if not page["pagination"]["hasNextPage"]:
                break
            paging = {"cursor": page["pagination"]["nextCursor"]}
        return pods

    def get_pod(self, pod_id: str) -> dict:
        return self._rest_request("GET", f"pods/{pod_id}")

    def create_cpu_pod(self, name: str, image: str, vcpus: int = 2) -> dict:
        return self._rest_request(
            "POST",
            "pods",
            json={
                "name": name,
                "image": image,
                "cpu": {"id": "cpu3c", "vcpuCount": vcpus},
                "disk": 10,
                "ports": ["8080/http"],
            },
        )

    def stop_pod(self, pod_id: str) -> None:
        self._rest_request("POST", f"pods/{pod_id}/action", json={"action": "stop"})

    def start_pod(self, pod_id: str) -> None:
        self._rest_request("POST", f"/pods/{pod_id}/action", json={"action": "start"})

    def terminate_pod(self, pod_id: str) -> None:
        self._rest_request("DELETE", f"pods/{pod_id}")


def running_names(client: PodsClient) -> list[str]:
    return sorted(p["name"] for p in client.list_pods() if p.get("status") == "RUNNING")


def hourly_spend(client: PodsClient) -> float:
    total = 0.0
    for pod in client.list_pods():
        total += pod.get("cost") or 0.0
    return round(total, 4)


def scenario(base_url, api_key, ids):
    client = PodsClient(api_key)
    pod = client.create_cpu_pod("worker-a", "busybox:latest")
    names = running_names(client)
    client.stop_pod(pod["id"])
    stopped = client.get_pod(pod["id"]).get("status")
    client.start_pod(pod["id"])
    try:
        client.get_pod("no-such-pod")
        missing = None
    except RestError as exc:
        missing = exc.status
    client.terminate_pod(pod["id"])
    return {"names": names, "stopped": stopped, "missing": missing, "left": len(client.list_pods())}
