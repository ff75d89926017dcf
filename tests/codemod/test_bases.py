"""Bases, helpers and flags (issue 11, r11b): URL builder functions, the helper of a family left on v1, v1 on the
v2 host, verbs v1 never had; cross-file constants (a sibling module's base, imported method constants).

Before/after pairs, the case that must not change first. Each is checked for the exact output, that it parses
and that a second run changes nothing.
"""
from __future__ import annotations

import textwrap

import pytest

from codemod.engine import rewrite_files
from tests.codemod.tools import check_rewrite

L01 = "# v1bridge: L01 use /v2/serverless, /v2/network-volumes, /v2/registries (and /v2 before every path)"
L04 = "# v1bridge: L04 use PATCH on the resource and POST /v2/pods/{id}/action {action}"


def _case(before: str, after: str | None = None) -> tuple[str, str]:
    before = textwrap.dedent(before).lstrip("\n")
    return before, before if after is None else textwrap.dedent(after).lstrip("\n").replace("{L01}", L01).replace(
        "{L04}", L04).replace("{Q29}", "# v1bridge: Q29 read detail (and errors[]) from the problem body")


CASES = {
    # --- a function whose body is one `return <url>` builds the URL of every call that goes through it
    "a URL builder of another API: untouched": _case('''
        import requests
        API = "https://example.com/api/v1"
        def _url(path):
            return API.rstrip("/") + "/" + path
        def pods():
            return requests.get(_url("pods")).json()
    '''),
    "a URL builder on the v1 base: the base, paths and bodies of its calls move": _case('''
        import requests
        API = "https://rest.runpod.io/v1/"
        def _url(path):
            """The full address of a path."""
            return API.rstrip("/") + "/" + path
        def stop(pod_id):
            requests.post(_url(f"pods/{pod_id}/stop")).raise_for_status()
        def delete(pod_id):
            requests.delete(_url("pods/" + pod_id)).raise_for_status()
    ''', '''
        import requests
        API = "https://api.runpod.io/v2/"
        def _url(path):
            """The full address of a path."""
            return API.rstrip("/") + "/" + path
        def stop(pod_id):
            requests.post(_url(f"pods/{pod_id}/action"), json={"action": "stop"}).raise_for_status()
        def delete(pod_id):
            requests.delete(_url("pods/" + pod_id)).raise_for_status()
    '''),
    # --- `"/".join([base, *parts])` in a URL builder, the base on a settings object (`self.settings.base`)
    "a joined URL of another API: untouched": _case('''
        import httpx
        class Settings:
            base: str = "https://example.com/api"
        class Client:
            def __init__(self, settings: Settings | None = None):
                self.settings = settings or Settings()
            def _url(self, *parts):
                return "/".join([self.settings.base.rstrip("/"), *parts])
            def volumes(self):
                return httpx.get(self._url("networkvolumes")).json()
    '''),
    "a joined URL on a settings field default: the field, the segments and the list read move": _case('''
        import httpx
        class Settings:
            base: str = "https://rest.runpod.io/v1"
        class Client:
            def __init__(self, settings: Settings | None = None):
                self.settings = settings or Settings()
            def _url(self, *parts):
                return "/".join([self.settings.base.rstrip("/"), *parts])
            def volumes(self):
                return httpx.get(self._url("networkvolumes")).json()
            def drop(self, volume_id):
                httpx.delete(self._url("networkvolumes", volume_id)).raise_for_status()
    ''', '''
        import httpx
        class Settings:
            base: str = "https://api.runpod.io/v2"
        class Client:
            def __init__(self, settings: Settings | None = None):
                self.settings = settings or Settings()
            def _url(self, *parts):
                return "/".join([self.settings.base.rstrip("/"), *parts])
            def volumes(self):
                return httpx.get(self._url("network-volumes")).json()["networkVolumes"]
            def drop(self, volume_id):
                httpx.delete(self._url("network-volumes", volume_id)).raise_for_status()
    '''),
    # --- `"/".join([base] + [str(p).strip("/") for p in parts])`: the comprehension over `*parts` followed
    "a joined comprehension that filters its parts: not followed, the base flagged, nothing else changes": _case('''
        import os
        import requests
        BASE = os.getenv("RUNPOD_API_BASE", "https://rest.runpod.io/v1").rstrip("/")
        class Pods:
            def _url(self, *parts):
                return "/".join([BASE] + [str(p).strip("/") for p in parts if p])
            def stop(self, pod_id):
                return requests.post(self._url("pods", pod_id, "stop")).status_code == 200
    ''', '''
        import os
        import requests
        # v1bridge: L01 v1 base address used where the rewrite cannot follow it to a call: migrate it with its calls by hand (use /v2/serverless, /v2/network-volumes, /v2/registries (and /v2 before every path))
        BASE = os.getenv("RUNPOD_API_BASE", "https://rest.runpod.io/v1").rstrip("/")
        class Pods:
            def _url(self, *parts):
                return "/".join([BASE] + [str(p).strip("/") for p in parts if p])
            def stop(self, pod_id):
                return requests.post(self._url("pods", pod_id, "stop")).status_code == 200
    '''),
    "a base joined to a comprehension over `*parts`: the base, the verb path and the reads move": _case('''
        import os
        import requests
        BASE = os.getenv("RUNPOD_API_BASE", "https://rest.runpod.io/v1").rstrip("/")
        class Pods:
            def __init__(self, key):
                self.s = requests.Session()
                self.s.headers["Authorization"] = f"Bearer {key}"
            def _url(self, *parts):
                return "/".join([BASE] + [str(p).strip("/") for p in parts])
            def status(self, pod_id):
                return self.s.get(self._url("pods", pod_id)).json()["desiredStatus"]
            def stop(self, pod_id):
                return self.s.post(self._url("pods", pod_id, "stop")).status_code == 200
            def terminate(self, pod_id):
                self.s.delete(self._url("pods", pod_id)).raise_for_status()
    ''', '''
        import os
        import requests
        BASE = os.getenv("RUNPOD_API_BASE", "https://api.runpod.io/v2").rstrip("/")
        class Pods:
            def __init__(self, key):
                self.s = requests.Session()
                self.s.headers["Authorization"] = f"Bearer {key}"
            def _url(self, *parts):
                return "/".join([BASE] + [str(p).strip("/") for p in parts])
            def status(self, pod_id):
                return self.s.get(self._url("pods", pod_id)).json()["status"]
            def stop(self, pod_id):
                return self.s.post(self._url("pods", pod_id, "action"), json={"action": "stop"}).status_code == 200
            def terminate(self, pod_id):
                self.s.delete(self._url("pods", pod_id)).raise_for_status()
    '''),
    # --- a partial base (`.../v1/billing`): its path leads every caller's path
    "a partial base already on v2: untouched": _case('''
        import requests
        BILLING = "https://api.runpod.io/v2/billing"
        def _get(path, params):
            r = requests.get(f"{BILLING}{path}", params=params, timeout=30)
            r.raise_for_status()
            return r.json()
        def storage(month):
            return [(r["startTime"], r["totalAmount"]) for r in _get("/network-volumes", {"bucketSize": month})["records"]]
    '''),
    "a partial billing base: base, path, record fields move; a row per record keeps v1's one record a bucket": _case('''
        import requests
        BILLING = "https://rest.runpod.io/v1/billing"
        def _get(path, params):
            r = requests.get(f"{BILLING}{path}", params=params, timeout=30)
            r.raise_for_status()
            return r.json()
        def storage(month):
            return [(r["time"], r["amount"]) for r in _get("/networkvolumes", {"bucketSize": month})]
    ''', '''
        import requests

        import v1bridge_compat
        BILLING = "https://api.runpod.io/v2/billing"
        def _get(path, params):
            r = requests.get(f"{BILLING}{path}", params=params, timeout=30)
            r.raise_for_status()
            return r.json()
        def storage(month):
            return [(r["startTime"], r["totalAmount"]) for r in v1bridge_compat.regroup_billing("billing_network_volume", _get("/network-volumes", {"bucketSize": month}))]
    '''),
    "a partial billing base, the records only summed: plain v2 (a total is the same over v1's buckets)": _case('''
        import requests
        BILLING = "https://rest.runpod.io/v1/billing"
        def _get(path, params):
            r = requests.get(f"{BILLING}{path}", params=params, timeout=30)
            r.raise_for_status()
            return r.json()
        def storage(month):
            return sum(r["amount"] for r in _get("/networkvolumes", {"bucketSize": month}))
    ''', '''
        import requests
        BILLING = "https://api.runpod.io/v2/billing"
        def _get(path, params):
            r = requests.get(f"{BILLING}{path}", params=params, timeout=30)
            r.raise_for_status()
            return r.json()
        def storage(month):
            return sum(r["totalAmount"] for r in _get("/network-volumes", {"bucketSize": month})["records"])
    '''),
    "a partial billing base with a grouping v2 cannot rebuild: the helper and its caller flagged R10": _case('''
        import requests
        BILLING = "https://rest.runpod.io/v1/billing"
        def _get(path, params):
            r = requests.get(f"{BILLING}{path}", params=params, timeout=30)
            r.raise_for_status()
            return r.json()
        def by_gpu():
            return _get("/pods", {"bucketSize": "day", "grouping": "gpuTypeId"})
    ''', '''
        import requests
        BILLING = "https://rest.runpod.io/v1/billing"
        def _get(path, params):
            # v1bridge: R10 the helper _get() stays on v1 with its callers (R10 group v2 per-resource records yourself); group v2 per-resource records yourself
            r = requests.get(f"{BILLING}{path}", params=params, timeout=30)
            r.raise_for_status()
            return r.json()
        def by_gpu():
            # v1bridge: R10 v1 query parameter "grouping" has no v2 form the rewrite can write here: group v2 per-resource records yourself
            return _get("/pods", {"bucketSize": "day", "grouping": "gpuTypeId"})
    '''),
    # --- a billing `grouping` v2 does natively (mappings `native`: podId on pods, endpointId on serverless) goes;
    #     any other grouping, or one the rewrite would drop with a comment, stays flagged R10
    "a grouping v2 does not do natively (endpointId on pod billing): through the compat module, nothing dropped": _case('''
        import requests
        BILLING = "https://rest.runpod.io/v1/billing"
        def pod_spend(key):
            params = {"bucketSize": "day", "grouping": "endpointId"}
            return requests.get(f"{BILLING}/pods", params=params, headers={"Authorization": key}).json()
    ''', '''
        import requests

        import v1bridge_compat
        BILLING = "https://api.runpod.io/v2/billing"
        def pod_spend(key):
            params = {"bucketSize": "day", "grouping": "endpointId"}
            return v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, headers={"Authorization": key}, **kw), "GET", f"{BILLING}/pods", params=params).json()
    '''),
    "a grouping only known at run time: through the compat module, nothing dropped": _case('''
        import requests
        BILLING = "https://rest.runpod.io/v1/billing"
        def pod_spend(key, grouping):
            return requests.get(f"{BILLING}/pods", params={"grouping": grouping}, headers={"Authorization": key}).json()
    ''', '''
        import requests

        import v1bridge_compat
        BILLING = "https://api.runpod.io/v2/billing"
        def pod_spend(key, grouping):
            return v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, headers={"Authorization": key}, **kw), "GET", f"{BILLING}/pods", params={"grouping": grouping}).json()
    '''),
    "a native grouping with a comment on it: through the compat module (the drop would lose the comment)": _case('''
        import requests
        BILLING = "https://rest.runpod.io/v1/billing"
        def pod_spend(key):
            params = {
                "bucketSize": "day",
                "grouping": "podId",  # one line per pod
            }
            return requests.get(f"{BILLING}/pods", params=params, headers={"Authorization": key}).json()
    ''', '''
        import requests

        import v1bridge_compat
        BILLING = "https://api.runpod.io/v2/billing"
        def pod_spend(key):
            params = {
                "bucketSize": "day",
                "grouping": "podId",  # one line per pod
            }
            return v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, headers={"Authorization": key}, **kw), "GET", f"{BILLING}/pods", params=params).json()
    '''),
    "a native grouping last in a dict at the call (podId on pod billing): the element goes": _case('''
        import requests
        BILLING = "https://rest.runpod.io/v1/billing"
        def pod_spend(key, pod_id):
            records = requests.get(f"{BILLING}/pods", params={"podId": pod_id, "grouping": "podId"},
                                   headers={"Authorization": key}).json()
            return sum(r["amount"] for r in records)
    ''', '''
        import requests
        BILLING = "https://api.runpod.io/v2/billing"
        def pod_spend(key, pod_id):
            records = requests.get(f"{BILLING}/pods", params={"podId": pod_id},
                                   headers={"Authorization": key}).json()["records"]
            return sum(r["totalAmount"] for r in records)
    '''),
    "a native grouping amid a dict of one element a line, trailing comma kept": _case('''
        import requests
        BILLING = "https://rest.runpod.io/v1/billing"
        def pod_spend(key):
            params = {
                "grouping": "podId",
                "bucketSize": "week",
            }
            return requests.get(f"{BILLING}/pods", params=params, headers={"Authorization": key}).json()
    ''', '''
        import requests
        BILLING = "https://api.runpod.io/v2/billing"
        def pod_spend(key):
            params = {
                "bucketSize": "week",
            }
            return requests.get(f"{BILLING}/pods", params=params, headers={"Authorization": key}).json()["records"]
    '''),
    "a native grouping set by a statement (endpointId on serverless billing): the statement goes": _case('''
        import requests
        BILLING = "https://rest.runpod.io/v1/billing"
        def serverless_spend(key, endpoint_id=None):
            params = {"bucketSize": "day"}
            if endpoint_id:
                params["endpointId"] = endpoint_id
                params["grouping"] = "endpointId"
            return requests.get(f"{BILLING}/endpoints", params=params, headers={"Authorization": key}).json()
    ''', '''
        import requests
        BILLING = "https://api.runpod.io/v2/billing"
        def serverless_spend(key, endpoint_id=None):
            params = {"bucketSize": "day"}
            if endpoint_id:
                params["serverlessId"] = endpoint_id
            return requests.get(f"{BILLING}/serverless", params=params, headers={"Authorization": key}).json()["records"]
    '''),
    "a native grouping, the only statement of its block: `pass` keeps the block": _case('''
        import requests
        BILLING = "https://rest.runpod.io/v1/billing"
        def serverless_spend(key, per_endpoint=False):
            params = {"bucketSize": "day"}
            if per_endpoint:
                params["grouping"] = "endpointId"
            return requests.get(f"{BILLING}/endpoints", params=params, headers={"Authorization": key}).json()
    ''', '''
        import requests
        BILLING = "https://api.runpod.io/v2/billing"
        def serverless_spend(key, per_endpoint=False):
            params = {"bucketSize": "day"}
            if per_endpoint:
                pass
            return requests.get(f"{BILLING}/serverless", params=params, headers={"Authorization": key}).json()["records"]
    '''),
    # --- `answer or []`: a helper that may answer None keeps being tolerated
    "a list read tolerating None: (answer or {}).get(key, []) (a list v2 does not page)": _case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def _get(path):
            r = requests.get(BASE + path, timeout=10)
            return r.json() if r.text else None
        def volumes():
            return _get("/networkvolumes") or []
    ''', '''
        import requests
        BASE = "https://api.runpod.io/v2"
        def _get(path):
            r = requests.get(BASE + path, timeout=10)
            return r.json() if r.text else None
        def volumes():
            return (_get("/network-volumes") or {}).get("networkVolumes", [])
    '''),
    # --- an error text matched against v1's words cannot be migrated by renaming the key
    "an error text only shown: message -> detail": _case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def stop(pod_id):
            r = requests.post(f"{BASE}/pods/{pod_id}/stop", timeout=30)
            if not r.ok:
                raise RuntimeError(r.json().get("message"))
    ''', '''
        import requests
        BASE = "https://api.runpod.io/v2"
        def stop(pod_id):
            r = requests.post(f"{BASE}/pods/{pod_id}/action", timeout=30, json={"action": "stop"})
            if not r.ok:
                raise RuntimeError(r.json().get("detail"))
    '''),
    "an error text tested for v1's words (through a variable and a function): the call is plain v2, its errors keep v1's shape through the compat module": _case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def _busy(message):
            return "not enough free gpus" in (message or "").lower()
        def stop(pod_id):
            r = requests.post(f"{BASE}/pods/{pod_id}/stop", timeout=30)
            if not r.ok:
                msg = r.json().get("message")
                if _busy(msg):
                    return False
                raise RuntimeError(msg)
            return True
    ''', '''
        import requests

        import v1bridge_compat
        BASE = "https://api.runpod.io/v2"
        def _busy(message):
            return "not enough free gpus" in (message or "").lower()
        def stop(pod_id):
            r = v1bridge_compat.v1_error(requests.post(f"{BASE}/pods/{pod_id}/action", timeout=30, json={"action": "stop"}), "pods.stop")
            if not r.ok:
                msg = r.json().get("message")
                if _busy(msg):
                    return False
                raise RuntimeError(msg)
            return True
    '''),
    # --- a family left on v1: the call its helper makes, and the helper's error read, say so too
    # (the one reading `machine`, which v2 does not name, is a plain v2 GET read through the v1 view; its include flag
    # goes into includes=)
    "a helper's callers decided one by one: the plain one moves, the one v2 cannot answer goes through the compat module": _case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def _get(path):
            r = requests.get(API + path, timeout=10)
            if r.status_code >= 400:
                raise RuntimeError(r.json()["message"])
            return r.json()
        def machine(pod_id):
            return _get(f"/pods/{pod_id}?includeMachine=true")["machine"]
        def pod(pod_id):
            return _get(f"/pods/{pod_id}")
    ''', '''
        import requests

        import v1bridge_compat
        API = "https://api.runpod.io/v2"
        def _get(path):
            r = requests.get(API + path, timeout=10)
            if r.status_code >= 400:
                raise RuntimeError(r.json()["detail"])
            return r.json()
        def machine(pod_id):
            return v1bridge_compat.v1_view("pod", _get(f"/pods/{pod_id}"), includes=("machine",))["machine"]
        def pod(pod_id):
            return _get(f"/pods/{pod_id}")
    '''),
    # --- /v1 on the v2 host never served v1 (404): nothing to migrate from, a person decides
    "/v1 on the v2 host: left and flagged L01, the base kept": _case('''
        import requests
        OLD = "https://api.runpod.io/v1"
        def pods():
            return requests.get(OLD + "/pods").json()
    ''', '''
        import requests
        OLD = "https://api.runpod.io/v1"
        def pods():
            # v1bridge: L01 GET /pods on a v1 prefix of the v2 host, where v1 was never served (the call answered 404): a person must confirm what it should do: use /v2/serverless, /v2/network-volumes, /v2/registries (and /v2 before every path)
            return requests.get(OLD + "/pods").json()
    '''),
    # --- a record read for fields v2 does not name (publicIp, portMappings: built from runtime.ports): the call is
    # plain v2, its answer read through the v1 view where it is parsed, the reads as written
    "publicIp read on a parsed answer: plain v2 GET, the answer through v1_view": _case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def ssh(pod_id):
            r = requests.get(f"{API}/pods/{pod_id}", timeout=10)
            r.raise_for_status()
            pod = r.json()
            return pod["publicIp"], pod["portMappings"]["22"], pod["desiredStatus"]
    ''', '''
        import requests

        import v1bridge_compat
        API = "https://api.runpod.io/v2"
        def ssh(pod_id):
            r = requests.get(f"{API}/pods/{pod_id}", timeout=10)
            r.raise_for_status()
            pod = v1bridge_compat.v1_view("pod", r.json())
            return pod["publicIp"], pod["portMappings"]["22"], pod["desiredStatus"]
    '''),
    "publicIp read on an async answer parsed where it is read": _case('''
        import httpx
        API = "https://rest.runpod.io/v1"
        async def ssh(client: httpx.AsyncClient, pod_id):
            r = await client.get(f"{API}/pods/{pod_id}")
            return r.json()["publicIp"]
    ''', '''
        import httpx

        import v1bridge_compat
        API = "https://api.runpod.io/v2"
        async def ssh(client: httpx.AsyncClient, pod_id):
            r = await client.get(f"{API}/pods/{pod_id}")
            return v1bridge_compat.v1_view("pod", r.json())["publicIp"]
    '''),
    # (a view whose record needs a v2 read of its own, an endpoint's gpuTypeIds from the GPU catalog, is given the
    # client's call on a v2 path: the module's helper that puts its base before the path)
    "gpuTypeIds read through a helper on a base: the view reads the catalog through that helper": _case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def _get(path):
            r = requests.get(API + path, timeout=10)
            r.raise_for_status()
            return r.json()
        def gpus(endpoint_id):
            ep = _get(f"/endpoints/{endpoint_id}")
            return ep["gpuTypeIds"], ep["workersMax"]
    ''', '''
        import requests

        import v1bridge_compat
        API = "https://api.runpod.io/v2"
        def _get(path):
            r = requests.get(API + path, timeout=10)
            r.raise_for_status()
            return r.json()
        def gpus(endpoint_id):
            ep = v1bridge_compat.v1_view("endpoint", _get(f"/serverless/{endpoint_id}"), send=v1bridge_compat.by_method(get=_get))
            return ep["gpuTypeIds"], ep["workersMax"]
    '''),
    # (... and when no call of the client on a v2 path can be written (a URL ending in a variable), the whole call
    # is translated at run time, as before)
    "gpuTypeIds read on a call no v2-path send can be made of: the whole call translated": _case('''
        import requests
        API = "https://rest.runpod.io/v1"
        S = requests.Session()
        def gpus(endpoint_id):
            return S.get(f"{API}/endpoints/{endpoint_id}", timeout=10).json()["gpuTypeIds"]
    ''', '''
        import requests

        import v1bridge_compat
        API = "https://api.runpod.io/v2"
        S = requests.Session()
        def gpus(endpoint_id):
            return v1bridge_compat.call_v1(lambda method, url, **kw: S.request(method, url, timeout=10, **kw), "GET", f"{API}/endpoints/{endpoint_id}").json()["gpuTypeIds"]
    '''),
    # (a field the v1 view cannot build either, machineId: no v2 source at all, so the whole call is translated)
    "a read of a field no view builds keeps the whole call in the run-time translation": _case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def ssh(pod_id):
            r = requests.get(f"{API}/pods/{pod_id}", timeout=10)
            return r.json()["publicIp"], r.json()["machineId"]
    ''', '''
        import requests

        import v1bridge_compat
        API = "https://api.runpod.io/v2"
        def ssh(pod_id):
            r = v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, timeout=10, **kw), "GET", f"{API}/pods/{pod_id}")
            return r.json()["publicIp"], r.json()["machineId"]
    '''),
    # (a route of neither v1 nor v2: flagged with that cause, and the GraphQL operation of that name as a hint; sent
    # through call_v1 as it is so that its base moves with its neighbours; a later run flags the call_v1 line again)
    "a verb v1 never had, next to the verbs it had: L04": _case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def resume(pod_id):
            return requests.post(f"{BASE}/pods/{pod_id}/resume")
    ''', '''
        import requests

        import v1bridge_compat
        BASE = "https://api.runpod.io/v2"
        def resume(pod_id):
            # v1bridge: L04 POST /pods/{?}/resume is a route of neither v1 nor v2 (it answered 404 on both); GraphQL's podResume is POST /v2/pods/{id}/action {action: start} on v2: what it should call is a person's to say: use PATCH on the resource and POST /v2/pods/{id}/action {action}
            return v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "POST", f"{BASE}/pods/{pod_id}/resume")
    '''),
}


