"""Pods that pull private images: registry auth first, then the pod."""
from __future__ import annotations

import os
from urllib.parse import quote

import requests

_BASE = os.environ.get("RP_REST_BASE", "https://api.runpod.io/v2")
_REGISTRY_AUTH_PATH = "registries"
_PODS_PATH = "pods"


class PrivateImages:
    def __init__(self, api_key: str) -> None:
        self._s = requests.Session()
        self._s.headers["Authorization"] = f"Bearer {api_key}"

    def containerregistryauth_ids(self) -> dict[str, str]:
        r = self._s.get(f"{_BASE}/{_REGISTRY_AUTH_PATH}", timeout=20)
        r.raise_for_status()
        return {a["name"]: a["id"] for a in r.json()["registries"]}

    def add_auth(self, name: str, user: str, token: str) -> str:
        r = self._s.post(f"{_BASE}/{_REGISTRY_AUTH_PATH}", json={"name": name, "username": user, "password": token}, timeout=20)
        r.raise_for_status()
        return r.json()["id"]

    def drop_auth(self, auth_id: str) -> None:
        self._s.delete(f"{_BASE}/{_REGISTRY_AUTH_PATH}/{quote(auth_id, safe='')}", timeout=20).raise_for_status()

    def launch(self, name: str, image: str, auth_id: str) -> dict:
        r = self._s.post(
            f"{_BASE}/{_PODS_PATH}",
            json={
                "name": name,
                "image": image,
                "registry": auth_id,
                "cpu": {"id": "cpu3g", "vcpuCount": 4},
                "ports": ["8080/http"],
                "disk": 50,
            },
            timeout=60,
        )
        r.raise_for_status()
        return r.json()

    def destroy(self, pod_id: str) -> None:
        self._s.delete(f"{_BASE}/{_PODS_PATH}/{quote(pod_id, safe='')}", timeout=20).raise_for_status()


def scenario(base_url, api_key, ids):
    api = PrivateImages(api_key)
    auth = api.add_auth("ghcr", "ci-bot", "ghp_example")
    pod = api.launch("private-api", "ghcr.io/acme/private-api:7", auth)
    known = sorted(api.containerregistryauth_ids())
    api.destroy(pod["id"])
    api.drop_auth(auth)
    return {"known": known, "registry_set": pod.get("registry") == auth, "after": api.containerregistryauth_ids()}
