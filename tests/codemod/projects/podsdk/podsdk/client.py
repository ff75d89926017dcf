import os

import requests

API = "https://rest.runpod.io/v1"


class RunPodClient:
    def __init__(self, api_key=None, base_url=API, timeout=30):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.session = requests.Session()
        self.session.headers["Authorization"] = "Bearer " + (api_key or os.environ["RUNPOD_API_KEY"])

    def create_pod(self, name, gpu, disk_gb=20):
        r = self.session.post(f"{self.base_url}/pods", json={
            "name": name,
            "imageName": "runpod/base:0.6.2-cuda12.2.0",
            "gpuTypeIds": [gpu],
            "gpuCount": 1,
            "containerDiskInGb": disk_gb,
        }, timeout=self.timeout)
        r.raise_for_status()
        return r.json()

    def pod(self, pod_id):
        r = self.session.get(f"{self.base_url}/pods/{pod_id}", timeout=self.timeout)
        r.raise_for_status()
        return r.json()

    def stop(self, pod_id):
        self.session.post(f"{self.base_url}/pods/{pod_id}/stop", timeout=self.timeout).raise_for_status()
