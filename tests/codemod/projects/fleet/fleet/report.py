"""Text report of what the fleet costs right now (mailed every morning)."""
from . import pods, volumes
from .client import RunPodClient


def pod_line(client: RunPodClient, name):
    pod = pods.find(client, name)
    if pod is None:
        return f"{name}: gone"
    return f"{pod['name']}: {pod['desiredStatus']} {pod['image']} ${pod['costPerHr']:.3f}/h disk={pod['containerDiskInGb']}"


def volume_lines(client: RunPodClient):
    out = []
    for v in sorted(volumes.all_volumes(client), key=lambda v: v["name"]):
        out.append(f"{v['name']}: {v['size']} GB in {v['dataCenterId']}")
    return out
