"""Q30: a v1 list call whose v2 list is cursor-paginated becomes a loop over every page, or stays v1 and is flagged.

Before/after pairs, the cases that must not become a loop first (each keeps its client on v1, byte for byte,
with a `# v1bridge: Q30` comment), then the loops for each HTTP layer: `params=` where the request takes a query,
else (urllib, a helper with no params/**kwargs) a query string at the end of the URL argument. Every pair: exact output, it parses,
a second run changes nothing. That the loops really read every page is proved by execution
(tests/codemod/test_execution.py runs the corpus against a sandbox answering 2-item pages).
"""
from __future__ import annotations

import ast
import textwrap

import pytest

from codemod.engine import analyze_python, rewrite_source
from mappings.index import index

REMEDY = index().mappings.rules["Q30"].remedy


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _flagged(text: str, line: int, why: str, helper: int | None = None) -> tuple[str, int, str, int | None]:
    return _src(text), line, why, helper


# Each: (source, line of the list call, why it cannot be paged, line of the helper's own request when the call goes
# through one) -> unchanged but for the Q30 comment above that line (and above the helper's request: the helper
# stays v1 with its callers).
FLAGGED = {
    "helper with no query channel that joins a suffix after the path": _flagged('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def rest(method, path):
            return requests.request(method, BASE + path + "/").json()
        def pods():
            return rest("GET", "/pods")
    ''', 6, "the helper rest() cannot pass a query parameter (no `params`, no **kwargs to the request) and joins its "
        "path into the URL in a way a query string would break", 4),
    "helper with no query channel whose URL ends in a part the rewrite cannot read": _flagged('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def rest(method, path, fmt):
            return requests.request(method, f"{BASE}{path}{fmt}").json()
        def pods():
            return rest("GET", "/pods", "")
    ''', 6, "the helper rest() cannot pass a query parameter", 4),
    "answer read in another function": _flagged('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def fetch():
            return requests.get(BASE + "/pods")
        def names():
            return [p["name"] for p in fetch().json()]
    ''', 4, "its answer is read outside the block that makes the request"),
    "answer read in one branch of a conditional": _flagged('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def pods(resp=None):
            resp = requests.get(BASE + "/pods")
            return resp.json() if resp.ok else []
    ''', 4, "its answer is read in one branch of a conditional expression"),
    "a statement between request and read that does more than check": _flagged('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        CALLS = []
        def pods():
            resp = requests.get(BASE + "/pods")
            CALLS.append(resp.elapsed)
            return resp.json()
    ''', 5, "between the request and the read does more than check the answer"),
    "an early return of something other than a constant between request and read": _flagged('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def cached_pods():
            return []
        def pods():
            resp = requests.get(BASE + "/pods")
            if resp.status_code != 200:
                return cached_pods()
            return resp.json()
    ''', 6, "line 7 between the request and the read does more than check the answer"),
    "query parameters built by a call": _flagged('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def pods(query):
            return requests.get(BASE + "/templates", params=dict(query)).json()
    ''', 4, "its query parameters are built where the rewrite cannot read them"),
    "request inside a with block that opens a file, read after it": _flagged('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def templates():
            with open("calls.log", "a") as log:
                resp = requests.get(BASE + "/templates")
                log.write(resp.url)
            return resp.json()
    ''', 5, "its answer is read outside the block that makes the request"),
    "request inside a client's with block after another statement, read after it": _flagged('''
        import httpx
        BASE = "https://rest.runpod.io/v1"
        def templates(key):
            with httpx.Client() as client:
                client.headers["Authorization"] = key
                resp = client.get(BASE + "/templates")
            return resp.json()
    ''', 6, "its answer is read outside the block that makes the request"),
    "another call runs before the read in the same statement": _flagged('''
        import time
        import requests
        BASE = "https://rest.runpod.io/v1"
        def stamped():
            return time.time(), requests.get(BASE + "/pods").json()
    ''', 5, "another call on line 5 runs before the answer is read"),
    "urllib: the opened response is returned, parsed out of sight": _flagged('''
        import urllib.request
        BASE = "https://rest.runpod.io/v1"
        def open_pods(key):
            req = urllib.request.Request(BASE + "/pods", headers={"Authorization": key})
            return urllib.request.urlopen(req, timeout=30)
    ''', 4, "its answer is handed on at line 5 before it is parsed"),
    "urllib: the JSON is read after the with block that opens the request": _flagged('''
        import json
        import urllib.request
        BASE = "https://rest.runpod.io/v1"
        def pods(key):
            with urllib.request.urlopen(urllib.request.Request(BASE + "/pods", headers={"Authorization": key})) as resp:
                raw = resp.read()
            return json.loads(raw)
    ''', 5, "its answer is handed on before it is parsed"),
    "response returned, its body read as text by the caller": _flagged('''
        import json
        import requests
        BASE = "https://rest.runpod.io/v1"
        def fetch():
            return requests.get(BASE + "/endpoints")
        def names():
            return [e["name"] for e in json.loads(fetch().text)]
    ''', 5, "its answer is handed on before it is parsed"),
}


