"""Pod client with an injectable HTTP layer.

Production passes the `requests` module; the unit tests pass a scripted fake
with the same `request(method, url, **kw)` signature.
"""
from __future__ import annotations

import json
import urllib.parse
from typing import Any, Protocol

import requests


class HttpLike(Protocol):
    def request(self, method: str, url: str, **kwargs: Any) -> Any: ...


class RunpodRest:
    def __init__(self, api_key: str, http: HttpLike = requests, base: str = "https://api.runpod.io/v2") -> None:
        self.http = http
        self.base = base.rstrip("/")
        self.api_key = api_key

    def rest(self, method: str, path: str, body: dict | None = None) -> Any:
        resp = self.http.request(
            method,
            f"{self.base}{path}",
            headers={"Authorization": f"Bearer {self.api_key}", "Content-Type": "application/json"},
            data=json.dumps(body) if body is not None else None,
            timeout=30,
        )
        if resp.status_code >= 400:
            raise RuntimeError(resp.json()["detail"])
        return resp.json() if resp.content else None

    def pods(self) -> list[dict]:
        all_pods, paging = [], ""
        while True:
            page = self.rest("GET", "/pods" + paging)
            all_pods += page["pods"]
            if not page["pagination"]["hasNextPage"]:
                break
            paging = "?" + urllib.parse.urlencode({"cursor": page["pagination"]["nextCursor"]})
        return all_pods

    def rename(self, pod_id: str, name: str) -> dict:
        return self.rest("PATCH", f"/pods/{pod_id}", {"name": name})

    def restart(self, pod_id: str) -> None:
        self.rest("POST", f"/pods/{pod_id}/action", {"action": "restart"})


def rename_all(client: RunpodRest, prefix: str) -> list[str]:
    renamed = []
    for pod in client.pods():
        if not pod["name"].startswith(prefix):
            renamed.append(client.rename(pod["id"], prefix + pod["name"])["name"])
    return renamed


def scenario(base_url, api_key, ids):
    client = RunpodRest(api_key, http=requests, base=base_url)
    renamed = rename_all(client, "team-")
    client.restart(ids["pod"])
    try:
        client.rename("missing-pod", "x")
        err = None
    except RuntimeError:
        err = "refused"
    return {"renamed": renamed, "again": rename_all(client, "team-"), "err": err}
