import os
from typing import Any

import requests

from .paths import _PODS_PATH, _VOLUMES_PATH

REST_BASE = os.environ.get("RUNPOD_REST_URL", "https://rest.runpod.io/v1").rstrip("/")
_REGISTRY_AUTH_PATH = "containerregistryauth"


class RunpodError(RuntimeError):
    pass


class RunpodAPI:
    def __init__(self, api_key: str | None = None, timeout: float = 30.0):
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {api_key or os.environ['RUNPOD_API_KEY']}"
        self.timeout = timeout

    def _url(self, *parts: str) -> str:
        return "/".join([REST_BASE, *(str(p).strip("/") for p in parts)])

    def _get(self, *parts: str, **params: Any) -> Any:
        resp = self.session.get(self._url(*parts), params=params or None, timeout=self.timeout)
        if resp.status_code >= 400:
            raise RunpodError(resp.json().get("message", resp.text))
        return resp.json()

    def registry_auths(self) -> list[dict]:
        return self.session.get(f"{REST_BASE}/{_REGISTRY_AUTH_PATH}", timeout=self.timeout).json()

    def delete_registry_auth(self, auth_id: str) -> None:
        self.session.delete(REST_BASE + "/" + _REGISTRY_AUTH_PATH + "/" + auth_id, timeout=self.timeout)

    def volumes(self) -> list[dict]:
        return self.session.get(f"{REST_BASE}/{_VOLUMES_PATH}", timeout=self.timeout).json()

    def pods(self) -> list[dict]:
        return self.session.get(f"{REST_BASE}/{_PODS_PATH}", timeout=self.timeout).json()
