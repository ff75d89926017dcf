"""Q25: billing answers are `{records, metadata}` with renamed record fields; a `grouping` v2 applies by itself is
dropped from the query, any other grouping keeps its own rule (R10: the call goes through the compat module).

Before/after pairs: each output exactly the expected code, it parses, and a second run changes nothing.
"""
from __future__ import annotations

import pytest

from tests.codemod.tools import case, check_rewrite

CASES = {
    "Q25 records unwrapped, amount and time renamed, the native grouping dropped": case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def spend(pod_id):
            rows = requests.get(f"{API}/billing/pods", params={"podId": pod_id, "grouping": "podId"}).json()
            return sum(r["amount"] for r in rows), [r["time"] for r in rows]
    ''', '''
        import requests
        API = "https://api.runpod.io/v2"
        def spend(pod_id):
            rows = requests.get(f"{API}/billing/pods", params={"podId": pod_id}).json()["records"]
            return sum(r["totalAmount"] for r in rows), [r["startTime"] for r in rows]
    '''),
    "Q25 a grouping v2 cannot give: the call keeps v1's answer through the compat module": case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def spend():
            rows = requests.get(f"{API}/billing/pods", params={"grouping": "gpuTypeId"}).json()
            return sum(r["amount"] for r in rows)
    ''', '''
        import requests

        import v1bridge_compat
        API = "https://api.runpod.io/v2"
        def spend():
            rows = v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "GET", f"{API}/billing/pods", params={"grouping": "gpuTypeId"}).json()
            return sum(r["amount"] for r in rows)
    '''),
    # v1 grouped what v2 splits per resource (pods: per GPU type by default; network volumes: per bucket)
    "Q25 pod records counted without a grouping: v1's per-GPU-type records back through regroup_billing": case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def per_day(key):
            rows = requests.get(f"{API}/billing/pods", params={"bucketSize": "day"}, headers={"Authorization": key}).json()
            return len(rows), sum(r["amount"] for r in rows)
    ''', '''
        import requests

        import v1bridge_compat
        API = "https://api.runpod.io/v2"
        def per_day(key):
            rows = v1bridge_compat.regroup_billing("billing_pod", requests.get(f"{API}/billing/pods", params={"bucketSize": "day"}, headers={"Authorization": key}).json(), send=lambda method, path, **kw: requests.request(method, API + path, headers={"Authorization": key}, **kw))
            return len(rows), sum(r["totalAmount"] for r in rows)
    '''),
    "Q25 pod records only summed, no grouping: plain v2": case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def total(key):
            rows = requests.get(f"{API}/billing/pods", params={"bucketSize": "day"}, headers={"Authorization": key}).json()
            return round(sum([r["amount"] for r in rows]), 2)
    ''', '''
        import requests
        API = "https://api.runpod.io/v2"
        def total(key):
            rows = requests.get(f"{API}/billing/pods", params={"bucketSize": "day"}, headers={"Authorization": key}).json()["records"]
            return round(sum([r["totalAmount"] for r in rows]), 2)
    '''),
    "Q25 network volume records only summed with .get(): plain v2": case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def storage_total(key):
            rows = requests.get(API + "/billing/networkvolumes", headers={"Authorization": key}).json()
            return sum(r.get("amount", 0) for r in rows)
    ''', '''
        import requests
        API = "https://api.runpod.io/v2"
        def storage_total(key):
            rows = requests.get(API + "/billing/network-volumes", headers={"Authorization": key}).json()["records"]
            return sum(r.get("totalAmount", 0) for r in rows)
    '''),
    "Q25 network volume records returned: one record a bucket through regroup_billing (no read needed)": case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def storage(key):
            return requests.get(API + "/billing/networkvolumes", headers={"Authorization": key}).json()
    ''', '''
        import requests

        import v1bridge_compat
        API = "https://api.runpod.io/v2"
        def storage(key):
            return v1bridge_compat.regroup_billing("billing_network_volume", requests.get(API + "/billing/network-volumes", headers={"Authorization": key}).json())
    '''),
    "Q25 a native grouping sent on some runs only (v1's default on the others): the run-time translation": case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def spend(key, pod_id=None):
            q = {"bucketSize": "day"}
            if pod_id:
                q["podId"] = pod_id
                q["grouping"] = "podId"
            return requests.get(f"{API}/billing/pods", params=q, headers={"Authorization": key}).json()
    ''', '''
        import requests

        import v1bridge_compat
        API = "https://api.runpod.io/v2"
        def spend(key, pod_id=None):
            q = {"bucketSize": "day"}
            if pod_id:
                q["podId"] = pod_id
                q["grouping"] = "podId"
            return v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, headers={"Authorization": key}, **kw), "GET", f"{API}/billing/pods", params=q).json()
    '''),
    "Q25 v1's GPU-type grouping on a partial base (the pods are out of the call's reach): the run-time translation":
        case('''
        import requests
        BILLING = "https://rest.runpod.io/v1/billing"
        def by_day(key):
            rows = requests.get(f"{BILLING}/pods", headers={"Authorization": key}).json()
            return [r["amount"] for r in rows]
    ''', '''
        import requests

        import v1bridge_compat
        BILLING = "https://api.runpod.io/v2/billing"
        def by_day(key):
            rows = v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, headers={"Authorization": key}, **kw), "GET", f"{BILLING}/pods").json()
            return [r["amount"] for r in rows]
    '''),
}


@pytest.mark.parametrize("name", list(CASES))
def test_rewrite(name: str) -> None:
    check_rewrite(*CASES[name])