# The list calls above that cannot go through the compat module either (urllib; a helper that joins something after
# the path, where the run-time translation would put the cursor): left on v1 with the Q30 comment (state 3).
STILL_FLAGGED = {"helper with no query channel that joins a suffix after the path",
                 "helper with no query channel whose URL ends in a part the rewrite cannot read",
                 "urllib: the opened response is returned, parsed out of sight",
                 "urllib: the JSON is read after the with block that opens the request"}


@pytest.mark.parametrize("name", FLAGGED.keys())
def test_a_list_call_that_cannot_be_paged_in_place_goes_through_the_compat_module_or_is_flagged(name: str) -> None:
    """Issue 21: a list call the cursor loop cannot reach is no longer left on v1 by rule: it goes to v2 through
    `v1bridge_compat.call_v1` (every page, v1's answer, so its reads stay as they are); only a call the run-time
    translation cannot drive either is flagged, with the cause."""
    source, line, why, helper = FLAGGED[name]
    result = rewrite_source(source, "m.py")
    assert rewrite_source(result.new_source, "m.py").new_source == result.new_source
    states = [(s.line, s.state, s.rule) for s in result.states]
    if name in STILL_FLAGGED:
        assert states == [(line, 3, "Q30")]
        lines = result.new_source.splitlines()
        for at in sorted({line, helper} - {None}):
            shift = sum(1 for other in {line, helper} - {None} if other < at)
            assert lines[at - 1 + shift].lstrip().startswith("# v1bridge: Q30 ") and REMEDY in lines[at - 1 + shift]
        assert (line, "Q30") in [(m.line, m.rule) for m in result.manual]
        assert why in next(m.message for m in result.manual if m.line == line)
        assert result.v1_left
        shift = 1 + (helper is not None and helper < line)
        findings = [(f.line, f.rule, f.fixable) for f in analyze_python(result.new_source, "m.py").findings]
        assert (line + shift, "Q30", False) in findings  # the audit reports the call the rewrite leaves
    else:
        assert states == [(line, 2, "Q30")]
        assert result.manual == [] and not result.v1_left
        new_line = result.new_source.splitlines()[line + 1]  # two lines down: the compat module's import and its blank line
        assert "v1bridge_compat.call_v1(lambda method, url, **kw: " in new_line
        assert "rest.runpod.io/v1" not in result.new_source and "# v1bridge:" not in result.new_source


def test_v2_code_that_pages_already_is_left_alone() -> None:
    source = _src('''
        import requests
        def pods(base):
            out, query = [], {}
            while True:
                page = requests.get("https://api.runpod.io/v2/pods", params=query).json()
                out += page["pods"]
                if not page["pagination"]["hasNextPage"]:
                    return out
                query = {"cursor": page["pagination"]["nextCursor"]}
    ''')
    assert rewrite_source(source, "m.py").new_source == source


def test_a_list_call_only_checked_for_its_status_is_migrated_as_it_is() -> None:
    source = 'import requests\nrequests.get("https://rest.runpod.io/v1/pods", timeout=5).raise_for_status()\n'
    assert rewrite_source(source, "m.py").new_source == source.replace("rest.runpod.io/v1", "api.runpod.io/v2")


def test_a_list_v2_does_not_page_parsed_out_of_sight_goes_through_the_compat_module() -> None:
    source = _src('''
        import json
        import requests
        def volumes():
            return json.loads(requests.get("https://rest.runpod.io/v1/networkvolumes").text)
    ''')
    result = rewrite_source(source, "m.py")
    assert result.manual == [] and [(s.line, s.state, s.rule) for s in result.states] == [(4, 2, "Q02")]
    assert result.new_source == source.replace("import requests\n", "import requests\n\nimport v1bridge_compat\n").replace(
        'requests.get("https://rest.runpod.io/v1/networkvolumes")',
        'v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "GET", '
        '"https://api.runpod.io/v2/networkvolumes")')  # the v1 path: translated at run time


