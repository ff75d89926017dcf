from .client import RunPodClient, RunPodError

DEFAULT_IMAGE = "ghcr.io/acme/worker:2024.11"


def launch(client: RunPodClient, name, gpu_types=("NVIDIA B200", "NVIDIA GeForce RTX 4090"), count=1, image=DEFAULT_IMAGE,
           volume_id=None):
    body = {
        "name": name,
        "imageName": image,
        "gpuTypeIds": list(gpu_types),
        "gpuCount": count,
        "containerDiskInGb": 30,
        "ports": ["8000/http"],
        "env": {"ROLE": "worker", "FLEET": "1"},
    }
    if volume_id:
        body["networkVolumeId"] = volume_id
        body["volumeMountPath"] = "/data"
    return client.post("pods", body)


def running(client: RunPodClient):
    return [p for p in client.get("pods") if p.get("desiredStatus") == "RUNNING"]


def find(client: RunPodClient, name):
    for pod in client.get("pods"):
        if pod["name"] == name:
            return client.get(f"pods/{pod['id']}")
    return None


def restart(client: RunPodClient, pod_id):
    client.post(f"pods/{pod_id}/restart")


def retire(client: RunPodClient, pod_id):
    try:
        client.post(f"pods/{pod_id}/stop")
    except RunPodError as e:
        if e.status != 404:
            raise
    client.delete(f"pods/{pod_id}")
