"""What each model's endpoint cost us (the weekly finance mail)."""
from datetime import datetime, timedelta, timezone

from .client import RunPod


def _iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


async def endpoint_spend(rp: RunPod, days=None, endpoint_id=None, bucket="day"):
    q = {"bucketSize": bucket}
    if days:
        end = datetime.now(timezone.utc).replace(microsecond=0)
        q["startTime"] = _iso(end - timedelta(days=days))
        q["endTime"] = _iso(end)
    if endpoint_id:
        q["serverlessId"] = endpoint_id
    rows = (await rp.get("/billing/serverless", params=q))["records"]
    return round(sum(r["totalAmount"] for r in rows), 4), len(rows)
