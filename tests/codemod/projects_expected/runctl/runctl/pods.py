import v1bridge_compat

from .http import API_BASE, call, get

DEFAULT_IMAGE = "runpod/pytorch:2.1.0-py3.10-cuda11.8.0-devel-ubuntu22.04"


def launch(name, gpu, image=DEFAULT_IMAGE, disk_gb=30):
    body = {
        "name": name,
        "image": image,
        "gpu": {"id": gpu, "count": 1, "minRamPerGpu": 8, "minVcpuCountPerGpu": 2},
        "disk": disk_gb,
        "ports": ["8888/http"],
        "mounts": {"persistent": {"size": 20, "path": "/workspace"}},
    }
    return call("POST", f"{API_BASE}/pods", body)


def listing(status=None):
    params = {"desiredStatus": status} if status else None
    return v1bridge_compat.call_v1(v1bridge_compat.by_method(get=get), "GET", API_BASE + "/pods", params=params)


def names():
    pods, paging = [], {}
    while True:
        page = get(f"{API_BASE}/pods", params=paging)
        pods += page["pods"]
        if not page["pagination"]["hasNextPage"]:
            break
        paging = {"cursor": page["pagination"]["nextCursor"]}
    return sorted(p["name"] for p in pods)


def status(pod_id):
    return get(f"{API_BASE}/pods/{pod_id}")["status"]


def stop(pod_id):
    call("POST", f"{API_BASE}/pods/{pod_id}/action", {"action": "stop"})


def start(pod_id):
    call("POST", f"{API_BASE}/pods/{pod_id}/action", {"action": "start"})


def remove(pod_id):
    call("DELETE", f"{API_BASE}/pods/{pod_id}")
