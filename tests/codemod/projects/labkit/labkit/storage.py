"""Shared datasets volume and the lab's private registry credential."""
import os

from .session import RunPodSession

REGISTRY_PATH = "containerregistryauth"


def volume(s: RunPodSession, name, size_gb=50):
    for v in s.get("networkvolumes").json():
        if v["name"] == name:
            return v
    return s.call("POST", "networkvolumes", {"name": name, "size": size_gb, "dataCenterId": s.settings.data_center})


def volumes(s: RunPodSession):
    return sorted(s.call("GET", "networkvolumes"), key=lambda v: v["name"])


def drop_volume(s: RunPodSession, volume_id):
    s.call("DELETE", f"networkvolumes/{volume_id}")


def registry_login(s: RunPodSession, name="acme-ghcr"):
    user = os.environ.get("GHCR_USER", "acme-bot")
    token = os.environ.get("GHCR_TOKEN", "ghp_dummy")
    for auth in s.call("GET", REGISTRY_PATH):
        if auth["name"] == name:
            return auth
    return s.call("POST", REGISTRY_PATH, {"name": name, "username": user, "password": token})


def registry_logout(s: RunPodSession, auth_id):
    s.call("DELETE", f"{REGISTRY_PATH}/{auth_id}")
