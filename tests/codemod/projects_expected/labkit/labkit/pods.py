"""Experiment pods: one per run, named after the experiment."""
import time

import v1bridge_compat

from .session import ApiError, RunPodSession

# what we are happy to train on, best first (the H100 NVL is almost never free)
GPU_FALLBACK = ["NVIDIA H100 NVL", "NVIDIA L40S", "NVIDIA RTX A6000"]
TRAIN_IMAGE = "ghcr.io/acme-lab/train:cu121"


def create(s: RunPodSession, name, gpus=None, gpu_count=1, volume_id=None, registry_auth_id=None, env=None):
    body = {
        "name": name,
        "image": TRAIN_IMAGE,
        "gpu": {"count": gpu_count, "minRamPerGpu": 8, "minVcpuCountPerGpu": 2},
        "cloud": "SECURE",
        "disk": 40,
        "ports": ["8888/http", "22/tcp"],
        "env": {"EXPERIMENT": name, **(env or {})},
        "mounts": {"persistent": {"size": 20, "path": "/workspace"}},
    }
    if volume_id:
        body["mounts"] = {"network": [{"volumeId": volume_id, "path": "/datasets"}]}
        body["dataCenterIds"] = [s.settings.data_center]
    if registry_auth_id:
        body["registry"] = registry_auth_id
    return v1bridge_compat.v1_view("pod", v1bridge_compat.create_with_fallback(lambda v2_body: s.call("POST", "pods", v2_body), body, gpus or GPU_FALLBACK, at="gpu.id", rank_with=lambda method, path, json=None: s.call(method=method, path=path, body=json)))


def list_pods(s: RunPodSession, status=None, name_prefix=None):
    params = {}
    if status:
        params["desiredStatus"] = status
    pods = v1bridge_compat.all_pages(lambda method, path, json=None: s.call(method=method, path=path, body=json), "/pods", params, op="pods.list")
    if name_prefix:
        pods = [p for p in pods if p["name"].startswith(name_prefix)]
    return v1bridge_compat.v1_view("pod", pods)


def get(s: RunPodSession, pod_id):
    r = s.get(f"pods/{pod_id}")
    r.raise_for_status()
    return v1bridge_compat.v1_view("pod", r.json())


def find(s: RunPodSession, name):
    return next((p for p in list_pods(s) if p["name"] == name), None)


def stop(s: RunPodSession, pod_id):
    s.call("POST", f"pods/{pod_id}/action", {"action": "stop"})


def start(s: RunPodSession, pod_id):
    s.call("POST", f"pods/{pod_id}/action", {"action": "start"})


def reset(s: RunPodSession, pod_id):
    # fresh container, same GPU and volume: what we do when a run wedges the driver
    v1bridge_compat.reset_pod(lambda method, path, json=None: s.call(method=method, path=path, body=json), pod_id)


def retag(s: RunPodSession, pod_id, image):
    return s.call("PATCH", f"pods/{pod_id}", {"image": image})


def terminate(s: RunPodSession, pod_id):
    try:
        s.call("DELETE", f"pods/{pod_id}")
    except ApiError as e:
        if e.status != 404:
            raise


def wait_until(s: RunPodSession, pod_id, status="RUNNING", timeout=900, every=10.0):
    deadline = time.monotonic() + timeout
    while True:
        pod = get(s, pod_id)
        if pod["desiredStatus"] == status:
            return pod
        if time.monotonic() > deadline:
            raise TimeoutError(f"{pod_id} is {pod['desiredStatus']}, wanted {status}")
        time.sleep(every)
