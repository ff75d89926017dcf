"""Batch render farm: cheap interruptible GPUs, any of several types, locked pods."""
import os

import requests

import v1bridge_compat

API = os.environ.get("RUNPOD_REST_API_URL", "https://api.runpod.io/v2")
RENDER_GPUS = ["NVIDIA GeForce RTX 4090", "NVIDIA RTX A5000", "NVIDIA GeForce RTX 3090"]


class Farm:
    def __init__(self, api_key):
        self.s = requests.Session()
        self.s.headers["Authorization"] = "Bearer " + api_key

    def spot_node(self, index, image="ghcr.io/acme/blender:4.2"):
        # v1bridge: R03 v1 body field 'interruptible': create an on-demand pod, or stay on a product that offers spot capacity
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
        # v1bridge: R03 v1 body field 'interruptible': create an on-demand pod, or stay on a product that offers spot capacity
        r = v1bridge_compat.call_v1(lambda method, url, **kw: self.s.request(method, url, timeout=60, **kw), "POST", API + "/pods", json=body)
        r.raise_for_status()
        return r.json()

    def locked_coordinator(self, image="ghcr.io/acme/render-coord:4"):
        r = v1bridge_compat.create_with_fallback(lambda v2_body: self.s.post(API + "/pods", json=v2_body, timeout=60), {
            "name": "render-coordinator",
            "image": image,
            "cpu": {"vcpuCount": 4},
            "entrypoint": ["/usr/bin/tini", "--"],
            "cmd": ["coord", "--port", "7000"],
            "disk": 50,
            "ports": ["8888/http", "22/tcp"],
        }, ["cpu3g", "cpu5g"], at="cpu.id", rank_with=lambda method, path, **kw: self.s.request(method, API + path, timeout=60, **kw), after={"locked": True})
        r.raise_for_status()
        return r.json()

    def nodes(self):
        pods, paging = [], {}
        while True:
            page = self.s.get(API + "/pods", timeout=30, params=paging).json()
            pods += page["pods"]
            if not page["pagination"]["hasNextPage"]:
                break
            paging = {"cursor": page["pagination"]["nextCursor"]}
        return [p for p in pods if p["name"].startswith("render-")]

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
