"""Q03: a list filter v2 ignores sends the call through the compat module, which filters at run time.

Before/after pairs: each output exactly the expected code, it parses, and a second run changes nothing.
"""
from __future__ import annotations

import pytest

from tests.codemod.tools import case, check_rewrite

CASES = {
    "Q03 list filter v2 ignores: applied at run time by the compat module": case('''
        import requests
        requests.get("https://rest.runpod.io/v1/pods", params={"gpuTypeId": ["A"]})
    ''', '''
        import requests

        import v1bridge_compat
        v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "GET", "https://api.runpod.io/v2/pods", params={"gpuTypeId": ["A"]})
    '''),
    # a query string written into the path: each parameter read by the mapping where it is spelled
    "Q03 a renamed parameter in the path's query string: respelled in its literal (plain v2)": case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def spend(eid):
            rows = requests.get(f"{API}/billing/endpoints?bucketSize=day&endpointId={eid}").json()
            return sum(r["amount"] for r in rows)
    ''', '''
        import requests
        API = "https://api.runpod.io/v2"
        def spend(eid):
            rows = requests.get(f"{API}/billing/serverless?bucketSize=day&serverlessId={eid}").json()["records"]
            return sum(r["totalAmount"] for r in rows)
    '''),
    "Q03 a filter in the path's query string, through a GET helper taking the key: call_v1 filters at run time": case('''
        import requests
        REST = "https://rest.runpod.io/v1"
        def _get(url, api_key):
            r = requests.get(url, headers={"Authorization": f"Bearer {api_key}"}, timeout=30)
            r.raise_for_status()
            return r.json()
        def running_pods(api_key):
            return _get(REST + "/pods?desiredStatus=RUNNING", api_key)
    ''', '''
        import requests

        import v1bridge_compat
        REST = "https://api.runpod.io/v2"
        def _get(url, api_key):
            r = requests.get(url, headers={"Authorization": f"Bearer {api_key}"}, timeout=30)
            r.raise_for_status()
            return r.json()
        def running_pods(api_key):
            return v1bridge_compat.call_v1(v1bridge_compat.by_method(get=lambda path: _get(path, api_key)), "GET", REST + "/pods?desiredStatus=RUNNING")
    '''),
}


@pytest.mark.parametrize("name", list(CASES))
def test_rewrite(name: str) -> None:
    check_rewrite(*CASES[name])
