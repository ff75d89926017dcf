"""Batch render farm: cheap interruptible GPUs, any of several types, locked pods."""
import os

import requests

API = os.environ.get("RUNPOD_REST_API_URL", "https://rest.runpod.io/v1")
RENDER_GPUS = ["NVIDIA GeForce RTX 4090", "NVIDIA RTX A5000", "NVIDIA GeForce RTX 3090"]


class Farm:
    def __init__(self, api_key):
        self.s = requests.Session()
        self.s.headers["Authorization"] = "Bearer " + api_key

    def spot_node(self, index, image="ghcr.io/acme/blender:4.2"):
        body = {
            "name": f"render-{index:03d}",
            "imageName": image,
            "gpuTypeIds": RENDER_GPUS,
            "gpuTypePriority": "custom",
            "gpuCount": 1,
            "interruptible": True,
            "cloudType": "COMMUNITY",
            "containerDiskInGb": 25,
            "volumeInGb": 0,
            "minRAMPerGPU": 16,
            "supportPublicIp": False,
        }
        r = self.s.post(API + "/pods", json=body, timeout=60)
        r.raise_for_status()
        return r.json()

    def locked_coordinator(self, image="ghcr.io/acme/render-coord:4"):
        r = self.s.post(API + "/pods", json={
            "name": "render-coordinator", "imageName": image, "computeType": "CPU",
            "cpuFlavorIds": ["cpu3g", "cpu5g"], "vcpuCount": 4, "locked": True,
            "dockerEntrypoint": ["/usr/bin/tini", "--"], "dockerStartCmd": ["coord", "--port", "7000"],
            "volumeInGb": 0,
        }, timeout=60)
        r.raise_for_status()
        return r.json()

    def nodes(self):
        return [p for p in self.s.get(API + "/pods", timeout=30).json() if p["name"].startswith("render-")]

    def drain(self):
        for p in self.nodes():
            self.s.delete(API + "/pods/" + p["id"], timeout=30)


def scenario(base_url, api_key, ids):
    farm = Farm(api_key)
    coordinator = farm.locked_coordinator()
    nodes = farm.nodes()
    names = sorted(p["name"] for p in nodes)
    locked = [p["locked"] for p in nodes if p["id"] == coordinator["id"]]
    farm.drain()
    return {"names": names, "locked": locked, "after": len(farm.nodes())}
