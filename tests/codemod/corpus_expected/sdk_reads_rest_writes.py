"""Reads through the provider SDK, writes through raw REST (the SDK had no stop at the time)."""
import logging
import os

import requests

try:
    import runpod  # type: ignore
except ImportError:  # the CI image does not ship the SDK
    runpod = None

log = logging.getLogger("sdkmix")

REST_BASE = os.getenv("RUNPOD_REST_API_URL", "https://api.runpod.io/v2")


def running_pod_ids():
    if runpod is None:
        return []
    runpod.api_key = os.environ["RUNPOD_API_KEY"]
    return [p["id"] for p in runpod.get_pods() if p.get("desiredStatus") == "RUNNING"]


def stop(pod_id, api_key=None):
    key = api_key or os.environ["RUNPOD_API_KEY"]
    r = requests.post(f"{REST_BASE}/pods/{pod_id}/action", headers={"Authorization": f"Bearer {key}"}, timeout=30, json={"action": "stop"})
    if r.status_code >= 400:
        log.error("stop %s failed: %s", pod_id, r.json().get("detail"))
        return False
    return True


def relabel(pod_id, name, api_key=None):
    key = api_key or os.environ["RUNPOD_API_KEY"]
    r = requests.patch(f"{REST_BASE}/pods/{pod_id}", json={"name": name}, headers={"Authorization": f"Bearer {key}"}, timeout=30)
    r.raise_for_status()
    return r.json()["name"]


def stop_all():
    return {pid: stop(pid) for pid in running_pod_ids()}


def scenario(base_url, api_key, ids):
    renamed = relabel(ids["pod"], "seed-pod-night", api_key)
    return {"renamed": renamed, "stopped": stop(ids["pod"], api_key), "again": stop(ids["pod"], api_key)}
