"""Minimal pod helper used by our notebooks: the pods collection is the base."""
import os

import requests

PODS_URL = "https://api.runpod.io/v2/pods"
HEADERS = {"Authorization": f"Bearer {os.environ.get('RUNPOD_API_KEY', '')}"}


def pods():
    all_pods, paging = [], {}
    while True:
        page = requests.get(PODS_URL, headers=HEADERS, timeout=30, params=paging).json()
        all_pods += page["pods"]
        if not page["pagination"]["hasNextPage"]:
            break
        paging = {"cursor": page["pagination"]["nextCursor"]}
    return all_pods


def pod(pod_id):
    return requests.get(f"{PODS_URL}/{pod_id}", headers=HEADERS, timeout=30).json()


def stop(pod_id):
    r = requests.post(f"{PODS_URL}/{pod_id}/action", headers=HEADERS, timeout=30, json={"action": "stop"})
    r.raise_for_status()


def remove(pod_id):
    r = requests.delete(PODS_URL + "/" + pod_id, headers=HEADERS, timeout=30)
    r.raise_for_status()


def create(name, image):
    r = requests.post(PODS_URL, headers=HEADERS, json={
        "name": name,
        "image": image,
        "cpu": {"id": "cpu5c", "vcpuCount": 2},
        "disk": 5,
        "ports": [],
    }, timeout=60)
    r.raise_for_status()
    return r.json()


def scenario(base_url, api_key, ids):
    HEADERS["Authorization"] = f"Bearer {api_key}"
    new = create("nb-scratch", "jupyter/base-notebook:latest")
    stop(new["id"])
    state = pod(new["id"])["status"]
    names = sorted(p["name"] for p in pods())
    remove(new["id"])
    return {"state": state, "names": names, "after": len(pods())}
