"""Q03: a list filter v2 ignores sends the call through the compat module, which filters at run time.

Before/after pairs: each output exactly the expected code, it parses, and a second run changes nothing.
"""
from __future__ import annotations

import sys

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
    "Q03 a filter in the URL's query string, through a GET helper taking the key: every page filtered on that URL": case('''
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
            return v1bridge_compat.all_pages(v1bridge_compat.by_method(get=lambda path: _get(path, api_key)), REST + "/pods?desiredStatus=RUNNING", op="pods.list")
    '''),
}

# a module helper given whole URLs with a query channel (`_get(url, params=None)`), as many clients write it
WHOLE_URL_HELPER = case('''
    import requests

    API = "https://rest.runpod.io/v1"
    HEADERS = {"Authorization": "Bearer k"}


    def _get(url, params=None):
        r = requests.get(url, headers=HEADERS, params=params, timeout=30)
        r.raise_for_status()
        return r.json()


    def running_pods():
        return [p["id"] for p in _get(API + "/pods", params={"desiredStatus": "RUNNING"})]


    def pods_on(gpu):
        pods = _get(f"{API}/pods", params={"gpuTypeId": gpu})
        return sorted(p["name"] for p in pods)


    def status(pod_id):
        return _get(f"{API}/pods/{pod_id}")["desiredStatus"]
''', '''
    import requests

    import v1bridge_compat

    API = "https://api.runpod.io/v2"
    HEADERS = {"Authorization": "Bearer k"}


    def _get(url, params=None):
        r = requests.get(url, headers=HEADERS, params=params, timeout=30)
        r.raise_for_status()
        return r.json()


    def running_pods():
        return [p["id"] for p in v1bridge_compat.all_pages(v1bridge_compat.by_method(get=_get), API + "/pods", {"desiredStatus": "RUNNING"}, op="pods.list")]


    def pods_on(gpu):
        pods = v1bridge_compat.all_pages(v1bridge_compat.by_method(get=_get), f"{API}/pods", {"gpuTypeId": gpu}, op="pods.list")
        return sorted(p["name"] for p in pods)


    def status(pod_id):
        return _get(f"{API}/pods/{pod_id}")["status"]
''')
CASES["Q03 filters through a helper given whole URLs: every page of the v2 list on the call's own URL"] = \
    WHOLE_URL_HELPER


@pytest.mark.parametrize("name", list(CASES))
def test_rewrite(name: str) -> None:
    check_rewrite(*CASES[name])


def test_the_whole_url_helper_client_filters_every_page_on_v2_and_its_other_calls_are_plain_v2() -> None:
    """Run on a sandbox answering two pods a page: the filters see every page, the item read is v2's."""
    from codemod import compat
    from codemod.engine import rewrite_source
    from tests.codemod.compat.tools import AUTH, AVAILABLE_GPU, Client, pod_body, start_sandbox
    from tests.codemod.tools import load

    result = rewrite_source(WHOLE_URL_HELPER[0], "case.py")
    assert [(s.line, s.state, s.rule) for s in result.states] == [(14, 2, "Q03"), (18, 2, "Q03"), (23, 1, "L01")]
    sys.modules[compat.MODULE_NAME] = load(compat.render(), compat.MODULE_NAME)
    server = start_sandbox()
    try:
        client = Client(server.url)
        ids = [client.create_pod(pod_body(name=f"p{n}")).json()["id"] for n in range(5)]
        client.send("POST", f"/pods/{ids[0]}/action", json={"action": "stop"})
        module = load(result.new_source, "whole_url_helper_client")
        module.API, module.HEADERS = server.url + "/v2", dict(AUTH)
        assert sorted(module.running_pods()) == sorted(ids[1:])
        assert module.pods_on(AVAILABLE_GPU) == ["p0", "p1", "p2", "p3", "p4"]
        assert module.pods_on("NVIDIA A40") == []
        assert module.status(ids[0]) == "EXITED"
    finally:
        server.close()
        sys.modules.pop(compat.MODULE_NAME, None)
