#!/usr/bin/env python3
"""Yesterday's pod and storage spend, for the ops channel."""
import argparse
import sys
from datetime import datetime, timedelta, timezone

import rpops as rp
import v1bridge_compat


def window(days):
    end = datetime.now(timezone.utc).replace(microsecond=0)
    return (end - timedelta(days=days)).isoformat(), end.isoformat()


def pod_spend(days=1, gpu=None, per_pod=False):
    start, end = window(days)
    q = {"bucketSize": "day", "startTime": start, "endTime": end}
    if gpu:
        q["gpuTypeId"] = gpu
    if per_pod:
        q["grouping"] = "podId"
    return v1bridge_compat.all_pages(v1bridge_compat.by_method(delete=rp.delete, get=rp.get, patch=rp.patch, post=rp.post), "/billing/pods", q, op="billing.pods")


def storage_spend(days=1):
    start, end = window(days)
    return v1bridge_compat.regroup_billing("billing_network_volume", rp.get("/billing/network-volumes", bucketSize="day", startTime=start, endTime=end))


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--days", type=int, default=1)
    p.add_argument("--gpu")
    p.add_argument("--per-pod", action="store_true")
    a = p.parse_args(argv)
    pods = pod_spend(a.days, a.gpu, a.per_pod)
    vols = storage_spend(a.days)
    print("pods", round(sum(r["totalAmount"] for r in pods), 2), "storage", round(sum(r["totalAmount"] for r in vols), 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
