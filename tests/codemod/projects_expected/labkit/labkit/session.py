"""A requests.Session that knows the RunPod base URL, our key and how to retry."""
import logging

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from .settings import Settings

log = logging.getLogger(__name__)


class ApiError(Exception):
    def __init__(self, status, message):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message


class RunPodSession(requests.Session):
    def __init__(self, settings=None):
        super().__init__()
        self.settings = settings or Settings()
        self.base_url = self.settings.api_url.rstrip("/")
        self.headers.update({"Authorization": f"Bearer {self.settings.api_key}", "Accept": "application/json"})
        retry = Retry(total=self.settings.retries, backoff_factor=0.5, status_forcelist=[429, 502, 503, 504],
                      allowed_methods=["GET", "DELETE"])
        self.mount("https://", HTTPAdapter(max_retries=retry))

    def request(self, method, url, *args, **kwargs):
        if not url.startswith("http"):
            url = f"{self.base_url}/{url.lstrip('/')}"
        kwargs.setdefault("timeout", self.settings.timeout)
        return super().request(method, url, *args, **kwargs)

    def call(self, method, path, body=None, params=None):
        """JSON in, JSON out; raises ApiError with the API's message."""
        if method in ("POST", "PATCH"):
            resp = self.request(method, path, json=body or {}, params=params)
        else:
            resp = self.request(method, path, params=params)
        if resp.status_code >= 400:
            try:
                message = resp.json().get("message") or resp.text
            except ValueError:
                message = resp.text
            log.warning("%s %s -> %s %s", method, path, resp.status_code, message)
            raise ApiError(resp.status_code, message)
        return resp.json() if resp.content else None
