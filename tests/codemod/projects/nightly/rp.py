"""Minimal RunPod REST helper -- stdlib only, because the cron box has no pip."""
import json
import os
import urllib.error
import urllib.parse
import urllib.request

RUNPOD_API_BASE = os.getenv("RUNPOD_API_BASE", "https://rest.runpod.io/v1")


class ApiError(RuntimeError):
    pass


def call(method, path, body=None, query=None):
    url = RUNPOD_API_BASE + path
    if query:
        url += "?" + urllib.parse.urlencode(query)
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Authorization", "Bearer " + os.environ["RUNPOD_API_KEY"])
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            raw = resp.read()
    except urllib.error.HTTPError as e:
        detail = json.loads(e.read() or b"{}").get("message", e.reason)
        raise ApiError(f"{method} {path}: {e.code} {detail}") from None
    return json.loads(raw) if raw else None
