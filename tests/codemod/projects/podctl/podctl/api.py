"""Every HTTP call of podctl goes through here (auth, timeouts, logging)."""
import logging
import os

import requests

log = logging.getLogger("podctl")

BASE_URL = "https://rest.runpod.io/v1"
API_KEY = os.environ.get("RUNPOD_API_KEY", "")
TIMEOUT = 30


def _headers():
    return {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"}


def _check(r, what):
    if r.status_code >= 400:
        try:
            msg = r.json().get("message")
        except ValueError:
            msg = r.text
        log.error("%s failed (%s): %s", what, r.status_code, msg)
    r.raise_for_status()


def _get(path, params=None):
    r = requests.get(BASE_URL + path, headers=_headers(), params=params, timeout=TIMEOUT)
    _check(r, "GET " + path)
    return r.json()


def _post(path, body=None):
    r = requests.post(BASE_URL + path, headers=_headers(), json=body or {}, timeout=TIMEOUT)
    _check(r, "POST " + path)
    if r.content:
        return r.json()
    return None


def _patch(path, body):
    r = requests.patch(BASE_URL + path, headers=_headers(), json=body, timeout=TIMEOUT)
    _check(r, "PATCH " + path)
    return r.json()


def _delete(path):
    r = requests.delete(BASE_URL + path, headers=_headers(), timeout=TIMEOUT)
    _check(r, "DELETE " + path)