@pytest.mark.parametrize("name", list(CASES))
def test_base_case(name: str) -> None:
    check_rewrite(*CASES[name])


# --------------------------------------------------------------------------- constants across files

def _files(**texts: str) -> dict[str, str]:
    return {name.replace("__", "/") + ".py": textwrap.dedent(text).lstrip("\n") for name, text in texts.items()}


def _run(files: dict[str, str]) -> dict[str, str]:
    out = {path: r.new_source for path, r in rewrite_files(files).items()}
    assert {path: r.new_source for path, r in rewrite_files(out).items()} == out, "a second run changed the code"
    return out


def test_a_sibling_constant_already_on_v2_is_left_with_its_calls() -> None:
    files = _files(pkg__consts='BASE = "https://api.runpod.io/v2"\n', pkg__client='''
        import requests
        from .consts import BASE

        def pods():
            return requests.get(BASE + "/pods").json()["pods"]
    ''')
    assert _run(files) == files


def test_a_sibling_base_moves_with_every_call_through_it_and_imported_method_constants_are_read() -> None:
    files = _files(pkg__consts='BASE = "https://rest.runpod.io/v1"\nPOST = "POST"\n', pkg__client='''
        import requests
        from .consts import BASE, POST

        def stop(pod_id):
            requests.request(POST, f"{BASE}/pods/{pod_id}/stop").raise_for_status()
    ''')
    assert _run(files) == {
        "pkg/consts.py": 'BASE = "https://api.runpod.io/v2"\nPOST = "POST"\n',
        "pkg/client.py": files["pkg/client.py"].replace(
            '/stop")', '/action", json={"action": "stop"})')}


