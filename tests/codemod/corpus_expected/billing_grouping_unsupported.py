"""GPU-type cost breakdown for the finance dashboard."""
import collections
import os

import requests

import v1bridge_compat

RUNPOD_REST_URL = os.environ.get("RUNPOD_REST_URL", "https://api.runpod.io/v2")
SESSION = requests.Session()


def gpu_breakdown(api_key, gpu_type=None, bucket="week"):
    params = {"bucketSize": bucket, "grouping": "gpuTypeId"}
    if gpu_type:
        params["gpuTypeId"] = gpu_type
    resp = v1bridge_compat.call_v1(lambda method, url, **kw: SESSION.request(method, url, headers={"Authorization": "Bearer " + api_key}, timeout=30, **kw), "GET", RUNPOD_REST_URL + "/billing/pods", params=params)
    resp.raise_for_status()
    totals = collections.Counter()
    for rec in resp.json():
        totals[rec.get("gpuTypeId") or "cpu"] += rec["amount"]
    return dict(totals)


def endpoint_spend_by_template(api_key, template_id):
    # v1bridge: R10 v1 query parameter "templateId" has no v2 form, as v2 billing records name no template, and an endpoint's template today may not be the one it ran when billed: sum the serverless spend of the endpoints that use the template, by serverlessId (group v2 per-resource records yourself)
    resp = v1bridge_compat.call_v1(lambda method, url, **kw: SESSION.request(method, url, headers={"Authorization": "Bearer " + api_key}, timeout=30, **kw), "GET",
                       RUNPOD_REST_URL + "/billing/endpoints",
                       params={"templateId": template_id, "bucketSize": "day"})
    resp.raise_for_status()
    return sum(r["amount"] for r in resp.json())


def scenario(base_url, api_key, ids):
    return {"by_gpu": sorted(gpu_breakdown(api_key)), "one_gpu": sorted(gpu_breakdown(api_key, "NVIDIA A40"))}
