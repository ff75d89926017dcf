"""Pod + template client, halfway through the v2 migration.

Pods were moved to v2 in PR #412; templates still use v1 until the
template UI is rewritten.
"""
from __future__ import annotations

import os

import requests

REST_V1 = os.environ.get("RUNPOD_REST_URL", "https://api.runpod.io/v2")
REST_V2 = os.environ.get("RUNPOD_REST_V2_URL", "https://api.runpod.io/v2")


class Client:
    def __init__(self, api_key: str) -> None:
        self.s = requests.Session()
        self.s.headers["Authorization"] = f"Bearer {api_key}"

    # --- v2 (migrated) ---------------------------------------------------
    def pods(self) -> list[dict]:
        r = self.s.get(f"{REST_V2}/pods", timeout=30)
        r.raise_for_status()
        return r.json()["pods"]

    def stop(self, pod_id: str) -> dict:
        r = self.s.post(f"{REST_V2}/pods/{pod_id}/action", json={"action": "stop"}, timeout=30)
        if r.status_code >= 400:
            raise RuntimeError(r.json()["detail"])
        return r.json()

    def start(self, pod_id: str) -> dict:
        r = self.s.post(f"{REST_V2}/pods/{pod_id}/action", json={"action": "start"}, timeout=30)
        r.raise_for_status()
        return r.json()

    # --- v1 (not yet migrated) --------------------------------------------
    def templates(self) -> list[dict]:
        all_templates, paging = [], {}
        while True:
            r = self.s.get(f"{REST_V1}/templates", timeout=30, params=paging)
            r.raise_for_status()
            page = r.json()
            all_templates += page["templates"]
            if not page["pagination"]["hasNextPage"]:
                break
            paging = {"cursor": page["pagination"]["nextCursor"]}
        return all_templates

    def add_template(self, name: str, image: str) -> dict:
        r = self.s.post(f"{REST_V1}/templates", json={
            "name": name,
            "image": image,
            "disk": 8,
            "ports": ["8080/http"],
            "startSsh": False,
            "startJupyter": False,
        }, timeout=30)
        if r.status_code >= 400:
            raise RuntimeError(r.json()["detail"])
        return r.json()

    def drop_template(self, template_id: str) -> None:
        self.s.delete(f"{REST_V1}/templates/{template_id}", timeout=30).raise_for_status()


def scenario(base_url, api_key, ids):
    c = Client(api_key)
    stopped = c.stop(ids["pod"])["status"]
    started = c.start(ids["pod"])["status"]
    tpl = c.add_template("api-gw", "ghcr.io/acme/gw:9")
    names = [t["name"] for t in c.templates()]
    images = [t["image"] for t in c.templates()]
    c.drop_template(tpl["id"])
    return {"stopped": stopped, "started": started, "names": names, "images": images, "pods": len(c.pods())}
