"""Serverless endpoint provisioning (httpx.Client with base_url, retries, hooks)."""
from __future__ import annotations

import logging
import os

import httpx

log = logging.getLogger("provision")

RUNPOD_REST_API_URL = os.environ.get("RUNPOD_REST_API_URL", "https://api.runpod.io/v2")


def _log_response(response: httpx.Response) -> None:
    log.debug("%s %s -> %s", response.request.method, response.request.url.path, response.status_code)


class ProvisionError(Exception):
    pass


class EndpointProvisioner:
    def __init__(self, api_key: str) -> None:
        self.http = httpx.Client(
            base_url=RUNPOD_REST_API_URL,
            headers={"Authorization": f"Bearer {api_key}", "User-Agent": "acme-provisioner/2.3"},
            transport=httpx.HTTPTransport(retries=3),
            event_hooks={"response": [_log_response]},
            timeout=60,
        )

    def serverless_template(self, name: str, image: str) -> str:
        r = self.http.post("/templates", json={
            "name": name,
            "image": image,
            "serverless": True,
            "disk": 15,
            "ports": ["8888/http", "22/tcp"],
            "startSsh": False,
            "startJupyter": False,
        })
        r.raise_for_status()
        return r.json()["id"]

    def create_endpoint(self, name: str, template_id: str, max_workers: int = 2) -> dict:
        try:
            r = self.http.post(
                "/serverless",
                json={
                    "name": name,
                    "templateId": template_id,
                    "workers": {"min": 0, "max": max_workers, "idleTimeout": 15},
                    "timeout": 600000,
                    "cpu": [{"id": "cpu3c", "vcpuCount": 2}],
                    "scaling": {"type": "QUEUE_DELAY", "queueDelay": 4},
                    "type": "QUEUE",
                },
            )
            r.raise_for_status()
        except httpx.HTTPStatusError as exc:
            raise ProvisionError(exc.response.json()["detail"]) from exc
        return r.json()

    def remove_endpoint(self, endpoint_id: str) -> None:
        self.http.delete(f"/serverless/{endpoint_id}").raise_for_status()

    def names(self) -> list[str]:
        endpoints, paging = [], {}
        while True:
            page = self.http.get("/serverless", params=paging).json()
            endpoints += page["endpoints"]
            if not page["pagination"]["hasNextPage"]:
                break
            paging = {"cursor": page["pagination"]["nextCursor"]}
        return sorted(e["name"] for e in endpoints)


def scenario(base_url, api_key, ids):
    p = EndpointProvisioner(api_key)
    tpl = p.serverless_template("embed-tpl", "ghcr.io/acme/embed:5")
    ep = p.create_endpoint("embed", tpl, max_workers=3)
    names = p.names()
    try:
        p.create_endpoint("broken", "tpl-does-not-exist")
        err = None
    except ProvisionError:
        err = "refused"
    p.remove_endpoint(ep["id"])
    return {"names": names, "max": ep["workers"]["max"], "timeout": ep["timeout"], "err": err, "after": p.names()}
