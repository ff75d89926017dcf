"""Roll a pod to a new image and start command (no recreate, keeps the volume)."""
import shlex

import requests


class Roller:
    def __init__(self, api_key, rest_url="https://api.runpod.io/v2"):
        self.rest_url = rest_url.rstrip("/")
        self.headers = {"Authorization": "Bearer " + api_key}

    def roll(self, pod_id, image, command):
        argv = shlex.split(command)
        r = requests.patch(
            f"{self.rest_url}/pods/{pod_id}",
            json={"image": image, "cmd": argv, "disk": 25},
            headers=self.headers,
            timeout=60,
        )
        r.raise_for_status()
        return r.json()

    def set_env(self, pod_id, env):
        r = requests.patch(f"{self.rest_url}/pods/{pod_id}", json={"env": env}, headers=self.headers, timeout=60)
        r.raise_for_status()
        return r.json()["env"]

    def current(self, pod_id):
        pod = requests.get(f"{self.rest_url}/pods/{pod_id}", headers=self.headers, timeout=30).json()
        return pod["image"], pod["cmd"], pod["disk"]


def scenario(base_url, api_key, ids):
    r = Roller(api_key, rest_url=base_url)
    r.roll(ids["pod"], "python:3.12-slim", "python -m http.server 8080")
    env = r.set_env(ids["pod"], {"MODE": "canary"})
    return {"current": list(r.current(ids["pod"])), "env": env}
