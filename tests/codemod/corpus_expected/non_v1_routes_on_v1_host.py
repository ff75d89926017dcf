"""Helpers written from memory of the GraphQL API and the v2 docs, pointed at the v1 host.

None of these routes existed in REST v1 (they answered 404 there).
"""
import os

import requests

import v1bridge_compat

BASE = "https://api.runpod.io/v2"
OLD_HOST_BASE = "https://api.runpod.io/v1"


def _h():
    return {"Authorization": "Bearer " + os.environ.get("RUNPOD_API_KEY", "")}


def resume(pod_id):
    # v1bridge: L04 POST /pods/{?}/resume is a route of neither v1 nor v2 (it answered 404 on both); GraphQL's podResume is POST /v2/pods/{id}/action {action: start} on v2: what it should call is a person's to say: use PATCH on the resource and POST /v2/pods/{id}/action {action}
    return v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, headers=_h(), timeout=30, **kw), "POST", f"{BASE}/pods/{pod_id}/resume")


def terminate(pod_id):
    # v1bridge: L04 POST /pods/{?}/terminate is a route of neither v1 nor v2 (it answered 404 on both); GraphQL's podTerminate is DELETE /v2/pods/{id} on v2: what it should call is a person's to say: use PATCH on the resource and POST /v2/pods/{id}/action {action}
    return v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, headers=_h(), timeout=30, **kw), "POST", f"{BASE}/pods/{pod_id}/terminate")


def gpu_types():
    # v1bridge: L01 GET /gpuTypes is a route of neither v1 nor v2 (it answered 404 on both); GraphQL's gpuTypes is GET /v2/catalog/gpus on v2: what it should call is a person's to say: use /v2/serverless, /v2/network-volumes, /v2/registries (and /v2 before every path)
    return v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, headers=_h(), timeout=30, **kw), "GET", BASE + "/gpuTypes")


def first_pods(limit=10):
    return v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, headers=_h(), timeout=30, **kw), "GET", f"{BASE}/pods?limit={limit}")


def volumes():
    return requests.get(BASE + "/network-volumes", headers=_h(), timeout=30)


def pods_on_wrong_host():
    # v1bridge: L01 GET /pods on a v1 prefix of the v2 host, where v1 was never served (the call answered 404): a person must confirm what it should do: use /v2/serverless, /v2/network-volumes, /v2/registries (and /v2 before every path)
    return requests.get(OLD_HOST_BASE + "/pods", headers=_h(), timeout=30)