def test_a_list_that_v2_does_not_paginate_is_unwrapped_in_place() -> None:
    source = 'import requests\nvols = requests.get("https://rest.runpod.io/v1/networkvolumes").json()\n'
    assert rewrite_source(source, "m.py").new_source == (
        'import requests\nvols = requests.get("https://api.runpod.io/v2/network-volumes").json()["networkVolumes"]\n')


LOOPS = {
    "requests function, answer returned": ('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def pods():
            # every pod of the account
            return requests.get(BASE + "/pods", timeout=30).json()
    ''', '''
        import requests
        BASE = "https://api.runpod.io/v2"
        def pods():
            # every pod of the account
            all_pods, paging = [], {}
            while True:
                page = requests.get(BASE + "/pods", timeout=30, params=paging).json()
                all_pods += page["pods"]
                if not page["pagination"]["hasNextPage"]:
                    break
                paging = {"cursor": page["pagination"]["nextCursor"]}
            return all_pods
    '''),
    "Session, status checks between request and read": ('''
        import requests
        class Client:
            def __init__(self, base="https://rest.runpod.io/v1"):
                self.base = base
                self.s = requests.Session()
            def endpoints(self):
                resp = self.s.get(f"{self.base}/endpoints", params={"tag": "nightly"})
                resp.raise_for_status()
                if resp.status_code >= 400:
                    raise RuntimeError(resp.json()["message"])
                data = resp.json()
                return data if isinstance(data, list) else []
    ''', '''
        import requests
        class Client:
            def __init__(self, base="https://api.runpod.io/v2"):
                self.base = base
                self.s = requests.Session()
            def endpoints(self):
                data, paging = [], {}
                while True:
                    resp = self.s.get(f"{self.base}/serverless", params={"tag": "nightly", **paging})
                    resp.raise_for_status()
                    if resp.status_code >= 400:
                        raise RuntimeError(resp.json()["detail"])
                    page = resp.json()
                    data += page["endpoints"]
                    if not page["pagination"]["hasNextPage"]:
                        break
                    paging = {"cursor": page["pagination"]["nextCursor"]}
                return data if isinstance(data, list) else []
    '''),
    "httpx AsyncClient with base_url, awaited, read in a comprehension": ('''
        import httpx
        class Templates:
            def __init__(self, key):
                self.client = httpx.AsyncClient(base_url="https://rest.runpod.io/v1", headers={"Authorization": key})
            async def names(self):
                resp = await self.client.get("/templates")
                resp.raise_for_status()
                return [t["name"] for t in resp.json()]
    ''', '''
        import httpx
        class Templates:
            def __init__(self, key):
                self.client = httpx.AsyncClient(base_url="https://api.runpod.io/v2", headers={"Authorization": key})
            async def names(self):
                templates, paging = [], {}
                while True:
                    resp = await self.client.get("/templates", params=paging)
                    resp.raise_for_status()
                    page = resp.json()
                    templates += page["templates"]
                    if not page["pagination"]["hasNextPage"]:
                        break
                    paging = {"cursor": page["pagination"]["nextCursor"]}
                return [t["name"] for t in templates]
    '''),
    "sync httpx client opened in a with block, status check returning [], read after the block": ('''
        import os
        import httpx
        REST = os.environ.get("RUNPOD_REST_URL", "https://rest.runpod.io/v1")
        async def fetch_templates(key):
            with httpx.Client(headers={"Authorization": f"Bearer {key}"}, timeout=20) as client:
                resp = client.get(f"{REST}/templates")
            if resp.status_code != 200:
                return []
            data = resp.json()
            return data if isinstance(data, list) else []
    ''', '''
        import os
        import httpx
        REST = os.environ.get("RUNPOD_REST_URL", "https://api.runpod.io/v2")
        async def fetch_templates(key):
            data, paging = [], {}
            while True:
                with httpx.Client(headers={"Authorization": f"Bearer {key}"}, timeout=20) as client:
                    resp = client.get(f"{REST}/templates", params=paging)
                if resp.status_code != 200:
                    return []
                page = resp.json()
                data += page["templates"]
                if not page["pagination"]["hasNextPage"]:
                    break
                paging = {"cursor": page["pagination"]["nextCursor"]}
            return data if isinstance(data, list) else []
    '''),
    "Session opened in a with block, a check inside it and an early `return None` after it": ('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def endpoints():
            with requests.Session() as s:
                resp = s.get(BASE + "/endpoints", timeout=10)
                resp.raise_for_status()
            if not resp.content:
                log("empty answer")
                return None
            return [e["id"] for e in resp.json()]
    ''', '''
        import requests
        BASE = "https://api.runpod.io/v2"
        def endpoints():
            all_endpoints, paging = [], {}
            while True:
                with requests.Session() as s:
                    resp = s.get(BASE + "/serverless", timeout=10, params=paging)
                    resp.raise_for_status()
                if not resp.content:
                    log("empty answer")
                    return None
                page = resp.json()
                all_endpoints += page["endpoints"]
                if not page["pagination"]["hasNextPage"]:
                    break
                paging = {"cursor": page["pagination"]["nextCursor"]}
            return [e["id"] for e in all_endpoints]
    '''),
    "own helper forwarding **kwargs, query in a variable, one argument per line": ('''
        import requests
        REST = "https://rest.runpod.io/v1"
        def _request(method, path, **kwargs):
            resp = requests.request(method, f"{REST}/{path.lstrip('/')}", timeout=30, **kwargs)
            resp.raise_for_status()
            return resp.json()
        def running():
            query = {"tag": "nightly"}
            for pod in _request(
                "GET",
                "pods",
                params=query,
            ):
                print(pod["id"])
    ''', '''
        import requests
        REST = "https://api.runpod.io/v2"
        def _request(method, path, **kwargs):
            resp = requests.request(method, f"{REST}/{path.lstrip('/')}", timeout=30, **kwargs)
            resp.raise_for_status()
            return resp.json()
        def running():
            query = {"tag": "nightly"}
            pods, paging = [], {}
            while True:
                page = _request(
                    "GET",
                    "pods",
                    params={**query, **paging},
                )
                pods += page["pods"]
                if not page["pagination"]["hasNextPage"]:
                    break
                paging = {"cursor": page["pagination"]["nextCursor"]}
            for pod in pods:
                print(pod["id"])
    '''),
    "helper with no query channel, rest(method, path, body): the cursor ends the path, urllib.parse imported": ('''
        """Pods."""
        from __future__ import annotations

        import json
        from typing import Any

        import requests


        class Rest:
            def __init__(self, http=requests, base="https://rest.runpod.io/v1"):
                self.http = http
                self.base = base.rstrip("/")

            def rest(self, method: str, path: str, body: dict | None = None) -> Any:
                resp = self.http.request(method, f"{self.base}{path}", data=json.dumps(body) if body else None)
                if resp.status_code >= 400:
                    raise RuntimeError(resp.json()["message"])
                return resp.json()

            def pods(self) -> list[dict]:
                return self.rest("GET", "/pods")
    ''', '''
        """Pods."""
        from __future__ import annotations

        import json
        import urllib.parse
        from typing import Any

        import requests


        class Rest:
            def __init__(self, http=requests, base="https://api.runpod.io/v2"):
                self.http = http
                self.base = base.rstrip("/")

            def rest(self, method: str, path: str, body: dict | None = None) -> Any:
                resp = self.http.request(method, f"{self.base}{path}", data=json.dumps(body) if body else None)
                if resp.status_code >= 400:
                    raise RuntimeError(resp.json()["detail"])
                return resp.json()

            def pods(self) -> list[dict]:
                all_pods, paging = [], ""
                while True:
                    page = self.rest("GET", "/pods" + paging)
                    all_pods += page["pods"]
                    if not page["pagination"]["hasNextPage"]:
                        break
                    paging = "?" + urllib.parse.urlencode({"cursor": page["pagination"]["nextCursor"]})
                return all_pods
    '''),
    "_get(url) whose URL already has a query: the cursor follows with &, imports in their own group": ('''
        import requests
        REST = "https://rest.runpod.io/v1"
        def _get(url):
            r = requests.get(url, timeout=30)
            r.raise_for_status()
            return r.json()
        def nightly():
            return [t["name"] for t in _get(f"{REST}/templates?tag=nightly")]
    ''', '''
        import urllib.parse

        import requests
        REST = "https://api.runpod.io/v2"
        def _get(url):
            r = requests.get(url, timeout=30)
            r.raise_for_status()
            return r.json()
        def nightly():
            templates, paging = [], ""
            while True:
                page = _get(f"{REST}/templates?tag=nightly" + paging)
                templates += page["templates"]
                if not page["pagination"]["hasNextPage"]:
                    break
                paging = "&" + urllib.parse.urlencode({"cursor": page["pagination"]["nextCursor"]})
            return [t["name"] for t in templates]
    '''),
    "helper through a helper, path joined with lstrip, the module's own urlencode import": ('''
        from urllib.parse import urlencode
        import requests
        REST = "https://rest.runpod.io/v1"
        class C:
            def _request(self, method, path, body=None):
                resp = requests.request(method, REST + "/" + path.lstrip("/"), json=body, timeout=30)
                resp.raise_for_status()
                return resp.json()
            def _get(self, path):
                return self._request("GET", path)
            def endpoints(self):
                out = self._get("endpoints")
                return out
    ''', '''
        from urllib.parse import urlencode
        import requests
        REST = "https://api.runpod.io/v2"
        class C:
            def _request(self, method, path, body=None):
                resp = requests.request(method, REST + "/" + path.lstrip("/"), json=body, timeout=30)
                resp.raise_for_status()
                return resp.json()
            def _get(self, path):
                return self._request("GET", path)
            def endpoints(self):
                out, paging = [], ""
                while True:
                    page = self._get("serverless" + paging)
                    out += page["endpoints"]
                    if not page["pagination"]["hasNextPage"]:
                        break
                    paging = "?" + urlencode({"cursor": page["pagination"]["nextCursor"]})
                return out
    '''),
    "urllib Request then urlopen in a with block: the cursor ends the URL": ('''
        import json
        import urllib.request
        BASE = "https://rest.runpod.io/v1"
        def pods(key):
            req = urllib.request.Request(BASE + "/pods", headers={"Authorization": key})
            with urllib.request.urlopen(req, timeout=30) as resp:
                return json.load(resp)
    ''', '''
        import json
        import urllib.parse
        import urllib.request
        BASE = "https://api.runpod.io/v2"
        def pods(key):
            all_pods, paging = [], ""
            while True:
                req = urllib.request.Request(BASE + "/pods" + paging, headers={"Authorization": key})
                with urllib.request.urlopen(req, timeout=30) as resp:
                    page = json.load(resp)
                all_pods += page["pods"]
                if not page["pagination"]["hasNextPage"]:
                    break
                paging = "?" + urllib.parse.urlencode({"cursor": page["pagination"]["nextCursor"]})
            return all_pods
    '''),
    "urlopen(url) parsed in one expression": ('''
        import json
        from urllib.request import urlopen
        BASE = "https://rest.runpod.io/v1"
        def endpoints():
            return json.loads(urlopen(BASE + "/endpoints").read().decode("utf-8"))
    ''', '''
        import json
        import urllib.parse
        from urllib.request import urlopen
        BASE = "https://api.runpod.io/v2"
        def endpoints():
            all_endpoints, paging = [], ""
            while True:
                page = json.loads(urlopen(BASE + "/serverless" + paging).read().decode("utf-8"))
                all_endpoints += page["endpoints"]
                if not page["pagination"]["hasNextPage"]:
                    break
                paging = "?" + urllib.parse.urlencode({"cursor": page["pagination"]["nextCursor"]})
            return all_endpoints
    '''),
    "custom opener, a header added and the status checked between request and read, a query in the URL": ('''
        import json
        import urllib.parse
        import urllib.request
        BASE = "https://rest.runpod.io/v1"
        _opener = urllib.request.build_opener()
        def templates(key, tag):
            req = urllib.request.Request(BASE + "/templates?" + urllib.parse.urlencode({"tag": tag}), method="GET")
            req.add_header("Authorization", key)
            resp = _opener.open(req, timeout=30)
            if resp.status != 200:
                raise RuntimeError(resp.status)
            found = json.load(resp)
            return sorted(t["name"] for t in found)
    ''', '''
        import json
        import urllib.parse
        import urllib.request
        BASE = "https://api.runpod.io/v2"
        _opener = urllib.request.build_opener()
        def templates(key, tag):
            found, paging = [], ""
            while True:
                req = urllib.request.Request(BASE + "/templates?" + urllib.parse.urlencode({"tag": tag}) + paging, method="GET")
                req.add_header("Authorization", key)
                resp = _opener.open(req, timeout=30)
                if resp.status != 200:
                    raise RuntimeError(resp.status)
                page = json.load(resp)
                found += page["templates"]
                if not page["pagination"]["hasNextPage"]:
                    break
                paging = "&" + urllib.parse.urlencode({"cursor": page["pagination"]["nextCursor"]})
            return sorted(t["name"] for t in found)
    '''),
    "custom opener opened on the URL itself, in a with block": ('''
        import json
        import urllib.request
        BASE = "https://rest.runpod.io/v1"
        _opener = urllib.request.build_opener()
        def pods():
            with _opener.open(BASE + "/pods", timeout=30) as resp:
                return json.load(resp)
    ''', '''
        import json
        import urllib.parse
        import urllib.request
        BASE = "https://api.runpod.io/v2"
        _opener = urllib.request.build_opener()
        def pods():
            all_pods, paging = [], ""
            while True:
                with _opener.open(BASE + "/pods" + paging, timeout=30) as resp:
                    page = json.load(resp)
                all_pods += page["pods"]
                if not page["pagination"]["hasNextPage"]:
                    break
                paging = "?" + urllib.parse.urlencode({"cursor": page["pagination"]["nextCursor"]})
            return all_pods
    '''),
}


