"""Deploy-and-smoke-test for a serverless worker.

One `call()` helper for everything: the management API (endpoint config) and
the endpoint's job API (run, status, health, purge).
"""
import json
import os
import time
import urllib.request

REST_URL = os.environ.get("RUNPOD_REST_URL", "https://api.runpod.io/v2")
JOB_API_URL = os.environ.get("RUNPOD_ENDPOINT_URL", "https://api.runpod.ai/v2")


def call(method, url, body=None, api_key=None):
    headers = {"Authorization": "Bearer " + (api_key or os.environ["RUNPOD_API_KEY"])}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, headers=headers, method=method)
    with urllib.request.urlopen(req, timeout=60) as resp:
        raw = resp.read()
    return json.loads(raw) if raw else None


def set_workers(endpoint_id, lo, hi, api_key=None):
    return call("PATCH", f"{REST_URL}/serverless/{endpoint_id}", {"workers": {"min": lo, "max": hi}}, api_key)


def smoke(endpoint_id, api_key=None, polls=5):
    call("POST", f"{JOB_API_URL}/{endpoint_id}/purge-queue", {}, api_key)
    job = call("POST", f"{JOB_API_URL}/{endpoint_id}/run", {"input": {"prompt": "ping"}}, api_key)
    for _ in range(polls):
        status = call("GET", f"{JOB_API_URL}/{endpoint_id}/status/{job['id']}", api_key=api_key)
        if status["status"] in ("COMPLETED", "FAILED"):
            break
        time.sleep(1)
    sync = call("POST", f"{JOB_API_URL}/{endpoint_id}/runsync", {"input": {"prompt": "pong"}}, api_key)
    health = call("GET", f"{JOB_API_URL}/{endpoint_id}/health", api_key=api_key)
    return status["status"], sync["output"], health["workers"]


def deploy(endpoint_id, api_key=None):
    before = call("GET", f"{REST_URL}/serverless/{endpoint_id}", api_key=api_key)
    set_workers(endpoint_id, 1, max(before["workers"]["max"], 2), api_key)
    result = smoke(endpoint_id, api_key)
    after = call("GET", REST_URL + "/serverless/" + endpoint_id, api_key=api_key)
    set_workers(endpoint_id, 0, after["workers"]["max"], api_key)
    return result, after["workers"]["min"]


def scenario(base_url, api_key, ids):
    result, min_workers = deploy(ids["endpoint"], api_key)
    return {"result": list(result), "min": min_workers}
