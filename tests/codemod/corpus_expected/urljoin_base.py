"""Pod lookup helpers built on urljoin (the base keeps its trailing slash)."""
from urllib.parse import urljoin

import requests

RUNPOD_REST_API_URL = "https://api.runpod.io/v2/"


class Lookup:
    def __init__(self, api_key, base=RUNPOD_REST_API_URL):
        if not base.endswith("/"):
            base += "/"
        self.base = base
        self.headers = {"Authorization": f"Bearer {api_key}"}

    def pods(self):
        all_pods, paging = [], {}
        while True:
            page = requests.get(urljoin(self.base, "pods"), headers=self.headers, timeout=20, params=paging).json()
            all_pods += page["pods"]
            if not page["pagination"]["hasNextPage"]:
                break
            paging = {"cursor": page["pagination"]["nextCursor"]}
        return all_pods

    def pod(self, pod_id):
        return requests.get(urljoin(self.base, f"pods/{pod_id}"), headers=self.headers, timeout=20).json()

    def by_name(self, name):
        matches = [p for p in self.pods() if p["name"] == name]
        return matches[0] if matches else None

    def image_of(self, pod_id):
        return self.pod(pod_id)["image"]


def scenario(base_url, api_key, ids):
    lk = Lookup(api_key, base=base_url)
    seed = lk.by_name("seed-pod")
    return {"found": seed is not None, "image": lk.image_of(ids["pod"]), "none": lk.by_name("ghost")}
