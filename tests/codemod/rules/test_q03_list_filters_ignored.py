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
}


@pytest.mark.parametrize("name", list(CASES))
def test_rewrite(name: str) -> None:
    check_rewrite(*CASES[name])
