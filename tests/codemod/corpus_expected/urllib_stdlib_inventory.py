"""Nightly inventory for the ops dashboard: stdlib only (runs in the distroless cron image).

Lists every pod and endpoint of the account and renames the pod the
dashboard marks as retired. No third-party HTTP library: plain urllib, with an opener that
never follows redirects (a redirect would drop the Authorization header).
"""
import json
import os
import urllib.parse
import urllib.request

RUNPOD_REST = os.environ.get("RUNPOD_REST", "https://api.runpod.io/v2")
API_KEY = os.environ.get("RUNPOD_API_KEY", "")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_opener = urllib.request.build_opener(_NoRedirect)


def _headers():
    return {"Authorization": f"Bearer {API_KEY}", "Accept": "application/json"}


def all_pods():
    pods, paging = [], ""
    while True:
        req = urllib.request.Request(RUNPOD_REST + "/pods" + paging, headers=_headers())
        with urllib.request.urlopen(req, timeout=30) as resp:
            page = json.load(resp)
        pods += page["pods"]
        if not page["pagination"]["hasNextPage"]:
            break
        paging = "?" + urllib.parse.urlencode({"cursor": page["pagination"]["nextCursor"]})
    return pods


def endpoint_names():
    endpoints, paging = [], ""
    while True:
        req = urllib.request.Request(f"{RUNPOD_REST}/serverless" + paging, headers=_headers(), method="GET")
        resp = _opener.open(req, timeout=30)
        if resp.status != 200:
            raise RuntimeError(f"listing endpoints failed: HTTP {resp.status}")
        page = json.loads(resp.read().decode("utf-8"))
        endpoints += page["endpoints"]
        if not page["pagination"]["hasNextPage"]:
            break
        paging = "?" + urllib.parse.urlencode({"cursor": page["pagination"]["nextCursor"]})
    return sorted(e["name"] for e in endpoints)


def rename_pod(pod_id, name):
    body = json.dumps({"name": name}).encode("utf-8")
    req = urllib.request.Request(f"{RUNPOD_REST}/pods/{pod_id}", data=body, method="PATCH",
                                 headers={**_headers(), "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.load(resp)["name"]


def scenario(base_url, api_key, ids):
    before = sorted(p["name"] for p in all_pods())
    renamed = rename_pod(ids["pod"], "retired-" + before[0])
    return {"pods": before, "endpoints": endpoint_names(), "renamed": renamed,
            "after": sorted(p["name"] for p in all_pods())}
