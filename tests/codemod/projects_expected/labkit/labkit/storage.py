"""Shared datasets volume and the lab's private registry credential."""
import os

import v1bridge_compat

from .session import RunPodSession

REGISTRY_PATH = "registries"


def volume(s: RunPodSession, name, size_gb=50):
    for v in s.get("network-volumes").json()["networkVolumes"]:
        if v["name"] == name:
            return v1bridge_compat.v1_view("network_volume", v)
    return s.call("POST", "network-volumes", {"name": name, "size": size_gb, "dataCenter": s.settings.data_center})


def volumes(s: RunPodSession):
    return sorted(s.call("GET", "network-volumes")["networkVolumes"], key=lambda v: v["name"])


def drop_volume(s: RunPodSession, volume_id):
    s.call("DELETE", f"network-volumes/{volume_id}")


def registry_login(s: RunPodSession, name="acme-ghcr"):
    user = os.environ.get("GHCR_USER", "acme-bot")
    token = os.environ.get("GHCR_TOKEN", "ghp_dummy")
    for auth in s.call("GET", REGISTRY_PATH)["registries"]:
        if auth["name"] == name:
            return auth
    return s.call("POST", REGISTRY_PATH, {"name": name, "username": user, "password": token})


def registry_logout(s: RunPodSession, auth_id):
    s.call("DELETE", f"{REGISTRY_PATH}/{auth_id}")
