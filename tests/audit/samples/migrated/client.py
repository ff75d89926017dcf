"""Pod manager (v2), with a rollback path kept on v1 on purpose."""
import requests

BASE = "https://api.runpod.io/v2"
LEGACY = "https://rest.runpod.io/v1"  # v1bridge: keep-v1
HEADERS = {"Authorization": "Bearer x"}


def create_pod():
    # was imageName / gpuTypeIds
    body = {"name": "trainer", "image": "repo/img:1", "gpu": {"id": "NVIDIA A40"}, "disk": 40}
    return requests.post(f"{BASE}/pods", json=body, headers=HEADERS).json()


def volumes():
    for v in requests.get(BASE + "/network-volumes", headers=HEADERS).json()["networkVolumes"]:
        print(v["id"])


def rollback_stop(pod_id):
    return requests.post(f"{LEGACY}/pods/{pod_id}/stop", headers=HEADERS)  # v1bridge: keep-v1
