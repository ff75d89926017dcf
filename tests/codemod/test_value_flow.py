"""In-file value flow the rewrite follows: answers of another library, the action body's call form, a frozen
item URL, the error read of a call that stays, verbs guarded to a known set, bodies and URLs built over
several statements, answers unpacked from a `(status, data)` tuple, query strings encoded into the URL.

Before/after pairs, the case that must not change first. Each is checked for the exact output, that it
parses and that a second run changes nothing.
"""
from __future__ import annotations

import pytest

from tests.codemod.tools import case, check_rewrite


Q29 = "# v1bridge: Q29 read detail (and errors[]) from the problem body"
L01 = "# v1bridge: L01 use /v2/serverless, /v2/network-volumes, /v2/registries (and /v2 before every path)"
L02 = "# v1bridge: L02 send the v2 field (imageName -> image, containerDiskInGb -> disk, ...)"
Q02 = "# v1bridge: Q02 iterate response[<key>] (pods, endpoints, templates, networkVolumes, registries, records)"
L04 = "# v1bridge: L04 use PATCH on the resource and POST /v2/pods/{id}/action {action}"
R01 = "# v1bridge: R01 stop the pod, wait for EXITED, then start it (or restart it)"  # reset may be the verb

CASES = {
    # --- reads on what another library returns (an SDK's own answer shape)
    "an SDK's answer read alone: untouched": case('''
        import runpod
        def running():
            return [p["id"] for p in runpod.get_pods() if p.get("desiredStatus") == "RUNNING"]
    '''),
    "an SDK's answer read next to REST calls: the REST calls move, the SDK read stays": case('''
        import runpod
        import requests
        BASE = "https://rest.runpod.io/v1"
        def running():
            pods = runpod.get_pods()
            return [p["id"] for p in pods if p.get("desiredStatus") == "RUNNING"]
        def stop(pod_id):
            requests.post(f"{BASE}/pods/{pod_id}/stop").raise_for_status()
    ''', '''
        import runpod
        import requests
        BASE = "https://api.runpod.io/v2"
        def running():
            pods = runpod.get_pods()
            return [p["id"] for p in pods if p.get("desiredStatus") == "RUNNING"]
        def stop(pod_id):
            requests.post(f"{BASE}/pods/{pod_id}/action", json={"action": "stop"}).raise_for_status()
    '''),
    "json.loads of something read elsewhere is not a library's own answer: the calls keep v1's answers through the compat module": case('''
        import json
        import requests
        BASE = "https://rest.runpod.io/v1"
        def cached(path):
            return [p["id"] for p in json.load(open(path)) if p.get("desiredStatus") == "RUNNING"]
        def stop(pod_id):
            requests.post(f"{BASE}/pods/{pod_id}/stop").raise_for_status()
    ''', '''
        import json
        import requests

        import v1bridge_compat
        BASE = "https://api.runpod.io/v2"
        def cached(path):
            return [p["id"] for p in json.load(open(path)) if p.get("desiredStatus") == "RUNNING"]
        def stop(pod_id):
            v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "POST", f"{BASE}/pods/{pod_id}/stop").raise_for_status()
    '''),
    # --- the action body: positional like the module's other calls of the helper, else the helper's keyword
    "a helper whose other calls pass the body by position: the action body goes by position": case('''
        import requests
        class Api:
            base = "https://rest.runpod.io/v1"
            def rest(self, method, path, body=None):
                return requests.request(method, f"{self.base}{path}", json=body).json()
            def rename(self, pod_id, name):
                return self.rest("PATCH", f"/pods/{pod_id}", {"name": name})
            def restart(self, pod_id):
                self.rest("POST", f"/pods/{pod_id}/restart")
    ''', '''
        import requests
        class Api:
            base = "https://api.runpod.io/v2"
            def rest(self, method, path, body=None):
                return requests.request(method, f"{self.base}{path}", json=body).json()
            def rename(self, pod_id, name):
                return self.rest("PATCH", f"/pods/{pod_id}", {"name": name})
            def restart(self, pod_id):
                self.rest("POST", f"/pods/{pod_id}/action", {"action": "restart"})
    '''),
    "a helper whose other calls pass the body by keyword: the action body goes by keyword": case('''
        import requests
        class Api:
            base = "https://rest.runpod.io/v1"
            def rest(self, method, path, body=None):
                return requests.request(method, f"{self.base}{path}", json=body).json()
            def rename(self, pod_id, name):
                return self.rest("PATCH", f"/pods/{pod_id}", body={"name": name})
            def restart(self, pod_id):
                self.rest("POST", f"/pods/{pod_id}/restart")
    ''', '''
        import requests
        class Api:
            base = "https://api.runpod.io/v2"
            def rest(self, method, path, body=None):
                return requests.request(method, f"{self.base}{path}", json=body).json()
            def rename(self, pod_id, name):
                return self.rest("PATCH", f"/pods/{pod_id}", body={"name": name})
            def restart(self, pod_id):
                self.rest("POST", f"/pods/{pod_id}/action", body={"action": "restart"})
    '''),
    "a keyword-only body parameter: by keyword": case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def call(method, path, *, body=None):
            return requests.request(method, BASE + path, json=body).json()
        def stop(pod_id):
            call("POST", f"/pods/{pod_id}/stop")
    ''', '''
        import requests
        BASE = "https://api.runpod.io/v2"
        def call(method, path, *, body=None):
            return requests.request(method, BASE + path, json=body).json()
        def stop(pod_id):
            call("POST", f"/pods/{pod_id}/action", body={"action": "stop"})
    '''),
    # --- an item URL frozen at import, then `+ "/update"`
    "a frozen item URL of another API: untouched": case('''
        import requests
        ITEM = "https://example.com/v1/things/abc"
        requests.post(ITEM + "/update", json={"idleTimeout": 5})
    '''),
    "a frozen item URL + '/update': PATCH on the item itself, the empty operand goes": case('''
        import os
        import requests
        REST = os.getenv("RUNPOD_REST_API_URL", "https://rest.runpod.io/v1")
        ENDPOINT_URL = f"{REST}/endpoints/{os.environ['EP']}"
        def idle(seconds):
            requests.post(ENDPOINT_URL + "/update", json={"idleTimeout": seconds}).raise_for_status()
    ''', '''
        import os
        import requests
        REST = os.getenv("RUNPOD_REST_API_URL", "https://api.runpod.io/v2")
        ENDPOINT_URL = f"{REST}/serverless/{os.environ['EP']}"
        def idle(seconds):
            requests.patch(ENDPOINT_URL, json={"workers": {"idleTimeout": seconds}}).raise_for_status()
    '''),
    # --- a field whose converter only covers an older server: read by its v2 name
    "dockerStartCmd read on another API's answer: untouched": case('''
        import requests
        def current(pod_id):
            pod = requests.get(f"https://example.com/api/pods/{pod_id}").json()
            return pod["dockerStartCmd"]
    '''),
    "dockerStartCmd and dockerEntrypoint read on a pod: cmd and entrypoint": case('''
        import requests
        def current(pod_id):
            pod = requests.get(f"https://rest.runpod.io/v1/pods/{pod_id}").json()
            return pod["dockerStartCmd"], pod.get("dockerEntrypoint")
    ''', '''
        import requests
        def current(pod_id):
            pod = requests.get(f"https://api.runpod.io/v2/pods/{pod_id}").json()
            return pod["cmd"], pod.get("entrypoint")
    '''),
    # --- answers followed through a conditional, a list they are appended to, a function they are handed to
    "a list tolerance on another API's answer: untouched": case('''
        import httpx
        def names():
            data = httpx.get("https://example.com/api/templates").json()
            return [t["imageName"] for t in (data if isinstance(data, list) else [])]
    '''),
    "a list tolerance on a v1 list: every page read into it (Q30), reads renamed through the conditional": case('''
        import httpx
        def templates():
            data = httpx.get("https://rest.runpod.io/v1/templates").json()
            return data if isinstance(data, list) else []
        def images():
            return [t["imageName"] for t in templates() if t.get("isServerless")]
    ''', '''
        import httpx
        def templates():
            data, paging = [], {}
            while True:
                page = httpx.get("https://api.runpod.io/v2/templates", params=paging).json()
                data += page["templates"]
                if not page["pagination"]["hasNextPage"]:
                    break
                paging = {"cursor": page["pagination"]["nextCursor"]}
            return data if isinstance(data, list) else []
        def images():
            return [t["image"] for t in templates() if t.get("serverless")]
    '''),
    "answers appended to a list that is returned: the callers' reads are renamed": case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def make(names):
            made = []
            for name in names:
                made.append(requests.post(f"{BASE}/networkvolumes", json={"name": name, "dataCenterId": "EU-SE-1"}).json())
            return made
        def centers():
            return {v["dataCenterId"] for v in make(["a", "b"])}
    ''', '''
        import requests
        BASE = "https://api.runpod.io/v2"
        def make(names):
            made = []
            for name in names:
                made.append(requests.post(f"{BASE}/network-volumes", json={"name": name, "dataCenter": "EU-SE-1"}).json())
            return made
        def centers():
            return {v["dataCenter"] for v in make(["a", "b"])}
    '''),
    "a checker also handed another API's response: its error read stays": case('''
        import requests
        def check(resp):
            if resp.status_code >= 400:
                raise RuntimeError(resp.json().get("message"))
        def other():
            r = requests.get("https://example.com/api/pods")
            check(r)
    '''),
    "a checker handed only v1 responses: its error read becomes detail": case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def check(resp):
            if resp.status_code >= 400:
                body = resp.json()
                raise RuntimeError(body.get("message"))
        def remove(pod_id):
            r = requests.delete(f"{BASE}/pods/{pod_id}")
            check(r)
    ''', '''
        import requests
        BASE = "https://api.runpod.io/v2"
        def check(resp):
            if resp.status_code >= 400:
                body = resp.json()
                raise RuntimeError(body.get("detail"))
        def remove(pod_id):
            r = requests.delete(f"{BASE}/pods/{pod_id}")
            check(r)
    '''),
    # --- one urllib helper for v1 and the job API: method and body by parameter, JSON parsed by hand
    "a urllib helper called for the job API only: untouched": case('''
        import json
        import urllib.request
        def call(method, url, body=None):
            data = None
            if body is not None:
                data = json.dumps(body).encode()
            with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method)) as resp:
                raw = resp.read()
            return json.loads(raw) if raw else None
        def health(eid):
            return call("GET", f"https://api.runpod.ai/v2/{eid}/health")["workers"]
    '''),
    "a urllib helper for v1 and the job API: the v1 calls move with body and reads, the job API read stays": case('''
        import json
        import urllib.request
        REST = "https://rest.runpod.io/v1"
        def call(method, url, body=None):
            data = None
            if body is not None:
                data = json.dumps(body).encode()
            with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method)) as resp:
                raw = resp.read()
            return json.loads(raw) if raw else None
        def scale(eid, hi):
            top = max(hi, call("GET", f"{REST}/endpoints/{eid}")["workersMax"])
            call("PATCH", f"{REST}/endpoints/{eid}", {"workersMax": top})
            return call("GET", f"https://api.runpod.ai/v2/{eid}/health")["workers"]
    ''', '''
        import json
        import urllib.request
        REST = "https://api.runpod.io/v2"
        def call(method, url, body=None):
            data = None
            if body is not None:
                data = json.dumps(body).encode()
            with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method)) as resp:
                raw = resp.read()
            return json.loads(raw) if raw else None
        def scale(eid, hi):
            top = max(hi, call("GET", f"{REST}/serverless/{eid}")["workers"]["max"])
            call("PATCH", f"{REST}/serverless/{eid}", {"workers": {"max": top}})
            return call("GET", f"https://api.runpod.ai/v2/{eid}/health")["workers"]
    '''),
    # --- the error read of a call that stays on v1
    "a v2 call's answer held in a name and read by a v1-only name: the v1 calls beside it still move": case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        V2 = "https://api.runpod.io/v2"
        def workers(endpoint_id):
            resp = requests.get(f"{V2}/serverless/{endpoint_id}/workers")
            return resp.json()["workers"]
        def name(endpoint_id):
            return requests.get(f"{BASE}/endpoints/{endpoint_id}").json()["name"]
    ''', '''
        import requests
        BASE = "https://api.runpod.io/v2"
        V2 = "https://api.runpod.io/v2"
        def workers(endpoint_id):
            resp = requests.get(f"{V2}/serverless/{endpoint_id}/workers")
            return resp.json()["workers"]
        def name(endpoint_id):
            return requests.get(f"{BASE}/serverless/{endpoint_id}").json()["name"]
    '''),
    "an error read of a call to another API: untouched": case('''
        import requests
        def act(pod_id, verb):
            r = requests.post(f"https://example.com/pods/{pod_id}/{verb}")
            if r.status_code != 200:
                print(r.json().get("message"))
    '''),
    "an error read of a v1 call with a run-time verb: the call goes through the compat module, the read stays": case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def act(pod_id, verb):
            r = requests.post(f"{API}/pods/{pod_id}/{verb}")
            if r.status_code != 200:
                print(r.json().get("message"))
    ''', '''
        import requests

        import v1bridge_compat
        API = "https://api.runpod.io/v2"
        def act(pod_id, verb):
            r = v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "POST", f"{API}/pods/{pod_id}/{verb}")
            if r.status_code != 200:
                print(r.json().get("message"))
    '''),
    # --- a verb interpolated in the path, guarded to a known set
    "a guarded verb on another API: untouched": case('''
        import requests
        VERBS = ("start", "stop")
        def act(pod_id, verb):
            if verb not in VERBS:
                raise ValueError(verb)
            requests.post(f"https://example.com/pods/{pod_id}/{verb}")
    '''),
    "a guard that lets reset through: through the compat module": case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def act(pod_id, verb):
            if verb not in ("start", "stop", "reset"):
                raise ValueError(verb)
            requests.post(f"{API}/pods/{pod_id}/{verb}").raise_for_status()
    ''', '''
        import requests

        import v1bridge_compat
        API = "https://api.runpod.io/v2"
        def act(pod_id, verb):
            if verb not in ("start", "stop", "reset"):
                raise ValueError(verb)
            v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "POST", f"{API}/pods/{pod_id}/{verb}").raise_for_status()
    '''),
    "a verb that the function reassigns after the guard: through the compat module": case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def act(pod_id, verb):
            if verb not in ("start", "stop"):
                return None
            verb = verb.lower()
            requests.post(f"{API}/pods/{pod_id}/{verb}").raise_for_status()
    ''', '''
        import requests

        import v1bridge_compat
        API = "https://api.runpod.io/v2"
        def act(pod_id, verb):
            if verb not in ("start", "stop"):
                return None
            verb = verb.lower()
            v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "POST", f"{API}/pods/{pod_id}/{verb}").raise_for_status()
    '''),
    "a verb guarded by a module constant: one action call with the verb as its body": case('''
        import requests
        API = "https://rest.runpod.io/v1"
        VERBS = ("start", "stop", "restart")
        def act(pod_id, verb):
            if verb not in VERBS:
                raise ValueError(verb)
            requests.post(f"{API}/pods/{pod_id}/{verb}", timeout=30).raise_for_status()
    ''', '''
        import requests
        API = "https://api.runpod.io/v2"
        VERBS = ("start", "stop", "restart")
        def act(pod_id, verb):
            if verb not in VERBS:
                raise ValueError(verb)
            requests.post(f"{API}/pods/{pod_id}/action", timeout=30, json={"action": verb}).raise_for_status()
    '''),
    "a call inside `if verb in [...]`: migrated the same way": case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def act(pod_id, verb):
            if verb in ["stop", "start"]:
                return requests.post(f"{API}/pods/{pod_id}/{verb}").status_code
            return None
    ''', '''
        import requests
        API = "https://api.runpod.io/v2"
        def act(pod_id, verb):
            if verb in ["stop", "start"]:
                return requests.post(f"{API}/pods/{pod_id}/action", json={"action": verb}).status_code
            return None
    '''),
    # --- a body dict extended over several statements
    "a dict extended for another API: untouched": case('''
        import requests
        def create(name, disk):
            payload = {"name": name, "imageName": "python:3.12"}
            payload["containerDiskInGb"] = disk
            requests.post("https://example.com/api/pods", json=payload)
    '''),
    "statements that each set one field: renamed, dropped, or kept under their if": case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def create(name, disk, registry=None, ports=None):
            payload = {"name": name, "imageName": "python:3.12", "computeType": "CPU", "cpuFlavorIds": ["cpu3c"]}
            payload["containerDiskInGb"] = disk
            payload["volumeInGb"] = 0
            if registry:
                payload["containerRegistryAuthId"] = registry
            if ports:
                payload["ports"] = sorted(ports)
            print("creating", payload["name"])
            return requests.post(f"{BASE}/pods", json=payload).json()["id"]
    ''', '''
        import requests
        BASE = "https://api.runpod.io/v2"
        def create(name, disk, registry=None, ports=None):
            payload = {"name": name, "image": "python:3.12", "cpu": {"id": "cpu3c", "vcpuCount": 2}, "ports": ["8888/http", "22/tcp"]}
            payload["disk"] = disk
            if registry:
                payload["registry"] = registry
            if ports:
                payload["ports"] = sorted(ports)
            print("creating", payload["name"])
            return requests.post(f"{BASE}/pods", json=payload).json()["id"]
    '''),
    "a statement whose field merges with the literal's (vcpuCount into cpu): the body converted at run time": case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def create(name, flavor, vcpus):
            payload = {"name": name, "imageName": "python:3.12", "computeType": "CPU", "cpuFlavorIds": [flavor]}
            payload["vcpuCount"] = vcpus
            return requests.post(f"{BASE}/pods", json=payload).json()["id"]
    ''', '''
        import requests

        import v1bridge_compat
        BASE = "https://api.runpod.io/v2"
        def create(name, flavor, vcpus):
            payload = {"name": name, "imageName": "python:3.12", "computeType": "CPU", "cpuFlavorIds": [flavor]}
            payload["vcpuCount"] = vcpus
            return v1bridge_compat.with_v1_body(lambda v2_body: requests.post(f"{BASE}/pods", json=v2_body), "pods.create", payload, send=lambda method, path, **kw: requests.request(method, BASE + path, **kw)).json()["id"]
    '''),
    "a renamed key read before the call: the body converted at run time": case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def create(name, disk):
            payload = {"name": name, "imageName": "python:3.12", "computeType": "CPU", "cpuFlavorIds": ["cpu3c"]}
            payload["containerDiskInGb"] = disk
            print(payload["imageName"])
            return requests.post(f"{BASE}/pods", json=payload).json()["id"]
    ''', '''
        import requests

        import v1bridge_compat
        BASE = "https://api.runpod.io/v2"
        def create(name, disk):
            payload = {"name": name, "imageName": "python:3.12", "computeType": "CPU", "cpuFlavorIds": ["cpu3c"]}
            payload["containerDiskInGb"] = disk
            print(payload["imageName"])
            return v1bridge_compat.with_v1_body(lambda v2_body: requests.post(f"{BASE}/pods", json=v2_body), "pods.create", payload, send=lambda method, path, **kw: requests.request(method, BASE + path, **kw)).json()["id"]
    '''),
    # --- a URL concatenated over several statements
    "a URL of another API built over statements: untouched": case('''
        import requests
        def stop(pod_id):
            url = "https://example.com/api/pods/"
            url = url + pod_id
            url += "/stop"
            requests.post(url)
    '''),
    "a URL built over statements and a builder function: each call gets its v2 path and body": case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def pod_url(pod_id):
            url = BASE + "/pods/"
            url = url + pod_id
            return url
        def bounce(pod_id):
            url = pod_url(pod_id)
            stop_url = url + "/stop"
            requests.post(stop_url).raise_for_status()
            start_url = url
            start_url += "/start"
            requests.post(start_url).raise_for_status()
            return requests.get(pod_url(pod_id)).json()["desiredStatus"]
    ''', '''
        import requests
        BASE = "https://api.runpod.io/v2"
        def pod_url(pod_id):
            url = BASE + "/pods/"
            url = url + pod_id
            return url
        def bounce(pod_id):
            url = pod_url(pod_id)
            stop_url = url + "/action"
            requests.post(stop_url, json={"action": "stop"}).raise_for_status()
            start_url = url
            start_url += "/action"
            requests.post(start_url, json={"action": "start"}).raise_for_status()
            return requests.get(pod_url(pod_id)).json()["status"]
    '''),
    "a body value that reads a renamed answer field: that call's body converted at run time": case('''
        import requests
        REST = "https://rest.runpod.io/v1"
        def grow(eid, hi):
            before = requests.get(f"{REST}/endpoints/{eid}").json()
            requests.patch(f"{REST}/endpoints/{eid}", json={"workersMax": max(hi, before["workersMax"])})
    ''', '''
        import requests

        import v1bridge_compat
        REST = "https://api.runpod.io/v2"
        def grow(eid, hi):
            before = requests.get(f"{REST}/serverless/{eid}").json()
            v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "PATCH", f"{REST}/endpoints/{eid}", json={"workersMax": max(hi, before["workers"]["max"])})
    '''),
    # --- a helper that parses the answer into a name and returns that name (aiohttp `async with`)
    "a helper that rebinds the parsed answer before returning it: flagged, nothing changes": case('''
        BASE = "https://rest.runpod.io/v1"
        async def _call(session, method, path, **kw):
            async with session.request(method, f"{BASE}{path}", **kw) as resp:
                data = await resp.json(content_type=None)
                data = normalise(data)
                return data
        async def volume_ids(session):
            vols = await _call(session, "GET", "/networkvolumes")
            return [v["id"] for v in vols]
    ''', '''
        BASE = "https://rest.runpod.io/v1"
        async def _call(session, method, path, **kw):
            # v1bridge: Q02 the helper _call() stays on v1 with its callers (Q02 GET /networkvolumes -> GET /v2/network-volumes wraps the list in an object, and its answer is handed on before it is parsed; migrate it by hand); iterate response[<key>] (pods, endpoints, templates, networkVolumes, registries, records)
            async with session.request(method, f"{BASE}{path}", **kw) as resp:
                data = await resp.json(content_type=None)
                data = normalise(data)
                return data
        async def volume_ids(session):
            # v1bridge: Q02 GET /networkvolumes -> GET /v2/network-volumes wraps the list in an object, and its answer is handed on before it is parsed: migrate it by hand: iterate response[<key>] (pods, endpoints, templates, networkVolumes, registries, records)
            vols = await _call(session, "GET", "/networkvolumes")
            return [v["id"] for v in vols]
    '''),
    "a helper that binds the parsed answer to a name and returns it: its callers' reads move": case('''
        BASE = "https://rest.runpod.io/v1"
        async def _call(session, method, path, **kw):
            async with session.request(method, f"{BASE}{path}", **kw) as resp:
                data = await resp.json(content_type=None)
                if resp.status >= 400:
                    raise RuntimeError(data.get("message") if isinstance(data, dict) else data)
                return data
        async def ensure_volume(session, name, dc):
            vols = await _call(session, "GET", "/networkvolumes")
            for v in vols:
                if v["name"] == name and v["dataCenterId"] == dc:
                    return v["id"]
            created = await _call(session, "POST", "/networkvolumes", json={"name": name, "dataCenterId": dc, "size": 50})
            return created["id"]
    ''', '''
        BASE = "https://api.runpod.io/v2"
        async def _call(session, method, path, **kw):
            async with session.request(method, f"{BASE}{path}", **kw) as resp:
                data = await resp.json(content_type=None)
                if resp.status >= 400:
                    raise RuntimeError(data.get("detail") if isinstance(data, dict) else data)
                return data
        async def ensure_volume(session, name, dc):
            vols = (await _call(session, "GET", "/network-volumes"))["networkVolumes"]
            for v in vols:
                if v["name"] == name and v["dataCenter"] == dc:
                    return v["id"]
            created = await _call(session, "POST", "/network-volumes", json={"name": name, "dataCenter": dc, "size": 50})
            return created["id"]
    '''),
    # --- a helper returning `(status, data)`: the answer is followed where it is unpacked (`status, data = ...`)
    #     or indexed (`resp[1]`); where the item moves between returns, or the tuple is handed on, it is not
    "a (status, data) helper of another API: untouched": case('''
        import requests
        def call(path):
            resp = requests.get("https://example.com/api/v1" + path, timeout=30)
            return resp.status_code, resp.json()
        def models():
            status, data = call("/models")
            return [m["id"] for m in data] if status == 200 else []
    '''),
    # ... its request translated at run time instead (issue 21): the tuple holds v1's status and answer as before
    "a helper whose answer is not in the same place in every return: its request translated at run time": case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def call(path):
            resp = requests.get(BASE + path, timeout=30)
            if resp.ok:
                return resp.status_code, resp.json()
            return resp.json(), resp.status_code
        def template(tid):
            status, tpl = call(f"/templates/{tid}")
            return tpl["imageName"]
    ''', '''
        import requests

        import v1bridge_compat
        BASE = "https://api.runpod.io/v2"
        def call(path):
            resp = v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, timeout=30, **kw), "GET", BASE + path)
            if resp.ok:
                return resp.status_code, resp.json()
            return resp.json(), resp.status_code
        def template(tid):
            status, tpl = call(f"/templates/{tid}")
            return tpl["imageName"]
