"""One client for the whole fleet tooling; every module gets it from here."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry


class RunPodError(Exception):
    def __init__(self, status, message):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


@dataclass
class Settings:
    api_key: str = field(default_factory=lambda: os.environ.get("RUNPOD_API_KEY", ""))
    rest_url: str = "https://rest.runpod.io/v1"
    timeout: float = 30.0
    retries: int = 3


class RunPodClient:
    def __init__(self, settings: Settings | None = None):
        self.settings = settings or Settings()
        self.base = self.settings.rest_url.rstrip("/")
        self.session = requests.Session()
        retry = Retry(total=self.settings.retries, backoff_factor=0.3, status_forcelist=(502, 503, 504),
                      allowed_methods=None)
        self.session.mount("https://", HTTPAdapter(max_retries=retry))
        self.session.headers.update({"Authorization": f"Bearer {self.settings.api_key}"})

    def request(self, method, path, **kwargs):
        resp = self.session.request(method, f"{self.base}/{path.lstrip('/')}", timeout=self.settings.timeout, **kwargs)
        if not resp.ok:
            try:
                message = resp.json().get("message", resp.text)
            except ValueError:
                message = resp.text
            raise RunPodError(resp.status_code, message)
        return resp.json() if resp.content else None

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None):
        return self.request("POST", path, json=body)

    def patch(self, path, body):
        return self.request("PATCH", path, json=body)

    def delete(self, path):
        return self.request("DELETE", path)
