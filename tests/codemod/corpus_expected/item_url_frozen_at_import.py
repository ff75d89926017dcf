"""Autoscaling knob for ONE serverless endpoint, configured by environment.

RUNPOD_ENDPOINT_ID is required; the endpoint's management URL and its job URL
are computed once at import.
"""
import os
import time

import requests

ENDPOINT_ID = os.environ["RUNPOD_ENDPOINT_ID"]
REST = os.getenv("RUNPOD_REST_API_URL", "https://api.runpod.io/v2")
JOBS = os.getenv("RUNPOD_ENDPOINT_BASE_URL", "https://api.runpod.ai/v2")

ENDPOINT_URL = f"{REST}/serverless/{ENDPOINT_ID}"
JOB_URL = f"{JOBS}/{ENDPOINT_ID}"

_session = requests.Session()
_session.headers.update({"Authorization": f"Bearer {os.environ.get('RUNPOD_API_KEY', '')}"})


def describe():
    r = _session.get(ENDPOINT_URL, timeout=20)
    r.raise_for_status()
    ep = r.json()
    return {"name": ep["name"], "min": ep["workers"]["min"], "max": ep["workers"]["max"], "idle": ep["workers"]["idleTimeout"]}


def scale(min_workers, max_workers):
    r = _session.patch(ENDPOINT_URL, json={"workers": {"min": min_workers, "max": max_workers}}, timeout=20)
    r.raise_for_status()
    return r.json()["workers"]["max"]


def set_idle_timeout(seconds):
    r = _session.patch(ENDPOINT_URL, json={"workers": {"idleTimeout": seconds}}, timeout=20)
    r.raise_for_status()


def queue_depth():
    r = _session.get(f"{JOB_URL}/health", timeout=10)
    r.raise_for_status()
    return r.json()["jobs"]["inQueue"]


def autoscale_once(busy_threshold=5):
    depth = queue_depth()
    current = describe()
    if depth > busy_threshold and current["max"] < 10:
        return scale(current["min"], current["max"] + 1)
    return current["max"]


def scenario(base_url, api_key, ids):
    _session.headers["Authorization"] = f"Bearer {api_key}"
    before = describe()
    new_max = scale(0, 4)
    set_idle_timeout(30)
    time.sleep(0)
    return {"before": before, "new_max": new_max, "after": describe(), "auto": autoscale_once()}
