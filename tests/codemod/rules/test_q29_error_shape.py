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
    # the words of the message are tested: renamed to detail, the test would never match v2's words; the call stays
    # plain v2 and only its errors are v1's again (v1_error), so both reads stay as v1 wrote them
    "Q29 error text matched against v1's words": case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def stop(pod_id):
            r = requests.post(f"{BASE}/pods/{pod_id}/stop")
            if r.ok:
                return True
            if "not found" in r.json().get("message", ""):
                return False
            raise RuntimeError(r.json()["message"])
    ''', '''
        import requests

        import v1bridge_compat
        BASE = "https://api.runpod.io/v2"
        def stop(pod_id):
            r = v1bridge_compat.v1_error(requests.post(f"{BASE}/pods/{pod_id}/action", json={"action": "stop"}), "pods.stop")
            if r.ok:
                return True
            if "not found" in r.json().get("message", ""):
                return False
            raise RuntimeError(r.json()["message"])
    '''),
    # awaited where it is made: the awaited answer is wrapped (v1_error calls nothing, one function for both)
    "Q29 error text matched on an awaited call": case('''
        import httpx
        BASE = "https://rest.runpod.io/v1"
        async def stop(c: httpx.AsyncClient, pod_id):
            r = await c.post(f"{BASE}/pods/{pod_id}/stop")
            if "not found" in r.json().get("message", ""):
                return False
    ''', '''
        import httpx

        import v1bridge_compat
        BASE = "https://api.runpod.io/v2"
        async def stop(c: httpx.AsyncClient, pod_id):
            r = v1bridge_compat.v1_error(await c.post(f"{BASE}/pods/{pod_id}/action", json={"action": "stop"}), "pods.stop")
            if "not found" in r.json().get("message", ""):
                return False
    '''),
}


@pytest.mark.parametrize("name", list(CASES))
def test_rewrite(name: str) -> None:
    check_rewrite(*CASES[name])


def test_a_matched_error_text_is_state_2_through_v1_error_around_the_plain_v2_call():
    from codemod.engine import rewrite_source

    done = rewrite_source(CASES["Q29 error text matched against v1's words"][0], "case.py")
    assert [(s.line, s.state, s.rule, s.cause) for s in done.states] == [
        (4, 2, "Q29", "the v1 error text ['message'] is matched against its words at line 7: v1bridge_compat.v1_error "
                      "answers the call's errors in v1's shape and words")]
    awaited = rewrite_source(CASES["Q29 error text matched on an awaited call"][0], "case.py")
    assert [(s.line, s.state, s.rule) for s in awaited.states] == [(4, 2, "Q29")]
