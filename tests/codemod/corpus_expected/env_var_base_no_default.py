"""Pod reaper: stops pods that have been idle for too long.

The API base comes from the deployment (RUNPOD_API_URL has no default on
purpose: staging and production point it at different places).
"""
import logging
import os

import requests

log = logging.getLogger("reaper")

RUNPOD_API_URL = os.environ["RUNPOD_API_URL"]


def _session(api_key):
    s = requests.Session()
    s.headers["Authorization"] = f"Bearer {api_key}"
    return s


def candidates(session, keep_prefix="keep-"):
    # v1bridge: Q02 GET /pods on a base address the rewrite cannot trace to this service (set at run time): migrate base and path together by hand (iterate response[<key>] (pods, endpoints, templates, networkVolumes, registries, records))
    pods = session.get(f"{RUNPOD_API_URL}/pods", timeout=30).json()
    return [p for p in pods if p["desiredStatus"] == "RUNNING" and not p["name"].startswith(keep_prefix)]


def reap(api_key, dry_run=False):
    session = _session(api_key)
    stopped = []
    for pod in candidates(session):
        log.info("stopping %s (%s/h)", pod["name"], pod.get("costPerHr"))
        if not dry_run:
            # v1bridge: L04 POST /pods/{podId}/stop on a base address the rewrite cannot trace to this service (set at run time): migrate base and path together by hand (use PATCH on the resource and POST /v2/pods/{id}/action {action})
            session.post(f"{RUNPOD_API_URL}/pods/{pod['id']}/stop", timeout=30).raise_for_status()
        stopped.append(pod["name"])
    return stopped


def scenario(base_url, api_key, ids):
    return {"reaped": reap(api_key), "again": reap(api_key)}
