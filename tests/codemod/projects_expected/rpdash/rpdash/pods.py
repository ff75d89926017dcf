"""Pods: one function per REST call, the way the API reference lists them."""
import requests

import v1bridge_compat

from .settings import REST_API, headers


def list_pods():
    pods, paging = [], {}
    while True:
        resp = requests.get(f"{REST_API}/pods", headers=headers(), timeout=30, params=paging)
        resp.raise_for_status()
        page = resp.json()
        pods += page["pods"]
        if not page["pagination"]["hasNextPage"]:
            break
        paging = {"cursor": page["pagination"]["nextCursor"]}
    return pods


def get_pod(pod_id):
    resp = requests.get(f"{REST_API}/pods/{pod_id}", headers=headers(), timeout=30)
    resp.raise_for_status()
    return resp.json()


def create_pod(name, image, gpu_types, volume_gb=20):
    payload = {
        "name": name,
        "image": image,
        "gpu": {"count": 1, "minRamPerGpu": 8, "minVcpuCountPerGpu": 2},
        "disk": 10,
        "ports": ["8888/http", "22/tcp"],
        **({"mounts": {"persistent": {"size": volume_gb, "path": "/workspace"}}} if volume_gb else {}),
    }
    resp = v1bridge_compat.create_with_fallback(lambda v2_body: requests.post(f"{REST_API}/pods", headers=headers(), json=v2_body, timeout=60), payload, gpu_types, at="gpu.id", rank_with=lambda method, path, **kw: requests.request(method, REST_API + path, headers=headers(), timeout=60, **kw))
    resp.raise_for_status()
    return resp.json()


def stop_pod(pod_id):
    requests.post(f"{REST_API}/pods/{pod_id}/action", headers=headers(), timeout=30, json={"action": "stop"}).raise_for_status()


def terminate_pod(pod_id):
    resp = requests.delete(f"{REST_API}/pods/{pod_id}", headers=headers(), timeout=30)
    resp.raise_for_status()
