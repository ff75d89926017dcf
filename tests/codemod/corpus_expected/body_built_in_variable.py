"""Launch CPU preprocessing pods for the nightly ETL.

The payload is assembled step by step because half of it depends on the job
spec coming from the scheduler.
"""
import json
import logging
import os

import requests

log = logging.getLogger("etl.launch")

RUNPOD_API_URL = os.environ.get("RUNPOD_API_URL", "https://api.runpod.io/v2")


def _headers(api_key):
    return {"Authorization": "Bearer %s" % api_key, "Content-Type": "application/json"}


def launch(api_key, job):
    payload = {
        "name": "etl-" + job["name"],
        "image": job.get("image", "python:3.12-slim"),
        "cpu": {"id": job.get("flavor", "cpu3g"), "vcpuCount": job.get("vcpus", 2)},
        "ports": ["8888/http", "22/tcp"],
    }
    payload["disk"] = job.get("disk", 20)
    if job.get("env"):
        payload["env"] = dict(job["env"])
    if job.get("ports"):
        payload["ports"] = list(job["ports"])
    log.info("launching %s", payload["name"])
    resp = requests.post(RUNPOD_API_URL + "/pods", data=json.dumps(payload), headers=_headers(api_key), timeout=60)
    if resp.status_code not in (200, 201):
        raise RuntimeError("launch failed (%s): %s" % (resp.status_code, resp.json()["detail"]))
    return resp.json()


def relabel(api_key, pod_id, name, env=None):
    changes = {"name": name}
    if env is not None:
        changes["env"] = env
    resp = requests.patch(RUNPOD_API_URL + "/pods/" + pod_id, data=json.dumps(changes), headers=_headers(api_key), timeout=30)
    resp.raise_for_status()
    return resp.json()


def teardown(api_key, pod_id):
    requests.delete(RUNPOD_API_URL + "/pods/" + pod_id, headers=_headers(api_key), timeout=30).raise_for_status()


def scenario(base_url, api_key, ids):
    pod = launch(api_key, {"name": "dedupe", "vcpus": 4, "env": {"STAGE": "dedupe"}, "ports": ["9000/http"]})
    plain = launch(api_key, {"name": "plain"})
    renamed = relabel(api_key, pod["id"], "etl-dedupe-2", env={"STAGE": "dedupe", "RETRY": "1"})
    try:
        launch(api_key, {"name": "bad", "flavor": "cpu9x"})
        bad = None
    except RuntimeError:
        bad = "refused"
    teardown(api_key, plain["id"])
    teardown(api_key, pod["id"])
    return {"renamed": renamed["name"], "env": renamed["env"], "bad": bad}
