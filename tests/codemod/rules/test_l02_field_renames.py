"""L02: request bodies become v2 bodies through the proxy's translator (with the conversions rules.yaml hands it:
Q09, R06, ...), answer fields are read by their v2 names (Q13, Q14 too).

Before/after pairs: each output exactly the expected code, it parses, and a second run changes nothing.
"""
from __future__ import annotations

import pytest

from tests.codemod.tools import case, check_rewrite

CASES = {
    "Q13 Q14 response fields through a returned object": case('''
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
    "L02 nested response read": case('''
        import requests
        ep = requests.get(f"https://rest.runpod.io/v1/endpoints/{eid}").json()
        print(ep["workersMax"], ep.get("idleTimeout"))
    ''', '''
        import requests
        ep = requests.get(f"https://api.runpod.io/v2/serverless/{eid}").json()
        print(ep["workers"]["max"], ep.get("workers", {}).get("idleTimeout"))
    '''),
    "L02 constant body literal at the call (create defaults made explicit)": case('''
        import requests
        requests.post("https://rest.runpod.io/v1/networkvolumes", json={"name": "data", "size": 50, "dataCenterId": "EU-RO-1"})
    ''', '''
        import requests
        requests.post("https://api.runpod.io/v2/network-volumes", json={"name": "data", "size": 50, "dataCenter": "EU-RO-1"})
    '''),
    "L02 body built in the function, values are expressions, multi-line": case('''
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
    "Q09 argv list becomes cmd element for element": case('''
        import requests
        requests.post(f"https://rest.runpod.io/v1/pods/{pid}/update", json={"dockerStartCmd": ["bash", "-lc", "python x.py"]})
    ''', '''
        import requests
        requests.patch(f"https://api.runpod.io/v2/pods/{pid}", json={"cmd": ["bash", "-lc", "python x.py"]})
    '''),
    "R06 dockerEntrypoint becomes entrypoint": case('''
        import requests
        requests.post("https://rest.runpod.io/v1/templates", json={"name": "t", "imageName": "i", "dockerEntrypoint": ["/bin/sh"], "volumeInGb": 0, "ports": []})
    ''', '''
        import requests
        requests.post("https://api.runpod.io/v2/templates", json={"name": "t", "image": "i", "entrypoint": ["/bin/sh"], "ports": [], "disk": 50, "startSsh": False, "startJupyter": False})
    '''),
}


@pytest.mark.parametrize("name", list(CASES))
def test_rewrite(name: str) -> None:
    check_rewrite(*CASES[name])
