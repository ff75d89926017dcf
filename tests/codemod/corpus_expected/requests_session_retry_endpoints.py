"""Endpoint ops: resize, tune idle timeout, toggle flashboot, retire.

The session retries idempotent calls on 429 and 5xx with backoff.
"""
from __future__ import annotations

import logging

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

log = logging.getLogger(__name__)


def make_session(api_key: str) -> requests.Session:
    session = requests.Session()
    retries = Retry(total=5, backoff_factor=0.5, status_forcelist=[429, 500, 502, 503, 504],
                    allowed_methods=frozenset({"GET", "DELETE", "PATCH"}))
    adapter = HTTPAdapter(max_retries=retries, pool_connections=4, pool_maxsize=8)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    session.headers.update({"Authorization": f"Bearer {api_key}", "Accept": "application/json"})
    return session


class EndpointOps:
    def __init__(self, api_key: str, api_url: str = "https://api.runpod.io/v2") -> None:
        self.api_url = api_url.rstrip("/")
        self.session = make_session(api_key)

    def endpoints(self) -> list[dict]:
        all_endpoints, paging = [], {}
        while True:
            resp = self.session.get(f"{self.api_url}/serverless", timeout=30, params=paging)
            resp.raise_for_status()
            page = resp.json()
            all_endpoints += page["endpoints"]
            if not page["pagination"]["hasNextPage"]:
                break
            paging = {"cursor": page["pagination"]["nextCursor"]}
        return all_endpoints

    def find(self, name: str) -> dict | None:
        return next((e for e in self.endpoints() if e["name"] == name), None)

    def resize(self, endpoint_id: str, lo: int, hi: int) -> dict:
        resp = self.session.patch(f"{self.api_url}/serverless/{endpoint_id}",
                                  json={"workers": {"min": lo, "max": hi}}, timeout=30)
        resp.raise_for_status()
        return resp.json()

    def tune(self, endpoint_id: str, idle_seconds: int, flashboot: bool) -> dict:
        resp = self.session.patch(f"{self.api_url}/serverless/{endpoint_id}",
                                  json={"workers": {"idleTimeout": idle_seconds}, "flashboot": "FLASHBOOT" if flashboot else "OFF"}, timeout=30)
        resp.raise_for_status()
        return resp.json()

    def retire(self, endpoint_id: str) -> None:
        resp = self.session.delete(f"{self.api_url}/serverless/{endpoint_id}", timeout=30)
        resp.raise_for_status()


def report(ops: EndpointOps) -> list[tuple]:
    return sorted((e["name"], e["workers"]["min"], e["workers"]["max"], e["workers"]["idleTimeout"]) for e in ops.endpoints())


def scenario(base_url, api_key, ids):
    ops = EndpointOps(api_key, api_url=base_url)
    seed = ops.find("seed-endpoint")
    resized = ops.resize(seed["id"], 1, 5)
    tuned = ops.tune(seed["id"], 45, True)
    rows = report(ops)
    ops.retire(seed["id"])
    return {"max": resized["workers"]["max"], "idle": tuned["workers"]["idleTimeout"], "rows": rows, "after": report(ops)}
