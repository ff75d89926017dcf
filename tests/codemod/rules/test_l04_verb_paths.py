"""L04: per-verb pod paths become `POST .../action {action}`, `/update` aliases a PATCH on the resource.

Before/after pairs: each output exactly the expected code, it parses, and a second run changes nothing.
"""
from __future__ import annotations

import pytest

from codemod.engine import rewrite_source
from tests.codemod.tools import case, check_rewrite

CASES = {
    "L04 start/stop/restart -> action": case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def stop(pod_id, h):
            r = requests.post(f"{BASE}/pods/{pod_id}/stop", headers=h)
            return r.json()["desiredStatus"]
    ''', '''
        import requests
        BASE = "https://api.runpod.io/v2"
        def stop(pod_id, h):
            r = requests.post(f"{BASE}/pods/{pod_id}/action", headers=h, json={"action": "stop"})
            return r.json()["status"]
    '''),
    "L04 update alias -> PATCH (method attribute)": case('''
        import requests
        def rename(tid, name):
            requests.post(f"https://rest.runpod.io/v1/templates/{tid}/update", json={"name": name})
    ''', '''
        import requests
        def rename(tid, name):
            requests.patch(f"https://rest.runpod.io/v1/templates/{tid}", json={"name": name})
    '''.replace("https://rest.runpod.io/v1", "https://api.runpod.io/v2")),
    "L04 update alias -> PATCH (method string)": case('''
        import requests
        s = requests.Session()
        s.request("POST", "https://rest.runpod.io/v1/networkvolumes/%s/update" % vid, json={"size": 50})
    ''', '''
        import requests
        s = requests.Session()
        s.request("PATCH", "https://api.runpod.io/v2/network-volumes/%s" % vid, json={"size": 50})
    '''),
}


@pytest.mark.parametrize("name", list(CASES))
def test_rewrite(name: str) -> None:
    check_rewrite(*CASES[name])


def test_the_summary_counts_each_rule_once_per_change() -> None:
    before, _ = CASES["L04 start/stop/restart -> action"]
    assert dict(rewrite_source(before, "c.py").rules) == {"L01": 1, "L04": 2, "Q13": 1}