'''),
    "a (status, data) tuple handed on whole: its request translated at run time, the reads stay v1's": case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def call(path):
            resp = requests.get(BASE + path, timeout=30)
            return resp.status_code, resp.json()
        def raw_template(tid):
            answer = call(f"/templates/{tid}")
            return answer
        def image(tid):
            return raw_template(tid)[1]["imageName"]
    ''', '''
        import requests

        import v1bridge_compat
        BASE = "https://api.runpod.io/v2"
        def call(path):
            resp = v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, timeout=30, **kw), "GET", BASE + path)
            return resp.status_code, resp.json()
        def raw_template(tid):
            answer = call(f"/templates/{tid}")
            return answer
        def image(tid):
            return raw_template(tid)[1]["imageName"]
'''),
    "urllib helper returning (status, json.loads(raw)), its error body parsed in `except`: reads of the unpacked "
    "answer move, the method left to its default GET": case('''
        import json
        import urllib.error
        import urllib.request
        BASE = "https://rest.runpod.io/v1"
        def http_request(url, method="GET", body=None):
            data = json.dumps(body).encode() if body is not None else None
            req = urllib.request.Request(url, data=data, method=method)
            try:
                with urllib.request.urlopen(req, timeout=30) as resp:
                    raw = resp.read()
                    return resp.status, (json.loads(raw) if raw else None)
            except urllib.error.HTTPError as err:
                payload = json.loads(err.read() or b"{}")
                return err.code, payload
        def template(template_id):
            status, data = http_request(BASE + "/templates/" + template_id)
            if status == 404:
                return None
            if status >= 400:
                raise RuntimeError(data["message"])
            return data
        def describe(template_id):
            got = template(template_id)
            return got["imageName"], got.get("isServerless")
    ''', '''
        import json
        import urllib.error
        import urllib.request
        BASE = "https://api.runpod.io/v2"
        def http_request(url, method="GET", body=None):
            data = json.dumps(body).encode() if body is not None else None
            req = urllib.request.Request(url, data=data, method=method)
            try:
                with urllib.request.urlopen(req, timeout=30) as resp:
                    raw = resp.read()
                    return resp.status, (json.loads(raw) if raw else None)
            except urllib.error.HTTPError as err:
                payload = json.loads(err.read() or b"{}")
                return err.code, payload
        def template(template_id):
            status, data = http_request(BASE + "/templates/" + template_id)
            if status == 404:
                return None
            if status >= 400:
                raise RuntimeError(data["detail"])
            return data
        def describe(template_id):
            got = template(template_id)
            return got["image"], got.get("serverless")
    '''),
    "a list unpacked from the tuple, and one read as resp[1]: unwrapped where each is read": case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def call(path):
            resp = requests.get(BASE + path, timeout=30)
            return resp.status_code, resp.json()
        def volume_names():
            status, vols = call("/networkvolumes")
            if status >= 400:
                raise RuntimeError(vols["message"])
            return [v["name"] for v in vols]
        def volume_sizes():
            answer = call("/networkvolumes")
            if answer[0] != 200:
                return {}
            return {v["id"]: v["size"] for v in answer[1]}
    ''', '''
        import requests
        BASE = "https://api.runpod.io/v2"
        def call(path):
            resp = requests.get(BASE + path, timeout=30)
            return resp.status_code, resp.json()
        def volume_names():
            status, vols = call("/network-volumes")
            if status >= 400:
                raise RuntimeError(vols["detail"])
            return [v["name"] for v in vols["networkVolumes"]]
        def volume_sizes():
            answer = call("/network-volumes")
            if answer[0] != 200:
                return {}
            return {v["id"]: v["size"] for v in answer[1]["networkVolumes"]}
    '''),
    "a paged list unpacked from the tuple: the cursor loop pages the unpacked name itself": case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def call(path, params=None):
            resp = requests.get(BASE + path, params=params, timeout=30)
            return resp.status_code, resp.json()
        def templates():
            status, data = call("/templates")
            if status != 200:
                raise RuntimeError(data.get("message"))
            return data
    ''', '''
        import requests
        BASE = "https://api.runpod.io/v2"
        def call(path, params=None):
            resp = requests.get(BASE + path, params=params, timeout=30)
            return resp.status_code, resp.json()
        def templates():
            all_templates, paging = [], {}
            while True:
                status, data = call("/templates", params=paging)
                if status != 200:
                    raise RuntimeError(data.get("detail"))
                all_templates += data["templates"]
                if not data["pagination"]["hasNextPage"]:
                    break
                paging = {"cursor": data["pagination"]["nextCursor"]}
            return all_templates
    '''),
    # --- a query string encoded into the URL (`"?" + urlencode({...})`): its parameters are read like `params=`
    "a query string the rewrite cannot read: converted at run time": case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def spend(query):
            return sum(r["amount"] for r in requests.get(BASE + "/billing/pods?" + query).json())
    ''', '''
        import requests

        import v1bridge_compat
        BASE = "https://api.runpod.io/v2"
        def spend(query):
            return sum(r["amount"] for r in v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "GET", BASE + "/billing/pods?" + query).json())
    '''),
    "an urlencoded query with a parameter v2 cannot give: through the compat module": case('''
        import urllib.parse
        import requests
        BASE = "https://rest.runpod.io/v1"
        def gpu_spend(gpu):
            return requests.get(f"{BASE}/billing/pods?{urllib.parse.urlencode({'gpuTypeId': gpu})}").json()
    ''', '''
        import urllib.parse
        import requests

        import v1bridge_compat
        BASE = "https://api.runpod.io/v2"
        def gpu_spend(gpu):
            return v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "GET", f"{BASE}/billing/pods?{urllib.parse.urlencode({'gpuTypeId': gpu})}").json()
    '''),
    "an urlencoded query in a variable: a native grouping goes, the others stay": case('''
        import urllib.parse
        import requests
        BASE = "https://rest.runpod.io/v1"
        def pod_spend(pod_id, bucket="day"):
            query = urllib.parse.urlencode({"bucketSize": bucket, "grouping": "podId", "podId": pod_id})
            return sum(r["amount"] for r in requests.get(BASE + "/billing/pods?" + query).json())
    ''', '''
        import urllib.parse
        import requests
        BASE = "https://api.runpod.io/v2"
        def pod_spend(pod_id, bucket="day"):
            query = urllib.parse.urlencode({"bucketSize": bucket, "podId": pod_id})
            return sum(r["totalAmount"] for r in requests.get(BASE + "/billing/pods?" + query).json()["records"])
    '''),
    # --- a urllib helper: its method parameter's default, and the error body read from `HTTPError.read()`
    "a urllib helper of another API with the same error read: untouched": case('''
        import json
        import urllib.error
        import urllib.request
        API_URL = "https://internal.example.com/v1"
        def http_request(url, method="GET", body=None, headers=None):
            data = json.dumps(body).encode() if body is not None else None
            req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
            try:
                with urllib.request.urlopen(req, timeout=30) as resp:
                    return json.loads(resp.read().decode() or "null")
            except urllib.error.HTTPError as e:
                err = json.loads(e.read().decode() or "{}")
                raise RuntimeError(err.get("message", str(e))) from None
        def status(pod_id):
            return http_request(f"{API_URL}/pods/{pod_id}")["desiredStatus"]
    '''),
    "a urllib helper called without a method (its default GET) and its HTTPError body read: both move": case('''
        import json
        import urllib.error
        import urllib.request
        API_URL = "https://rest.runpod.io/v1"
        def http_request(url, method="GET", body=None, headers=None):
            data = json.dumps(body).encode() if body is not None else None
            req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
            try:
                with urllib.request.urlopen(req, timeout=30) as resp:
                    return json.loads(resp.read().decode() or "null")
            except urllib.error.HTTPError as e:
                err = json.loads(e.read().decode() or "{}")
                raise RuntimeError(err.get("message", str(e))) from None
        def status(pod_id):
            return http_request(f"{API_URL}/pods/{pod_id}")["desiredStatus"]
        def rename(pod_id, name):
            return http_request(f"{API_URL}/pods/{pod_id}", "PATCH", {"name": name})
    ''', '''
        import json
        import urllib.error
        import urllib.request
        API_URL = "https://api.runpod.io/v2"
        def http_request(url, method="GET", body=None, headers=None):
            data = json.dumps(body).encode() if body is not None else None
            req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
            try:
                with urllib.request.urlopen(req, timeout=30) as resp:
                    return json.loads(resp.read().decode() or "null")
            except urllib.error.HTTPError as e:
                err = json.loads(e.read().decode() or "{}")
                raise RuntimeError(err.get("detail", str(e))) from None
        def status(pod_id):
            return http_request(f"{API_URL}/pods/{pod_id}")["status"]
        def rename(pod_id, name):
            return http_request(f"{API_URL}/pods/{pod_id}", "PATCH", {"name": name})
    '''),
}


@pytest.mark.parametrize("name", list(CASES))
def test_value_flowcase(name: str) -> None:
    check_rewrite(*CASES[name])
