"""GPU-type cost breakdown for the finance dashboard."""
import collections
import os

import requests

RUNPOD_REST_URL = os.environ.get("RUNPOD_REST_URL", "https://rest.runpod.io/v1")
SESSION = requests.Session()


def gpu_breakdown(api_key, gpu_type=None, bucket="week"):
    params = {"bucketSize": bucket, "grouping": "gpuTypeId"}
    if gpu_type:
        params["gpuTypeId"] = gpu_type
    resp = SESSION.get(RUNPOD_REST_URL + "/billing/pods", params=params,
                       headers={"Authorization": "Bearer " + api_key}, timeout=30)
    resp.raise_for_status()
    totals = collections.Counter()
    for rec in resp.json():
        totals[rec.get("gpuTypeId") or "cpu"] += rec["amount"]
    return dict(totals)


def endpoint_spend_by_template(api_key, template_id):
    resp = SESSION.get(RUNPOD_REST_URL + "/billing/endpoints",
                       params={"templateId": template_id, "bucketSize": "day"},
                       headers={"Authorization": "Bearer " + api_key}, timeout=30)
    resp.raise_for_status()
    return sum(r["amount"] for r in resp.json())


def scenario(base_url, api_key, ids):
    return {"by_gpu": sorted(gpu_breakdown(api_key)), "one_gpu": sorted(gpu_breakdown(api_key, "NVIDIA A40"))}
