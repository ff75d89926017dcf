"""Before/after pairs for every rewrite rule; no-change cases first.

Each pair is checked three ways: the output is exactly the expected code, it
parses, and a second run changes nothing (idempotence).
"""
from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from codemod.engine import rewrite_source


def _case(before: str, after: str | None = None) -> tuple[str, str]:
    before = textwrap.dedent(before).lstrip("\n")
    return before, before if after is None else textwrap.dedent(after).lstrip("\n")


NO_CHANGE = {
    "v2 code": _case('''
        import requests
        BASE = "https://api.runpod.io"
        pods = requests.get(f"{BASE}/v2/pods").json()["pods"]
        requests.post(f"{BASE}/v2/pods/{pods[0]['id']}/action", json={"action": "stop"})
        requests.get(BASE + "/v2/billing/endpoints")  # public endpoints: a real v2 route
    '''),
    "serverless job API": _case('''
        import requests
        RUN = "https://api.runpod.ai/v2"
        job = requests.post(f"{RUN}/{endpoint_id}/run", json={"input": {}}).json()
        status = requests.get(f"{RUN}/{endpoint_id}/status/{job['id']}").json()
        print(status["message"])
    '''),
    "look-alike names": _case('''
        import requests
        pods = requests.get("https://example.com/api/pods").json()
        for pod in pods:
            print(pod["desiredStatus"], pod["message"])
        endpoints = ["/endpoints", "/pods"]
        desiredStatus = "RUNNING"
    '''),
    "no API at all": _case('''
        def endpoints(x):
            return {"message": x}
    '''),
}

