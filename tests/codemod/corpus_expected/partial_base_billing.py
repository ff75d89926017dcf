"""Monthly spend report: serverless, pods and storage, from the billing API."""
from __future__ import annotations

import argparse
import datetime as dt
import os

import requests

import v1bridge_compat

BILLING_URL = os.environ.get("RUNPOD_BILLING_URL", "https://api.runpod.io/v2/billing")


def _get(path, api_key, params):
    resp = requests.get(f"{BILLING_URL}{path}", params=params, headers={"Authorization": f"Bearer {api_key}"}, timeout=30)
    resp.raise_for_status()
    return resp.json()


def serverless_spend(api_key, endpoint_id=None, start=None, end=None, bucket="day"):
    params = {"bucketSize": bucket}
    if endpoint_id:
        params["serverlessId"] = endpoint_id
    if start is not None:
        params["startTime"] = start.isoformat()
    if end is not None:
        params["endTime"] = end.isoformat()
    return round(sum(rec["totalAmount"] for rec in _get("/serverless", api_key, params)["records"]), 6)


def pod_spend(api_key, pod_id=None, bucket="day"):
    params = {"bucketSize": bucket}
    if pod_id:
        params["podId"] = pod_id
    records = _get("/pods", api_key, params)["records"]
    return round(sum(r["totalAmount"] for r in records), 6)


def storage_spend(api_key):
    return [(r["startTime"], r["totalAmount"]) for r in v1bridge_compat.regroup_billing("billing_network_volume", _get("/network-volumes", api_key, {"bucketSize": "month"}))]


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--endpoint")
    ap.add_argument("--days", type=int, default=30)
    args = ap.parse_args(argv)
    key = os.environ["RUNPOD_API_KEY"]
    end = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    start = end - dt.timedelta(days=args.days)
    print("serverless", serverless_spend(key, args.endpoint, start, end))
    print("pods", pod_spend(key))


def scenario(base_url, api_key, ids):
    for name in ("scratch-a", "scratch-b"):  # v2 bills each volume apart; v1 billed the account, one record a bucket
        requests.post(ids["v2"] + "/network-volumes", json={"name": name, "size": 10, "dataCenter": "EU-RO-1"},
                      headers={"Authorization": f"Bearer {api_key}"}, timeout=30).raise_for_status()
    end = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    start = end - dt.timedelta(days=7)
    return {
        "serverless": serverless_spend(api_key, ids["endpoint"], start, end),
        "all_serverless": serverless_spend(api_key, start=start, end=end, bucket="week"),
        "pods": pod_spend(api_key, ids["pod"]),
        "storage": storage_spend(api_key),
    }


if __name__ == "__main__":
    main()