@pytest.mark.parametrize("before, after", LOOPS.values(), ids=LOOPS.keys())
def test_a_paginated_list_call_becomes_a_cursor_loop(before: str, after: str) -> None:
    before, after = _src(before), _src(after)
    result = rewrite_source(before, "m.py")
    assert result.new_source == after
    ast.parse(after)
    assert rewrite_source(after, "m.py").new_source == after
    assert result.rules["Q30"] == 1 and not [m for m in result.manual if m.rule == "Q30"]


def test_loop_names_never_shadow_a_name_of_the_module() -> None:
    before = _src('''
        import requests
        page, paging, pods = 1, 2, 3
        def pods_of():
            return requests.get("https://rest.runpod.io/v1/pods").json()
    ''')
    out = rewrite_source(before, "m.py").new_source
    assert "    all_pods, next_page = [], {}\n" in out
    assert '        answer = requests.get("https://api.runpod.io/v2/pods", params=next_page).json()\n' in out


def test_two_list_calls_in_one_block_each_get_their_loop() -> None:
    before = _src('''
        import requests
        B = "https://rest.runpod.io/v1"
        def inventory():
            pods = requests.get(B + "/pods").json()
            templates = requests.get(B + "/templates").json()
            return len(pods), len(templates)
    ''')
    out = rewrite_source(before, "m.py").new_source
    ast.parse(out)
    assert out.count("while True:") == 2
    assert "        pods += page[\"pods\"]\n" in out and "        templates += page[\"templates\"]\n" in out
    assert out.endswith("    return len(pods), len(templates)\n")
    assert rewrite_source(out, "m.py").new_source == out


