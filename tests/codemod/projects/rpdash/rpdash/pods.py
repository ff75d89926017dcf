"""Pods: one function per REST call, the way the API reference lists them."""
import requests

from .settings import REST_API, headers


def list_pods():
    resp = requests.get(f"{REST_API}/pods", headers=headers(), timeout=30)
    resp.raise_for_status()
    return resp.json()


def get_pod(pod_id):
    resp = requests.get(f"{REST_API}/pods/{pod_id}", headers=headers(), timeout=30)
    resp.raise_for_status()
    return resp.json()


def create_pod(name, image, gpu_types, volume_gb=20):
    payload = {
        "name": name,
        "imageName": image,
        "gpuTypeIds": gpu_types,
        "gpuCount": 1,
        "volumeInGb": volume_gb,
        "containerDiskInGb": 10,
        "ports": ["8888/http", "22/tcp"],
    }
    resp = requests.post(f"{REST_API}/pods", headers=headers(), json=payload, timeout=60)
    resp.raise_for_status()
    return resp.json()


def stop_pod(pod_id):
    requests.post(f"{REST_API}/pods/{pod_id}/stop", headers=headers(), timeout=30).raise_for_status()


def terminate_pod(pod_id):
    resp = requests.delete(f"{REST_API}/pods/{pod_id}", headers=headers(), timeout=30)
    resp.raise_for_status()
