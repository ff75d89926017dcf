#!/usr/bin/env python3
"""Serverless spend of the last N days, per endpoint (cron, mails the output)."""
import argparse
import sys
from collections import defaultdict
from datetime import datetime, timedelta, timezone

from podctl.api import _get


def spend(days=7, endpoint_id=None):
    end = datetime.now(timezone.utc).replace(microsecond=0)
    params = {"bucketSize": "day", "startTime": (end - timedelta(days=days)).isoformat().replace("+00:00", "Z"),
              "endTime": end.isoformat().replace("+00:00", "Z")}
    if endpoint_id:
        params["endpointId"] = endpoint_id
    per_endpoint = defaultdict(float)
    for row in _get("/billing/endpoints", params):
        per_endpoint[row.get("endpointId", "?")] += row["amount"]
    return per_endpoint


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--days", type=int, default=7)
    p.add_argument("--endpoint")
    a = p.parse_args(argv)
    rows = spend(a.days, a.endpoint)
    for ep, amount in sorted(rows.items()):
        print(f"{ep}\t{amount:.4f}")
    print(f"total\t{sum(rows.values()):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
