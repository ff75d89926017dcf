"""Container registry credentials for private images."""
import logging

import requests

log = logging.getLogger(__name__)


class RegistryCredentials:
    """Manage container registry auths (the creds pods use to pull private images)."""

    def __init__(self, api_key, rest_url="https://api.runpod.io/v2/", timeout=15):
        self.api_key = api_key
        self.rest_url = rest_url.rstrip("/")
        self.timeout = timeout

    def _call(self, method, path, payload=None):
        resp = requests.request(
            method,
            self.rest_url + path,
            json=payload,
            headers={"Authorization": "Bearer " + self.api_key},
            timeout=self.timeout,
        )
        if resp.status_code == 404:
            return None
        resp.raise_for_status()
        return resp.json() if resp.text else None

    def list(self):
        return (self._call("GET", "/registries") or {}).get("registries", [])

    def get(self, auth_id):
        return self._call("GET", "/registries/" + auth_id)

    def add(self, name, username, password):
        log.info("adding registry credentials %s for %s", name, username)
        return self._call("POST", "/registries", {"name": name, "username": username, "password": password})

    def remove(self, auth_id):
        self._call("DELETE", "/registries/" + auth_id)

    def ensure(self, name, username, password):
        for cred in self.list():
            if cred["name"] == name:
                return cred["id"]
        return self.add(name, username, password)["id"]


def scenario(base_url, api_key, ids):
    creds = RegistryCredentials(api_key, rest_url=base_url + "/")
    first = creds.ensure("ghcr-acme", "bot", "s3cret")
    again = creds.ensure("ghcr-acme", "bot", "s3cret")
    other = creds.add("dockerhub", "acme", "hunter2")
    names = sorted(c["name"] for c in creds.list())
    creds.remove(other["id"])
    return {"same": first == again, "names": names, "got": creds.get(first)["name"], "gone": creds.get("nope")}
