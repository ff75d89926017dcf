#!/usr/bin/env python3
"""Weekly spend report (cron)."""
from rpclient import http
from rpclient.http import get_json


def serverless_spend(days=7):
    rows = get_json("/billing/endpoints", {"bucketSize": "day"})
    return sum(r.get("amount", 0) for r in rows)


def pod_count():
    return len(get_json("/pods"))


def template_names():
    return [t["name"] for t in http.get_json("/templates")]


if __name__ == "__main__":
    print(f"serverless: {serverless_spend():.2f}  pods: {pod_count()}  templates: {len(template_names())}")
