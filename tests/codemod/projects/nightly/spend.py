#!/usr/bin/env python3
"""Pod spend per day for the finance sheet."""
import sys
from datetime import datetime, timedelta, timezone

import rp


def pod_spend(days, pod_id=None):
    end = datetime.now(timezone.utc).replace(microsecond=0)
    q = {"bucketSize": "day", "startTime": (end - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ"),
         "endTime": end.strftime("%Y-%m-%dT%H:%M:%SZ")}
    if pod_id:
        q["podId"] = pod_id
        q["grouping"] = "podId"
    return rp.call("GET", "/billing/pods", query=q)


def main(argv=None):
    rows = pod_spend(3)
    print("days:", len(rows), "total:", round(sum(r["amount"] for r in rows), 2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
