import os

import requests

API = "https://api.runpod.io/v2"


class RunPodClient:
    def __init__(self, api_key=None, base_url=API, timeout=30):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.session = requests.Session()
        self.session.headers["Authorization"] = "Bearer " + (api_key or os.environ["RUNPOD_API_KEY"])

    def create_pod(self, name, gpu, disk_gb=20):
        r = self.session.post(f"{self.base_url}/pods", json={
            "name": name,
            "image": "runpod/base:0.6.2-cuda12.2.0",
            "gpu": {"id": gpu, "count": 1, "minRamPerGpu": 8, "minVcpuCountPerGpu": 2},
            "disk": disk_gb,
            "ports": ["8888/http", "22/tcp"],
            "mounts": {"persistent": {"size": 20, "path": "/workspace"}},
        }, timeout=self.timeout)
        r.raise_for_status()
        return r.json()

    def pod(self, pod_id):
        r = self.session.get(f"{self.base_url}/pods/{pod_id}", timeout=self.timeout)
        r.raise_for_status()
        return r.json()

    def stop(self, pod_id):
        self.session.post(f"{self.base_url}/pods/{pod_id}/action", timeout=self.timeout, json={"action": "stop"}).raise_for_status()
