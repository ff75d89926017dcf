from .api import _delete, _get, _post

# cheapest first; H100 NVL is almost never there but worth a try
GPU_PREFERENCE = ["NVIDIA H100 NVL", "NVIDIA A40", "NVIDIA GeForce RTX 4090"]
IMAGE = "runpod/pytorch:2.1.0-py3.10-cuda11.8.0-devel-ubuntu22.04"


def create_pod(name, image=IMAGE, gpus=None, gpu_count=1, volume_gb=0, env=None):
    body = {
        "name": name,
        "imageName": image,
        "gpuTypeIds": gpus or GPU_PREFERENCE,
        "gpuCount": gpu_count,
        "cloudType": "SECURE",
        "containerDiskInGb": 20,
        "volumeInGb": volume_gb,
        "ports": ["8888/http", "22/tcp"],
        "env": env or {},
    }
    if volume_gb:
        body["volumeMountPath"] = "/workspace"
    return _post("/pods", body)


def list_pods(status=None, gpu=None):
    q = {}
    if status:
        q["desiredStatus"] = status
    if gpu:
        q["gpuTypeId"] = gpu
    return _get("/pods", q)


def get_pod(pod_id):
    return _get(f"/pods/{pod_id}")


def stop_pod(pod_id):
    return _post(f"/pods/{pod_id}/stop")


def reset_pod(pod_id):
    # reset = restart the container from scratch, keeps the GPU
    return _post(f"/pods/{pod_id}/reset")


def terminate_pod(pod_id):
    _delete(f"/pods/{pod_id}")


def ssh_command(pod_id):
    pod = get_pod(pod_id)
    ip = pod.get("publicIp")
    port = (pod.get("portMappings") or {}).get("22")
    if not ip or not port:
        return None
    return f"ssh root@{ip} -p {port} -i ~/.ssh/id_ed25519"
