import os

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

DEFAULT_REST_URL = "https://rest.runpod.io/v1"


class RunPodError(Exception):
    def __init__(self, status, message):
        super().__init__(f"{status}: {message}")
        self.status = status


class RunPodClient:
    def __init__(self, api_key=None, rest_url=None, timeout=30):
        self.api_key = api_key or os.environ["RUNPOD_API_KEY"]
        self.rest_url = (rest_url or os.environ.get("RUNPOD_REST_URL", DEFAULT_REST_URL)).rstrip("/")
        self.timeout = timeout
        self.session = requests.Session()
        self.session.mount("https://", HTTPAdapter(max_retries=Retry(total=3, backoff_factor=0.5)))
        self.session.headers.update({"Authorization": f"Bearer {self.api_key}"})

    def _request(self, method, path, **kwargs):
        url = f"{self.rest_url}/{path.lstrip('/')}"
        resp = self.session.request(method, url, timeout=self.timeout, **kwargs)
        if resp.status_code >= 400:
            try:
                message = resp.json().get("message", resp.text)
            except ValueError:
                message = resp.text
            raise RunPodError(resp.status_code, message)
        return resp.json() if resp.content else None

    def get(self, path, params=None):
        return self._request("GET", path, params=params)

    def post(self, path, body=None):
        return self._request("POST", path, json=body or {})

    def patch(self, path, body):
        return self._request("PATCH", path, json=body)

    def delete(self, path):
        return self._request("DELETE", path)
