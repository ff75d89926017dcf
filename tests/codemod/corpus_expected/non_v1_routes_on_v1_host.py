"""Helpers written from memory of the GraphQL API and the v2 docs, pointed at the v1 host.

None of these routes existed in REST v1 (they answered 404 there).
"""
import os

import requests

BASE = "https://rest.runpod.io/v1"
OLD_HOST_BASE = "https://api.runpod.io/v1"


def _h():
    return {"Authorization": "Bearer " + os.environ.get("RUNPOD_API_KEY", "")}


def resume(pod_id):
    # v1bridge: L04 use PATCH on the resource and POST /v2/pods/{id}/action {action}
    return requests.post(f"{BASE}/pods/{pod_id}/resume", headers=_h(), timeout=30)


def terminate(pod_id):
    # v1bridge: L04 use PATCH on the resource and POST /v2/pods/{id}/action {action}
    return requests.post(f"{BASE}/pods/{pod_id}/terminate", headers=_h(), timeout=30)


def gpu_types():
    # v1bridge: L01 use /v2/serverless, /v2/network-volumes, /v2/registries (and /v2 before every path)
    return requests.get(BASE + "/gpuTypes", headers=_h(), timeout=30)


def first_pods(limit=10):
    # v1bridge: Q30 request again with cursor = pagination.nextCursor while pagination.hasNextPage is true, keeping every other parameter unchanged
    return requests.get(f"{BASE}/pods?limit={limit}", headers=_h(), timeout=30)


def volumes():
    # v1bridge: L01 use /v2/serverless, /v2/network-volumes, /v2/registries (and /v2 before every path)
    return requests.get(BASE + "/network-volumes", headers=_h(), timeout=30)


def pods_on_wrong_host():
    # v1bridge: L01 use /v2/serverless, /v2/network-volumes, /v2/registries (and /v2 before every path)
    return requests.get(OLD_HOST_BASE + "/pods", headers=_h(), timeout=30)
