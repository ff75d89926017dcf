"""L01: v1 base addresses become the v2 base, renamed resource segments are respelled, wherever the literal is.

Before/after pairs: each output exactly the expected code, it parses, and a second run changes nothing.
"""
from __future__ import annotations

import pytest

from tests.codemod.tools import case, check_rewrite

CASES = {
    "L01 base constant and renamed path": case('''
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
    "L01 getenv default, + concatenation, registries": case('''
        import os, requests
        BASE = os.environ.get("RUNPOD_URL", 'https://rest.runpod.io/v1')
        requests.delete(BASE + '/containerregistryauth/' + rid)
    ''', '''
        import os, requests
        BASE = os.environ.get("RUNPOD_URL", 'https://api.runpod.io/v2')
        requests.delete(BASE + '/registries/' + rid)
    '''),
    "L01 % and .format and urljoin": case('''
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
    "L01 class and instance attributes": case('''
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
    "L01 another host's /v1 shaped like this API's routes: untouched (a URL is this API's by its host)": case('''
        import httpx
        httpx.get("http://localhost:8080/v1/endpoints")
        httpx.get("https://internal.example.com/v1/pods/p1").json()["desiredStatus"]
    '''),
    "L01 httpx client base_url with relative paths": case('''
        import httpx
        client = httpx.Client(base_url="https://rest.runpod.io/v1", headers=h)
        client.delete(f"/endpoints/{eid}")
    ''', '''
        import httpx
        client = httpx.Client(base_url="https://api.runpod.io/v2", headers=h)
        client.delete(f"/serverless/{eid}")
    '''),
    "L01 billing network volumes": case('''
        import requests
        requests.get("https://rest.runpod.io/v1/billing/networkvolumes")
    ''', '''
        import requests
        requests.get("https://api.runpod.io/v2/billing/network-volumes")
    '''),
}


@pytest.mark.parametrize("name", list(CASES))
def test_rewrite(name: str) -> None:
    check_rewrite(*CASES[name])
