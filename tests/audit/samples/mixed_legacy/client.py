"""Legacy pod manager (v1)."""
import requests

BASE = "https://rest.runpod.io/v1"
HEADERS = {"Authorization": "Bearer x"}


def create_pod():
    body = {"name": "trainer", "imageName": "repo/img:1", "gpuTypeIds": ["NVIDIA A40"], "containerDiskInGb": 40}
    return requests.post(f"{BASE}/pods", json=body, headers=HEADERS).json()


def reset(pod_id):
    return requests.post(f"{BASE}/pods/{pod_id}/reset", headers=HEADERS)


def volumes():
    for v in requests.get(BASE + "/networkvolumes", headers=HEADERS).json():
        print(v["id"])


def is_running(pod):
    return pod["desiredStatus"] == "RUNNING"
