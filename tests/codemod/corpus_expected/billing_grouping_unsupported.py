"""GPU-type cost breakdown for the finance dashboard."""
import collections
import os

import requests

RUNPOD_REST_URL = os.environ.get("RUNPOD_REST_URL", "https://rest.runpod.io/v1")
SESSION = requests.Session()


def gpu_breakdown(api_key, gpu_type=None, bucket="week"):
    # v1bridge: R10 v1 query parameter "grouping" has no v2 form the rewrite can write here: group v2 per-resource records yourself
    params = {"bucketSize": bucket, "grouping": "gpuTypeId"}
    if gpu_type:
        # v1bridge: R10 v1 query parameter "gpuTypeId" has no v2 form the rewrite can write here: group v2 per-resource records yourself
        params["gpuTypeId"] = gpu_type
    # v1bridge: R10 GET /billing/pods cannot be written as v2 code at this call: group v2 per-resource records yourself
    resp = SESSION.get(RUNPOD_REST_URL + "/billing/pods", params=params,
                       headers={"Authorization": "Bearer " + api_key}, timeout=30)
    resp.raise_for_status()
    totals = collections.Counter()
    for rec in resp.json():
        # v1bridge: R10 v1 field 'gpuTypeId': group v2 per-resource records yourself
        totals[rec.get("gpuTypeId") or "cpu"] += rec["amount"]
    return dict(totals)


def endpoint_spend_by_template(api_key, template_id):
    # v1bridge: R10 v1 query parameter "templateId" has no v2 form the rewrite can write here: group v2 per-resource records yourself
    resp = SESSION.get(RUNPOD_REST_URL + "/billing/endpoints",
                       params={"templateId": template_id, "bucketSize": "day"},
                       headers={"Authorization": "Bearer " + api_key}, timeout=30)
    resp.raise_for_status()
    return sum(r["amount"] for r in resp.json())


def scenario(base_url, api_key, ids):
    try:
        tpl = endpoint_spend_by_template(api_key, "tpl-none")
    except requests.HTTPError as exc:
        tpl = exc.response.status_code
    return {"by_gpu": sorted(gpu_breakdown(api_key)), "tpl": tpl}
