"""The one place that talks HTTP. Callers build full URLs from API_BASE (copied from our old bash scripts)."""
import json
import os

import requests

API_BASE = os.environ.get("RUNPOD_API_BASE", "https://api.runpod.io/v2")
_session = requests.Session()


def _headers():
    return {"Authorization": f"Bearer {os.environ.get('RUNPOD_API_KEY', '')}", "Content-Type": "application/json"}


class ApiError(RuntimeError):
    pass


def call(method, url, body=None):
    resp = _session.request(method, url, headers=_headers(), data=json.dumps(body) if body is not None else None,
                            timeout=60)
    if resp.status_code >= 400:
        try:
            msg = resp.json().get("detail", resp.text)
        except ValueError:
            msg = resp.text
        raise ApiError(f"{method} {url} -> {resp.status_code}: {msg}")
    return resp.json() if resp.content else None


def get(url, params=None):
    resp = _session.get(url, headers=_headers(), params=params, timeout=60)
    if not resp.ok:
        raise ApiError(f"GET {url} -> {resp.status_code}")
    return resp.json()
