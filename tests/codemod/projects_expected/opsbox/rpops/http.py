import os

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

API_URL = os.environ.get("RUNPOD_API_URL", "https://api.runpod.io/v2").rstrip("/")
TIMEOUT = (5, 60)

_session = requests.Session()
_session.mount("https://", HTTPAdapter(max_retries=Retry(total=3, backoff_factor=1,
                                                          status_forcelist=[502, 503, 504])))


class ApiError(Exception):
    def __init__(self, status, message):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


def _url(path):
    return f"{API_URL}/{path.lstrip('/')}"


def request(method, path, body=None, **params):
    r = _session.request(method, _url(path), json=body, params=params or None, timeout=TIMEOUT,
                         headers={"Authorization": "Bearer " + os.environ["RUNPOD_API_KEY"]})
    if not r.ok:
        try:
            msg = r.json().get("detail", r.reason)
        except ValueError:
            msg = r.reason
        raise ApiError(r.status_code, msg)
    return r.json() if r.text else None


def get(path, **params):
    return request("GET", path, **params)


def post(path, body=None):
    return request("POST", path, body)


def patch(path, body):
    return request("PATCH", path, body)


def delete(path):
    return request("DELETE", path)