REWRITES = {
    # ---- L01: base addresses and renamed paths
    "L01 base constant and renamed path": _case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def volumes():
            return requests.get(f"{API}/networkvolumes/{vid}").json()
    ''', '''
        import requests
        API = "https://api.runpod.io/v2"
        def volumes():
            return requests.get(f"{API}/network-volumes/{vid}").json()
    '''),
    "L01 getenv default, + concatenation, registries": _case('''
        import os, requests
        BASE = os.environ.get("RUNPOD_URL", 'https://rest.runpod.io/v1')
        requests.delete(BASE + '/containerregistryauth/' + rid)
    ''', '''
        import os, requests
        BASE = os.environ.get("RUNPOD_URL", 'https://api.runpod.io/v2')
        requests.delete(BASE + '/registries/' + rid)
    '''),
    "L01 % and .format and urljoin": _case('''
        import requests
        from urllib.parse import urljoin
        B = "https://rest.runpod.io/v1/"
        requests.get("%s/endpoints/%s" % ("https://rest.runpod.io/v1", eid))
        requests.delete("{}/endpoints/{}".format("https://rest.runpod.io/v1", eid))
        requests.get(urljoin(B, "templates"))
    ''', '''
        import requests
        from urllib.parse import urljoin
        B = "https://api.runpod.io/v2/"
        requests.get("%s/serverless/%s" % ("https://api.runpod.io/v2", eid))
        requests.delete("{}/serverless/{}".format("https://api.runpod.io/v2", eid))
        requests.get(urljoin(B, "templates"))
    '''),
    "L01 class and instance attributes": _case('''
        import requests
        class Client:
            BASE_URL = "https://rest.runpod.io/v1"
            def __init__(self, base=None):
                self.base = base or self.BASE_URL
                self.s = requests.Session()
            def delete_endpoint(self, eid):
                self.s.delete(f"{self.base}/endpoints/{eid}")
    ''', '''
        import requests
        class Client:
            BASE_URL = "https://api.runpod.io/v2"
            def __init__(self, base=None):
                self.base = base or self.BASE_URL
                self.s = requests.Session()
            def delete_endpoint(self, eid):
                self.s.delete(f"{self.base}/serverless/{eid}")
    '''),
    "L01 another host's /v1 shaped like this API's routes: untouched (a URL is this API's by its host)": _case('''
        import httpx
        httpx.get("http://localhost:8080/v1/endpoints")
        httpx.get("https://internal.example.com/v1/pods/p1").json()["desiredStatus"]
    '''),
    "L01 httpx client base_url with relative paths": _case('''
        import httpx
        client = httpx.Client(base_url="https://rest.runpod.io/v1", headers=h)
        client.delete(f"/endpoints/{eid}")
    ''', '''
        import httpx
        client = httpx.Client(base_url="https://api.runpod.io/v2", headers=h)
        client.delete(f"/serverless/{eid}")
    '''),
    # ---- Q01: billing
    "Q01 billing endpoints -> serverless, Q25 records": _case('''
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
    "L01 billing network volumes": _case('''
        import requests
        requests.get("https://rest.runpod.io/v1/billing/networkvolumes")
    ''', '''
        import requests
        requests.get("https://api.runpod.io/v2/billing/network-volumes")
    '''),
    # ---- L04: verbs
    "L04 start/stop/restart -> action": _case('''
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
    "L04 update alias -> PATCH (method attribute)": _case('''
        import requests
        def rename(tid, name):
            requests.post(f"https://rest.runpod.io/v1/templates/{tid}/update", json={"name": name})
    ''', '''
        import requests
        def rename(tid, name):
            requests.patch(f"https://rest.runpod.io/v1/templates/{tid}", json={"name": name})
    '''.replace("https://rest.runpod.io/v1", "https://api.runpod.io/v2")),
    "L04 update alias -> PATCH (method string)": _case('''
        import requests
        s = requests.Session()
        s.request("POST", "https://rest.runpod.io/v1/networkvolumes/%s/update" % vid, json={"size": 50})
    ''', '''
        import requests
        s = requests.Session()
        s.request("PATCH", "https://api.runpod.io/v2/network-volumes/%s" % vid, json={"size": 50})
    '''),
    # ---- Q02: list envelopes
    "Q02 Q30 list stored and iterated later: every page": _case('''
        import requests
        def names(h):
            resp = requests.get("https://rest.runpod.io/v1/templates", headers=h)
            resp.raise_for_status()
            templates = resp.json()
            return [t["imageName"] for t in templates]
    ''', '''
        import requests
        def names(h):
            templates, paging = [], {}
            while True:
                resp = requests.get("https://api.runpod.io/v2/templates", headers=h, params=paging)
                resp.raise_for_status()
                page = resp.json()
                templates += page["templates"]
                if not page["pagination"]["hasNextPage"]:
                    break
                paging = {"cursor": page["pagination"]["nextCursor"]}
            return [t["image"] for t in templates]
    '''),
    "Q02 Q30 aiohttp async with: every page": _case('''
        import aiohttp
        async def pods():
            async with aiohttp.ClientSession() as session:
                async with session.get("https://rest.runpod.io/v1/pods") as resp:
                    return await resp.json()
    ''', '''
        import aiohttp
        async def pods():
            async with aiohttp.ClientSession() as session:
                all_pods, paging = [], {}
                while True:
                    async with session.get("https://api.runpod.io/v2/pods", params=paging) as resp:
                        page = await resp.json()
                    all_pods += page["pods"]
                    if not page["pagination"]["hasNextPage"]:
                        break
                    paging = {"cursor": page["pagination"]["nextCursor"]}
                return all_pods
    '''),
    # ---- L02/Q13/Q14: response fields
    "Q13 Q14 response fields through a returned object": _case('''
        import requests
        def get_pod(pid):
            return requests.get(f"https://rest.runpod.io/v1/pods/{pid}").json()
        pod = get_pod("abc")
        print(pod["desiredStatus"], pod.get("costPerHr", 0))
    ''', '''
        import requests
        def get_pod(pid):
            return requests.get(f"https://api.runpod.io/v2/pods/{pid}").json()
        pod = get_pod("abc")
        print(pod["status"], pod.get("cost", 0))
    '''),
    "L02 nested response read": _case('''
        import requests
        ep = requests.get(f"https://rest.runpod.io/v1/endpoints/{eid}").json()
        print(ep["workersMax"], ep.get("idleTimeout"))
    ''', '''
        import requests
        ep = requests.get(f"https://api.runpod.io/v2/serverless/{eid}").json()
        print(ep["workers"]["max"], ep.get("workers", {}).get("idleTimeout"))
    '''),
    # ---- Q29: errors
    "Q29 error read on an API response": _case('''
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
    # ---- L02: bodies
    "L02 constant body literal at the call (create defaults made explicit)": _case('''
        import requests
        requests.post("https://rest.runpod.io/v1/networkvolumes", json={"name": "data", "size": 50, "dataCenterId": "EU-RO-1"})
    ''', '''
        import requests
        requests.post("https://api.runpod.io/v2/network-volumes", json={"name": "data", "size": 50, "dataCenter": "EU-RO-1"})
    '''),
    "L02 body built in the function, values are expressions, multi-line": _case('''
        import requests
        def create(name, image, n):
            body = {
                "name": name,
                "imageName": image,
                "isServerless": True,
                "containerDiskInGb": n,
                "volumeInGb": 0,
                "ports": [],
            }
            return requests.post("https://rest.runpod.io/v1/templates", json=body).json()
    ''', '''
        import requests
        def create(name, image, n):
            body = {
                "name": name,
                "image": image,
                "serverless": True,
                "disk": n,
                "ports": [],
                "startSsh": False,
                "startJupyter": False,
            }
            return requests.post("https://api.runpod.io/v2/templates", json=body).json()
    '''),
    "Q09 argv list becomes cmd element for element": _case('''
        import requests
        requests.post(f"https://rest.runpod.io/v1/pods/{pid}/update", json={"dockerStartCmd": ["bash", "-lc", "python x.py"]})
    ''', '''
        import requests
        requests.patch(f"https://api.runpod.io/v2/pods/{pid}", json={"cmd": ["bash", "-lc", "python x.py"]})
    '''),
    "R06 dockerEntrypoint becomes entrypoint": _case('''
        import requests
        requests.post("https://rest.runpod.io/v1/templates", json={"name": "t", "imageName": "i", "dockerEntrypoint": ["/bin/sh"], "volumeInGb": 0, "ports": []})
    ''', '''
        import requests
        requests.post("https://api.runpod.io/v2/templates", json={"name": "t", "image": "i", "entrypoint": ["/bin/sh"], "ports": [], "disk": 50, "startSsh": False, "startJupyter": False})
    '''),
    # ---- manual items
    "R01 reset goes to v2 through the compat module": _case('''
        import requests
        def reset(pid):
            requests.post(f"https://rest.runpod.io/v1/pods/{pid}/reset")
    ''', '''
        import requests
        import v1bridge_compat
        def reset(pid):
            v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "POST", f"https://api.runpod.io/v2/pods/{pid}/reset")
    '''),
    "R07 response field with no v2 source: the call keeps v1's answer through the compat module": _case('''
        import requests
        pod = requests.get("https://rest.runpod.io/v1/pods/p1").json()
        print(pod["machineId"])
    ''', '''
        import requests
        import v1bridge_compat
        pod = v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "GET", "https://api.runpod.io/v2/pods/p1").json()
        print(pod["machineId"])
    '''),
    "Q03 list filter v2 ignores: applied at run time by the compat module": _case('''
        import requests
        requests.get("https://rest.runpod.io/v1/pods", params={"gpuTypeId": ["A"]})
    ''', '''
        import requests
        import v1bridge_compat
        v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "GET", "https://api.runpod.io/v2/pods", params={"gpuTypeId": ["A"]})
    '''),
}


def _check(before: str, after: str) -> None:
    result = rewrite_source(before, "case.py")
    assert result.error is None
    assert result.new_source == after
    cst.parse_module(result.new_source)
    again = rewrite_source(result.new_source, "case.py")
    assert again.new_source == result.new_source, "second run changed the code"


@pytest.mark.parametrize("name", list(NO_CHANGE))
def test_no_change(name: str) -> None:
    before, after = NO_CHANGE[name]
    _check(before, after)


@pytest.mark.parametrize("name", list(REWRITES))
def test_rewrite(name: str) -> None:
    before, after = REWRITES[name]
    _check(before, after)


def test_counts_by_rule_and_manual_items() -> None:
    before, _ = REWRITES["L04 start/stop/restart -> action"]
    result = rewrite_source(before, "c.py")
    assert dict(result.rules) == {"L01": 1, "L04": 2, "Q13": 1}
    reset, _ = REWRITES["R01 reset goes to v2 through the compat module"]
    result = rewrite_source(reset, "r.py")
    assert result.manual == [] and [(s.line, s.state, s.rule) for s in result.states] == [(3, 2, "R01")]


def test_line_endings_and_untouched_text_are_kept() -> None:
    """CRLF files stay CRLF; comments and odd spacing outside the edits stay byte for byte."""
    before = 'import requests  # keep   me\r\nx = requests.get( "https://rest.runpod.io/v1/endpoints" )   # and me\r\n'
    result = rewrite_source(before)
    assert result.new_source == 'import requests  # keep   me\r\nx = requests.get( "https://api.runpod.io/v2/serverless" )   # and me\r\n'


def test_host_replacement_is_configurable() -> None:
    before = 'import requests\nrequests.get("https://rest.runpod.io/v1/pods/x")\n'
    result = rewrite_source(before, v2_base="https://staging.example.com/v2")
    assert result.new_source == 'import requests\nrequests.get("https://staging.example.com/v2/pods/x")\n'


def test_unparsable_file_is_left_as_is() -> None:
    before = 'import requests\nrequests.get("https://rest.runpod.io/v1/pods"\n'
    result = rewrite_source(before)
    assert result.error and result.new_source == before and not result.changed
