"""Endpoint inventory for the on-call dashboard.

The base is looked up on every call so a long-running worker picks up a
changed RUNPOD_REST_URL without a restart.
"""
import os

import requests

DEFAULT_REST_URL = "https://api.runpod.io/v2"
DEFAULT_TIMEOUT = (3.05, 27)


def rest_base():
    return os.environ.get("RUNPOD_REST_URL", DEFAULT_REST_URL).rstrip("/")


def _headers():
    return {"Authorization": "Bearer " + os.environ["RUNPOD_API_KEY"]}


def endpoints():
    data, paging = [], {}
    while True:
        r = requests.get(rest_base() + "/serverless", headers=_headers(), timeout=DEFAULT_TIMEOUT, params=paging)
        r.raise_for_status()
        page = r.json()
        data += page["endpoints"]
        if not page["pagination"]["hasNextPage"]:
            break
        paging = {"cursor": page["pagination"]["nextCursor"]}
    # older deployments of our mock server wrapped the list
    items = data["endpoints"] if isinstance(data, dict) else data
    return [{"id": e["id"], "name": e["name"], "max": e["workers"]["max"], "min": e["workers"]["min"]} for e in items]


def endpoint(endpoint_id):
    r = requests.get(f"{rest_base()}/serverless/{endpoint_id}", headers=_headers(), timeout=DEFAULT_TIMEOUT)
    if r.status_code == 404:
        return None
    r.raise_for_status()
    return r.json()


def rows():
    out = []
    for e in endpoints():
        detail = endpoint(e["id"]) or {}
        out.append((e["name"], e["min"], e["max"], detail.get("workers", {}).get("idleTimeout")))
    return sorted(out)


def scenario(base_url, api_key, ids):
    return {"rows": rows(), "missing": endpoint("nope")}
