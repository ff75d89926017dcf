"""Q04: `flashboot: true|false` becomes the enum `"FLASHBOOT"` / `"OFF"`; a boolean only known at run time becomes
the conditional expression of the value map (mappings/data/values.yaml).

Before/after pairs: each output exactly the expected code, it parses, and a second run changes nothing.
"""
from __future__ import annotations

import pytest

from tests.codemod.tools import case, check_rewrite

CASES = {
    "Q04 a literal goes through the translator": case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def enable(endpoint_id):
            requests.patch(f"{API}/endpoints/{endpoint_id}", json={"flashboot": True})
    ''', '''
        import requests
        API = "https://api.runpod.io/v2"
        def enable(endpoint_id):
            requests.patch(f"{API}/serverless/{endpoint_id}", json={"flashboot": "FLASHBOOT"})
    '''),
    "Q04 a run-time boolean becomes the value map's conditional": case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def tune(endpoint_id, fast, most):
            requests.post(f"{API}/endpoints/{endpoint_id}/update", json={"flashboot": fast, "workersMax": most})
    ''', '''
        import requests
        API = "https://api.runpod.io/v2"
        def tune(endpoint_id, fast, most):
            requests.patch(f"{API}/serverless/{endpoint_id}", json={"workers": {"max": most}, "flashboot": "FLASHBOOT" if fast else "OFF"})
    '''),
}


@pytest.mark.parametrize("name", list(CASES))
def test_rewrite(name: str) -> None:
    check_rewrite(*CASES[name])