def test_a_sibling_base_moves_with_an_importer_whose_call_goes_through_the_compat_module() -> None:
    """Issue 21 withdrew "a base moves only when every call through it can be plain v2": `reset` has no v2 route,
    so its call goes to v2 through the run-time translation (state 2), and the shared base moves with both files."""
    files = _files(pkg__consts='BASE = "https://rest.runpod.io/v1"\n', pkg__a='''
        import requests
        from pkg.consts import BASE

        def stop(pod_id):
            requests.post(f"{BASE}/pods/{pod_id}/stop").raise_for_status()
    ''', pkg__b='''
        import requests
        from .consts import BASE

        def reset(pod_id):
            requests.post(f"{BASE}/pods/{pod_id}/reset").raise_for_status()
    ''')
    out = _run(files)
    assert out["pkg/consts.py"] == 'BASE = "https://api.runpod.io/v2"\n'
    assert out["pkg/a.py"] == files["pkg/a.py"].replace(
        'f"{BASE}/pods/{pod_id}/stop")', 'f"{BASE}/pods/{pod_id}/action", json={"action": "stop"})')
    assert out["pkg/b.py"] == files["pkg/b.py"].replace(
        "import requests\nfrom .consts import BASE\n", "import requests\n\nimport v1bridge_compat\n\nfrom .consts import BASE\n").replace(
        'requests.post(f"{BASE}/pods/{pod_id}/reset")',
        'v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "POST", '
        'f"{BASE}/pods/{pod_id}/reset")')
    results = rewrite_files(files)
    assert [m for r in results.values() for m in r.manual] == []
    assert [(s.state, s.rule) for s in results["pkg/b.py"].states] == [(2, "R01")]
    assert [(s.state, s.rule) for s in results["pkg/a.py"].states] == [(1, "L04")]


