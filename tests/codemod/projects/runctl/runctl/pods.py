from .http import API_BASE, call, get

DEFAULT_IMAGE = "runpod/pytorch:2.1.0-py3.10-cuda11.8.0-devel-ubuntu22.04"


def launch(name, gpu, image=DEFAULT_IMAGE, disk_gb=30):
    body = {
        "name": name,
        "imageName": image,
        "gpuTypeIds": [gpu],
        "gpuCount": 1,
        "containerDiskInGb": disk_gb,
        "ports": ["8888/http"],
    }
    return call("POST", f"{API_BASE}/pods", body)


def listing(status=None):
    params = {"desiredStatus": status} if status else None
    return get(API_BASE + "/pods", params=params)


def names():
    return sorted(p["name"] for p in get(f"{API_BASE}/pods"))


def status(pod_id):
    return get(f"{API_BASE}/pods/{pod_id}")["desiredStatus"]


def stop(pod_id):
    call("POST", f"{API_BASE}/pods/{pod_id}/stop")


def start(pod_id):
    call("POST", f"{API_BASE}/pods/{pod_id}/start")


def remove(pod_id):
    call("DELETE", f"{API_BASE}/pods/{pod_id}")
