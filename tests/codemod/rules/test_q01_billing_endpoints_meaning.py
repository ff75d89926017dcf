"""Q01: `/billing/endpoints` (serverless spend) becomes `/billing/serverless`, its query parameters renamed with it.

Before/after pairs: each output exactly the expected code, it parses, and a second run changes nothing.
"""
from __future__ import annotations

import pytest

from tests.codemod.tools import case, check_rewrite

CASES = {
    "Q01 billing endpoints -> serverless, Q25 records": case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        rows = requests.get(f"{BASE}/billing/endpoints", params={"endpointId": eid}).json()
        total = sum(r["amount"] for r in rows)
    ''', '''
        import requests
        BASE = "https://api.runpod.io/v2"
        rows = requests.get(f"{BASE}/billing/serverless", params={"serverlessId": eid}).json()["records"]
        total = sum(r["totalAmount"] for r in rows)
    '''),
}


@pytest.mark.parametrize("name", list(CASES))
def test_rewrite(name: str) -> None:
    check_rewrite(*CASES[name])