def test_a_sibling_base_that_builds_a_url_elsewhere_stays() -> None:
    files = _files(pkg__consts='BASE = "https://rest.runpod.io/v1"\n', pkg__a='''
        import requests
        from .consts import BASE

        def stop(pod_id):
            requests.post(f"{BASE}/pods/{pod_id}/stop").raise_for_status()
    ''', pkg__b='''
        from .consts import BASE

        def link(pod_id):
            return BASE + "/pods/" + pod_id
    ''')
    out = _run(files)
    assert out["pkg/consts.py"] == (
        "# v1bridge: L01 BASE is imported by other files of the run and stays v1 with them (b.py:4: it builds a "
        "URL the rewrite cannot follow); use /v2/serverless, /v2/network-volumes, /v2/registries (and /v2 before "
        "every path)\n" + files["pkg/consts.py"])
    assert out["pkg/a.py"] == files["pkg/a.py"].replace("    requests.post", "    # v1bridge: L04 left on v1 with "
        "its client (L01 its constant BASE (from consts.py) stays v1: b.py:4: it builds a URL the rewrite "
        "cannot follow); use PATCH on the resource and POST /v2/pods/{id}/action {action}\n    requests.post")
    assert out["pkg/b.py"] == files["pkg/b.py"]
    assert "(b.py:4: it builds a URL" in rewrite_files(files)["pkg/consts.py"].manual[0].message


def test_cli_rewrite_and_audit_read_constants_across_files(tmp_path, capsys) -> None:
    """`rewrite --jobs 2` migrates a package whose base is in a sibling module; the audit of the result
    (which reads the same table) finds no v1 call left, and fails on the package before."""
    from v1bridge.cli import main

    files = _files(consts='BASE = "https://rest.runpod.io/v1"\n', client='''
        import requests
        from .consts import BASE

        def stop(pod_id):
            requests.post(f"{BASE}/pods/{pod_id}/stop").raise_for_status()
    ''')
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    for name, text in files.items():
        (pkg / name).write_text(text)
    (pkg / "__init__.py").write_text("")
    assert main(["audit", str(pkg), "--fail-on-legacy", "--format", "json", "--output", str(tmp_path / "a.json")]) == 1
    assert main(["rewrite", str(pkg), "--jobs", "2", "-q"]) == 0
    assert (pkg / "consts.py").read_text() == 'BASE = "https://api.runpod.io/v2"\n'
    assert '/action", json={"action": "stop"})' in (pkg / "client.py").read_text()
    assert main(["audit", str(pkg), "--fail-on-legacy", "--format", "json", "--output", str(tmp_path / "b.json")]) == 0
    capsys.readouterr()