def test_a_cursor_loop_in_a_block_where_a_body_statement_is_removed() -> None:
    """L02 removes `payload["volumeInGb"] = 0` (v2 has no such field) from the block the loop goes into: the loop
    is written where its statements are once that one is gone (the file used to be left unchanged, reported as
    an internal error, while the audit said every call was fixable)."""
    before = _src('''
        import requests

        BASE = "https://rest.runpod.io/v1"


        def launch(name, disk):
            payload = {"name": name, "imageName": "python:3.12", "computeType": "CPU", "cpuFlavorIds": ["cpu3c"]}
            payload["containerDiskInGb"] = disk
            payload["volumeInGb"] = 0
            requests.post(f"{BASE}/pods", json=payload).raise_for_status()
            resp = requests.get(f"{BASE}/pods")
            resp.raise_for_status()
            return resp.json()
    ''')
    after = _src('''
        import requests

        BASE = "https://api.runpod.io/v2"


        def launch(name, disk):
            payload = {"name": name, "image": "python:3.12", "cpu": {"id": "cpu3c", "vcpuCount": 2}, "ports": ["8888/http", "22/tcp"]}
            payload["disk"] = disk
            requests.post(f"{BASE}/pods", json=payload).raise_for_status()
            pods, paging = [], {}
            while True:
                resp = requests.get(f"{BASE}/pods", params=paging)
                resp.raise_for_status()
                page = resp.json()
                pods += page["pods"]
                if not page["pagination"]["hasNextPage"]:
                    break
                paging = {"cursor": page["pagination"]["nextCursor"]}
            return pods
    ''')
    result = rewrite_source(before, "m.py")
    assert result.error is None and result.new_source == after
    assert rewrite_source(after, "m.py").new_source == after
    assert all(f.fixable for f in analyze_python(before, "m.py", edits=False).findings if f.kind == "call")
