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
}


@pytest.mark.parametrize("name", list(CASES))
def test_rewrite(name: str) -> None:
    check_rewrite(*CASES[name])
