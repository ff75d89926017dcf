"""Q29: error reads of a v1 answer (`["message"]`, `["error"]`) become `["detail"]`.

Before/after pairs: each output exactly the expected code, it parses, and a second run changes nothing.
"""
from __future__ import annotations

import pytest

from tests.codemod.tools import case, check_rewrite

CASES = {
    "Q29 error read on an API response": case('''
        import requests
        r = requests.delete("https://rest.runpod.io/v1/templates/" + tid)
        if not r.ok:
            print(r.json().get("error"), r.json()["message"])
    ''', '''
        import requests
        r = requests.delete("https://api.runpod.io/v2/templates/" + tid)
        if not r.ok:
            print(r.json().get("detail"), r.json()["detail"])
    '''),
}


@pytest.mark.parametrize("name", list(CASES))
def test_rewrite(name: str) -> None:
    check_rewrite(*CASES[name])
