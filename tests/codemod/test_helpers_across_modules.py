"""Helpers across modules (issue 21): a helper one module defines and others call (`from .api import _get`,
`from pkg import api; api._post(...)`, a client class made in one module and used in others).

Every call through such a helper is read at its call site, as if the helper were the caller's own: a call whose
route and body can be read becomes plain v2 there (path, body, answer reads), one that needs what v2 lacks goes
through the compat module's run-time translation at its own call site (the helper as `send`), and once every
caller agrees the helper's base moves to v2 and its request stays plain v2 code. `audit` reads the same facts.
"""
from __future__ import annotations

import pytest

from codemod.engine import analyze_files, rewrite_files

API = '''import requests

BASE_URL = "https://rest.runpod.io/v1"


def _get(path, params=None):
    r = requests.get(BASE_URL + path, params=params, timeout=30)
    r.raise_for_status()
    return r.json()


def _post(path, body=None):
    r = requests.post(BASE_URL + path, json=body or {}, timeout=30)
    r.raise_for_status()
    return r.json() if r.content else None
'''

API_AFTER = '''import requests

import v1bridge_compat

BASE_URL = "https://api.runpod.io/v2"


def _get(path, params=None):
    r = v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, timeout=30, **kw), "GET", BASE_URL + path, params=params)
    r.raise_for_status()
    return r.json()


def _post(path, body=None):
    r = v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, timeout=30, **kw), "POST", BASE_URL + path, json=body or {})
    r.raise_for_status()
    return r.json() if r.content else None
'''

PODS = '''from .api import _get, _post


def create(name, gpus):
    return _post("/pods", {"name": name, "imageName": "busybox", "gpuTypeIds": gpus})


def reset(pod_id):
    _post(f"/pods/{pod_id}/reset")


def status(pod_id):
    return _get(f"/pods/{pod_id}")["desiredStatus"]
'''

SCRIPT = '''from pkg import api


def spend():
    return sum(row["amount"] for row in api._get("/billing/pods", {"bucketSize": "day"}))
'''

READER = '''from pkg import pods


def address(pod):
    return pod["publicIp"], pod["costPerHr"]


def show(pod_id):
    print(address(pods.status(pod_id)))
'''

CLIENT = '''import requests


class Client:
    def __init__(self, base="https://rest.runpod.io/v1"):
        self.base = base.rstrip("/")
        self.session = requests.Session()

    def request(self, method, path, **kwargs):
        resp = self.session.request(method, f"{self.base}/{path.lstrip('/')}", timeout=10, **kwargs)
        resp.raise_for_status()
        return resp.json() if resp.content else None

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None):
        return self.request("POST", path, json=body)
'''

USES_CLIENT = '''from . import client as rp


def volumes(c: rp.Client):
    return c.get("/networkvolumes")


def stop(c: "rp.Client", pod_id):
    c.post(f"pods/{pod_id}/stop")
'''

URLLIB = '''import json
import urllib.request

BASE = "https://rest.runpod.io/v1"


def call(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(BASE + path, data=data, method=method)
    with urllib.request.urlopen(req) as resp:
        return json.loads(resp.read() or b"null")
'''


def _project() -> dict[str, str]:
    return {"pkg/__init__.py": "", "pkg/api.py": API, "pkg/pods.py": PODS, "spend.py": SCRIPT, "reader.py": READER}


PODS_AFTER = '''import v1bridge_compat

from .api import _get, _post


def create(name, gpus):
    return v1bridge_compat.create_with_fallback(lambda v2_body: _post("/pods", v2_body), {"name": name, "image": "busybox", "gpu": {"count": 1, "minRamPerGpu": 8, "minVcpuCountPerGpu": 2}, "disk": 50, "ports": ["8888/http", "22/tcp"], "mounts": {"persistent": {"size": 20, "path": "/workspace"}}}, gpus, at="gpu.id", rank_with=v1bridge_compat.by_method(get=_get, post=_post))


def reset(pod_id):
    v1bridge_compat.reset_pod(v1bridge_compat.by_method(get=_get, post=_post), pod_id)


def status(pod_id):
    return _get(f"/pods/{pod_id}")["status"]
'''

SCRIPT_AFTER = '''from pkg import api


def spend():
    return sum(row["totalAmount"] for row in api._get("/billing/pods", {"bucketSize": "day"})["records"])
'''


def test_calls_through_a_helper_of_another_module_are_v2_at_the_call_site_and_the_helper_moves_plain():
    out = rewrite_files(_project())
    assert out["pkg/api.py"].new_source == API.replace("https://rest.runpod.io/v1", "https://api.runpod.io/v2")
    assert out["pkg/pods.py"].new_source == PODS_AFTER
    assert out["spend.py"].new_source == SCRIPT_AFTER
    assert out["reader.py"].new_source == READER  # reads a string pods.status() returns: nothing of v1 to move
    states = {(path, s.line): (s.state, s.rule) for path, r in out.items() for s in r.states}
    # the create is plain v2 with only its GPU list walked by create_with_fallback (through the client's own helper,
    # the body its body parameter); the reset is reset_pod's stop, wait, start through that helper; the rest plain v2
    assert states == {("pkg/pods.py", 5): (2, "R02"), ("pkg/pods.py", 9): (2, "R01"), ("pkg/pods.py", 13): (1, "L01"),
                      ("spend.py", 5): (1, "L01")}
    assert not any(r.v1_left or r.manual for r in out.values())


def test_the_second_run_changes_nothing():
    first = rewrite_files(_project())
    again = rewrite_files({path: r.new_source for path, r in first.items()})
    assert all(r.new_source == first[path].new_source for path, r in again.items())
    assert not any(r.manual for r in again.values())


def test_methods_of_a_client_class_imported_whole():
    files = {"pkg/__init__.py": "", "pkg/client.py": CLIENT, "pkg/volumes.py": USES_CLIENT}
    out = rewrite_files(files)
    assert out["pkg/client.py"].new_source == CLIENT.replace("https://rest.runpod.io/v1", "https://api.runpod.io/v2")
    assert out["pkg/volumes.py"].new_source == USES_CLIENT.replace(
        'c.get("/networkvolumes")', 'c.get("/network-volumes")["networkVolumes"]').replace(
        'c.post(f"pods/{pod_id}/stop")', 'c.post(f"pods/{pod_id}/action", {"action": "stop"})')
    assert [(s.line, s.state, s.rule) for s in out["pkg/volumes.py"].states] == [(5, 1, "Q02"), (9, 1, "L04")]


def test_a_urllib_helper_moves_with_its_callers_planned_at_the_call_site():
    files = {"rp.py": URLLIB, "job.py": 'import rp\n\n\ndef stop(pod_id):\n    rp.call("POST", f"/pods/{pod_id}/stop")\n'}
    out = rewrite_files(files)
    assert out["rp.py"].new_source == URLLIB.replace("https://rest.runpod.io/v1", "https://api.runpod.io/v2")
    assert out["job.py"].new_source.splitlines()[4] == '    rp.call("POST", f"/pods/{pod_id}/action", {"action": "stop"})'
    assert [(s.line, s.state, s.rule) for s in out["job.py"].states] == [(5, 1, "L04")]


QUERY_HELPER = '''import json
import os
import urllib.parse
import urllib.request

BASE = os.getenv("RUNPOD_API_BASE", "https://rest.runpod.io/v1")


def call(method, path, body=None, query=None):
    url = BASE + path
    if query:
        url += "?" + urllib.parse.urlencode(query)
    data = json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method)) as resp:
        return json.loads(resp.read() or b"null")
'''


def test_a_helper_that_encodes_its_query_after_the_path_gets_every_page_through_that_query():
    files = {"rp.py": QUERY_HELPER,
             "names.py": 'import rp\n\n\ndef names():\n    return sorted(t["name"] for t in rp.call("GET", "/templates"))\n'}
    out = rewrite_files(files)
    assert 'BASE = os.getenv("RUNPOD_API_BASE", "https://api.runpod.io/v2")' in out["rp.py"].new_source
    assert out["names.py"].new_source == '''import rp


def names():
    templates, paging = [], {}
    while True:
        page = rp.call("GET", "/templates", query=paging)
        templates += page["templates"]
        if not page["pagination"]["hasNextPage"]:
            break
        paging = {"cursor": page["pagination"]["nextCursor"]}
    return sorted(t["name"] for t in templates)
'''


GETTER = '''from .api import _get, _post


def pod(pod_id):
    return _get(f"/pods/{pod_id}")


def stop(pod_id):
    _post(f"/pods/{pod_id}/stop")
'''


WAIT = 'from pkg import pods\n\n\ndef up(pod_id):\n    return pods.pod(pod_id)["desiredStatus"] == "RUNNING"\n'
DUMP = 'import json\n\nfrom pkg import pods\n\n\ndef dump(pod_id):\n    return json.dumps(pods.pod(pod_id))\n'


def test_an_answer_returned_to_another_module_is_plain_v2_and_read_there_by_its_v2_names():
    files = {"pkg/__init__.py": "", "pkg/api.py": API, "pkg/pods.py": GETTER, "wait.py": WAIT}
    out = rewrite_files(files)
    # every caller in the run reads a field v2 has: the call is plain v2, the read is renamed where it happens
    assert out["pkg/pods.py"].new_source == GETTER.replace("/stop\")", '/action", {"action": "stop"})')
    assert out["wait.py"].new_source == WAIT.replace('"desiredStatus"', '"status"')
    assert [(s.line, s.state) for s in out["pkg/pods.py"].states] == [(5, 1), (9, 1)]
    assert out["pkg/api.py"].new_source == API.replace("https://rest.runpod.io/v1", "https://api.runpod.io/v2")
    assert any(f.rule == "Q13" and f.fixable for f in analyze_files(files)["wait.py"].findings)  # the audit too
    again = rewrite_files({path: r.new_source for path, r in out.items()})
    assert all(r.new_source == out[path].new_source for path, r in again.items())


def test_a_helper_module_whose_other_helpers_no_file_calls_moves_as_when_they_are_imported():
    """`from .api import _get` alone: api.py's `_post` (no file of the run calls or imports it) builds its URL from
    the same base, and moves with it as when it is imported beside `_get` (it was taken for a use of the base the
    rewrite cannot follow: the base stayed v1, flagged, and the call through `_get` said it was translated)."""
    getter = 'from .api import _get\n\n\ndef pod(pod_id):\n    return _get(f"/pods/{pod_id}")\n'
    for imported in (getter, getter.replace("import _get", "import _get, _post")):
        out = rewrite_files({"pkg/__init__.py": "", "pkg/api.py": API, "pkg/pods.py": imported, "wait.py": WAIT})
        assert out["pkg/api.py"].new_source == API.replace("https://rest.runpod.io/v1", "https://api.runpod.io/v2")
        assert out["pkg/pods.py"].new_source == imported
        assert [(s.line, s.state) for s in out["pkg/pods.py"].states] == [(5, 1)]
        assert out["wait.py"].new_source == WAIT.replace('"desiredStatus"', '"status"')


def test_an_answer_handed_on_where_the_rewrite_cannot_read_it_is_returned_as_its_v1_view():
    # wait.py (no API sign of its own: the prefilter skips it) dumps the whole record: it must stay v1's record
    files = {"pkg/__init__.py": "", "pkg/api.py": API, "pkg/pods.py": GETTER, "wait.py": DUMP}
    out = rewrite_files(files)
    new = out["pkg/pods.py"].new_source
    assert 'return v1bridge_compat.v1_view("pod", _get(f"/pods/{pod_id}"))' in new  # plain v2, the v1 view returned
    assert "call_v1" not in new
    assert '_post(f"/pods/{pod_id}/action", {"action": "stop"})' in new  # its answer is not returned: plain v2
    assert out["wait.py"].new_source == DUMP
    state = next(s for s in out["pkg/pods.py"].states if s.line == 5)
    assert state.state == 2 and "returned by pod(), which other files of the run call (../wait.py)" in state.cause
    assert "returns the v1 view of its v2 answer (v1bridge_compat.v1_view)" in state.cause
    again = rewrite_files({path: r.new_source for path, r in out.items()})
    assert all(r.new_source == out[path].new_source for path, r in again.items())


def test_a_method_of_another_object_named_like_the_function_is_not_a_caller_of_it():
    # `name.find("-")` is a string's find, not the module's find(): find()'s answer reaches only its own return
    finder = ('from .api import _get, _post\n\n\ndef find(pod_id):\n    return _get(f"/pods/{pod_id}")\n\n\n'
              'def dashed(name):\n    return name.find("-")\n')
    files = {"pkg/__init__.py": "", "pkg/api.py": API, "pkg/pods.py": finder,
             "dump.py": 'import json\n\nfrom pkg import pods\n\n\ndef dump(pod_id):\n    return json.dumps(pods.find(pod_id))\n'}
    new = rewrite_files(files)["pkg/pods.py"].new_source
    assert 'return v1bridge_compat.v1_view("pod", _get(f"/pods/{pod_id}"))' in new
    assert "call_v1" not in new and 'return name.find("-")\n' in new


def test_the_audit_sees_the_calls_through_the_helper_before_and_compat_code_after():
    before = analyze_files(_project())
    assert any(f.route == "POST /pods/{podId}/reset" for f in before["pkg/pods.py"].findings)
    assert before["reader.py"].findings  # a v1 field read on a record from elsewhere: still v1 code
    after = analyze_files({path: r.new_source for path, r in rewrite_files(_project()).items()})
    assert not after["pkg/pods.py"].findings and not after["spend.py"].findings
    assert [(line, name) for line, name in after["pkg/pods.py"].compat_calls if name != "by_method"] == [
        (7, "create_with_fallback"), (11, "reset_pod")]


def test_a_call_on_a_client_another_module_makes_is_flagged_with_that_cause_never_silent():
    files = {"pkg/__init__.py": "", "pkg/http.py": "import httpx\n\nfrom . import config\n\n\ndef rest():\n"
             "    return httpx.Client(base_url=config.REST_URL)\n",
             "pkg/templates.py": 'from .http import rest\n\n\ndef names():\n    return rest().get("/templates").json()\n'}
    out = rewrite_files(files)
    assert [(s.line, s.state, s.rule) for s in out["pkg/templates.py"].states] == [(5, 3, "Q02")]
    found = analyze_files(files)["pkg/templates.py"].findings
    assert [(f.line, f.kind) for f in found] == [(5, "call")], "one finding, the flag's cause; no review beside it"
    assert out["pkg/templates.py"].new_source.splitlines()[4].strip() == (
        "# v1bridge: Q02 GET /templates on a client made in .http (rest), whose base the rewrite cannot follow to "
        "this call: migrate the client's base and this path together by hand (iterate response[<key>] (pods, "
        "endpoints, templates, networkVolumes, registries, records))")


MODULE_INSTANCE = '''from pkg.client import Client

client = Client()


def images():
    for template in client.get("/templates"):
        print(template["id"], template["imageName"])
'''


def test_a_module_level_instance_used_in_a_function_is_a_call_through_its_class_and_its_answer_is_followed():
    """Guards issue 25's `cli.py:23`: `client = Client()` at module level, `client.get(...)` inside a function, is
    a call through Client.get(): read at the call site like any call (every page, the list key, the renamed
    field), and the audit sees the same before the rewrite and nothing left after it."""
    files = {"pkg/__init__.py": "", "pkg/client.py": CLIENT, "cli.py": MODULE_INSTANCE}
    out = rewrite_files(files)
    assert out["cli.py"].new_source == MODULE_INSTANCE.replace(
        '    for template in client.get("/templates"):\n        print(template["id"], template["imageName"])',
        '''    templates, paging = [], {}
    while True:
        page = client.get("/templates", params=paging)
        templates += page["templates"]
        if not page["pagination"]["hasNextPage"]:
            break
        paging = {"cursor": page["pagination"]["nextCursor"]}
    for template in templates:
        print(template["id"], template["image"])''')
    assert [(s.line, s.state, s.rule) for s in out["cli.py"].states] == [(7, 1, "Q02")]
    before = analyze_files(files)["cli.py"].findings
    assert [(f.line, f.rule, f.kind, f.route, f.fixable) for f in before] == [
        (7, "L01", "call", "GET /templates", True), (7, "Q02", "list-read", "GET /templates", True),
        (7, "Q30", "pagination", "GET /templates", True), (8, "L02", "response-field", "GET /templates", True)]
    after = analyze_files({path: r.new_source for path, r in out.items()})
    assert not any(r.findings for r in after.values())  # Client's base is v2 now: its calls are v2 code


def test_a_field_read_on_the_answer_of_a_call_through_another_modules_helper_is_a_v1_read():
    files = {"rp.py": URLLIB, "job.py": 'import rp\n\n\ndef running():\n    return [p["id"] for p in rp.call("GET", '
             '"/pods") if p["desiredStatus"] == "RUNNING"]\n'}
    found = analyze_files(files)["job.py"].findings
    read = next(f for f in found if f.kind == "response-field")
    assert (read.line, read.rule, read.route, read.fixable) == (5, "Q13", "GET /pods", True)
    assert read.message.startswith("v1 field 'desiredStatus' -> 'status'")


def test_the_base_a_translated_helper_moves_is_a_finding_of_its_own():
    """Guards issue 25's `runpodctl/client.py:7`: the audit lists the base the rewrite moves with the helper."""
    files = {"pkg/__init__.py": "", "pkg/client.py": CLIENT, "pkg/volumes.py": USES_CLIENT}
    found = analyze_files(files)["pkg/client.py"].findings
    base = [(f.line, f.rule, f.kind, f.fixable) for f in found if f.kind == "base-url"]
    assert base == [(5, "L01", "base-url", True)]
    assert '    def __init__(self, base="https://api.runpod.io/v2"):' in \
        rewrite_files(files)["pkg/client.py"].new_source.splitlines()


def test_a_path_sent_on_an_object_handed_in_says_what_could_not_be_resolved():
    found = analyze_files({"hooks.py": 'def on_start(api, log):\n    for t in api.get("/templates"):\n'
                                       '        log.info(t["id"])\n'})["hooks.py"].findings
    assert [(f.line, f.kind) for f in found] == [(2, "indirect")]
    assert found[0].message.endswith("(review: `api` is handed in by the caller and no file of the project says what "
                                     "it is, so the base that `api.get` joins the path to is unknown)")


def test_the_command_follows_a_class_a_package_init_hands_on(tmp_path, capsys):
    """Guards one truth for both commands: `from pkg import Client` through an `__init__` with no sign of the API
    (the prefilter passes it over) reaches Client's helpers in `rewrite` as in `audit`; the calls through it were
    not counted by the rewrite at all (silent) while the audit listed them."""
    import json

    from v1bridge.cli import main

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from .client import Client\n")
    (tmp_path / "pkg" / "client.py").write_text(CLIENT)
    (tmp_path / "report.py").write_text("from pkg import Client\n\n\ndef names(c: Client):\n"
                                        '    return [t["name"] for t in c.get("/templates")]\n')
    (tmp_path / "pkg" / "volumes.py").write_text(USES_CLIENT)
    main(["rewrite", "--format", "json", "--quiet", str(tmp_path)])
    sites = {(s["path"].rsplit("/", 1)[-1], s["line"]): (s["state"], s["rule"])
             for s in json.loads(capsys.readouterr().out)["sites"]}
    assert set(sites) == {("report.py", 5), ("volumes.py", 5), ("volumes.py", 9)}
    assert sites[("report.py", 5)] == sites[("volumes.py", 5)]  # the same call, through the class imported directly


ASYNC_CLIENT = '''import httpx

from . import constants


class RunPod:
    def __init__(self, base_url=constants.REST_URL):
        self._http = httpx.AsyncClient(base_url=base_url, timeout=30.0)

    async def request(self, method, path, body=None, params=None):
        kwargs = {"params": params}
        if method in ("POST", "PATCH"):
            kwargs["json"] = body or {}
        resp = await self._http.request(method, path, **kwargs)
        resp.raise_for_status()
        return resp.json() if resp.content else None

    async def get(self, path, params=None):
        return await self.request("GET", path, params=params)
'''


TEMPLATES_AFTER = '''from .client import RunPod


async def names(rp: RunPod):
    templates, paging = [], {}
    while True:
        page = await rp.get("/templates", params=paging)
        templates += page["templates"]
        if not page["pagination"]["hasNextPage"]:
            break
        paging = {"cursor": page["pagination"]["nextCursor"]}
    return [t["name"] for t in templates]
'''


def test_a_client_class_whose_base_is_a_constant_of_another_module_is_read_at_its_callers_and_the_constant_moves():
    """modelhub's shape: the client's base is a constructor default read on a module imported whole
    (`constants.REST_URL`, an environment default); neither the client module nor its callers spell an address.
    Its calls are read at their call sites (the query its request method hands on in a keywords dict, `kwargs =
    {"params": params}`, pages the list): plain v2 there; the constant moves, the client stays as it is."""
    files = {"pkg/__init__.py": "", "pkg/client.py": ASYNC_CLIENT,
             "pkg/constants.py": 'import os\n\nREST_URL = os.environ.get("RP_URL", "https://rest.runpod.io/v1")\n',
             "pkg/templates.py": 'from .client import RunPod\n\n\nasync def names(rp: RunPod):\n'
                                 '    return [t["name"] for t in await rp.get("/templates")]\n'}
    out = rewrite_files(files)
    assert out["pkg/constants.py"].new_source == files["pkg/constants.py"].replace(
        "https://rest.runpod.io/v1", "https://api.runpod.io/v2")
    assert out["pkg/client.py"].new_source == ASYNC_CLIENT
    assert out["pkg/templates.py"].new_source == TEMPLATES_AFTER
    assert [(s.line, s.state, s.rule) for s in out["pkg/templates.py"].states] == [(5, 1, "Q02")]
    again = rewrite_files({path: r.new_source for path, r in out.items()})
    assert all(r.new_source == out[path].new_source for path, r in again.items())


def test_a_client_made_from_a_constant_another_module_moves_keeps_that_constant_on_v1():
    """gpuctl's shape: `httpx.Client(base_url=config.REST_URL)` in a module with no address of its own; a call that
    could move the constant must not, while that client's calls stay v1 (they would be sent to v2 unchanged)."""
    files = {"pkg/__init__.py": "",
             "pkg/config.py": 'import os\n\nREST_URL = os.environ.get("RP_URL", "https://rest.runpod.io/v1")\n',
             "pkg/http.py": "import httpx\n\nfrom . import config\n\n\ndef rest():\n"
                            "    return httpx.Client(base_url=config.REST_URL)\n",
             "pkg/pods.py": 'import httpx\n\nfrom . import config\n\n\ndef pod(pod_id):\n'
                            '    return httpx.get(f"{config.REST_URL}/pods/{pod_id}").json()\n'}
    out = rewrite_files(files)
    assert out["pkg/config.py"].new_source.splitlines()[2] == "# v1bridge: L01 REST_URL is imported by other files " \
        "of the run and stays v1 with them (http.py:7: it builds a URL the rewrite cannot follow); use " \
        "/v2/serverless, /v2/network-volumes, /v2/registries (and /v2 before every path)"
    assert 'REST_URL = os.environ.get("RP_URL", "https://rest.runpod.io/v1")' in out["pkg/config.py"].new_source
    assert [(s.line, s.state) for s in out["pkg/pods.py"].states] == [(7, 3)]


FACTORY_CONFIG = 'import os\n\nREST_URL = os.environ.get("RP_URL", "https://rest.runpod.io/v1")\n'
FACTORY_HTTP = '''import httpx

from . import config

_rest = None


def rest() -> httpx.Client:
    global _rest
    if _rest is None:
        _rest = httpx.Client(base_url=config.REST_URL, timeout=20.0)
    return _rest
'''
FACTORY_CALLS = '''from .http import rest


def names():
    r = rest().get("/networkvolumes")
    r.raise_for_status()
    return [v["name"] for v in r.json()]


def drop(volume_id):
    c = rest()
    c.delete(f"/networkvolumes/{volume_id}").raise_for_status()
'''


def test_calls_on_the_library_client_another_module_s_function_returns_are_v2_and_its_base_constant_moves():
    """gpuctl's shape: `rest()` returns an `httpx.Client(base_url=config.REST_URL)` kept in a module global; other
    modules call `rest().get(...)` or bind `c = rest()`. Those calls are read at their call site on that base (plain
    v2 there), the factory's `base_url=` is not an escape of the constant, and the constant moves: the factory's
    module itself is left as it is."""
    files = {"pkg/__init__.py": "", "pkg/config.py": FACTORY_CONFIG, "pkg/http.py": FACTORY_HTTP,
             "pkg/volumes.py": FACTORY_CALLS}
    out = rewrite_files(files)
    assert out["pkg/config.py"].new_source == FACTORY_CONFIG.replace("https://rest.runpod.io/v1",
                                                                     "https://api.runpod.io/v2")
    assert out["pkg/http.py"].new_source == FACTORY_HTTP
    assert out["pkg/volumes.py"].new_source == FACTORY_CALLS.replace(
        'rest().get("/networkvolumes")', 'rest().get("/network-volumes")').replace(
        "for v in r.json()]", 'for v in r.json()["networkVolumes"]]').replace(
        'c.delete(f"/networkvolumes/{volume_id}")', 'c.delete(f"/network-volumes/{volume_id}")')
    assert [(s.line, s.state, s.rule) for s in out["pkg/volumes.py"].states] == [(5, 1, "Q02"), (12, 1, "L01")]
    again = rewrite_files({path: r.new_source for path, r in out.items()})
    assert all(r.new_source == out[path].new_source for path, r in again.items())


def test_a_library_client_factory_whose_call_stays_v1_keeps_its_base_constant_for_every_module():
    """A client handed in that may be `rest()`'s (`def drop_on(c, ...)`, untyped) keeps the factory on v1, whose
    requests cannot be translated at run time; the constant it is made from must then stay v1 too, although another
    module's own call through that constant could move it (the factory's word on it was 'go, if the factory
    moves'). Nothing moves under the calls left on v1, and each says why."""
    kept = FACTORY_CALLS + '\n\ndef drop_on(c, volume_id):\n    c.delete(f"/networkvolumes/{volume_id}")\n'
    direct = 'import httpx\n\nfrom . import config\n\n\ndef pod(pod_id):\n' \
             '    return httpx.get(f"{config.REST_URL}/pods/{pod_id}").json()\n'
    files = {"pkg/__init__.py": "", "pkg/config.py": FACTORY_CONFIG, "pkg/http.py": FACTORY_HTTP,
             "pkg/volumes.py": kept, "pkg/pods.py": direct}
    out = rewrite_files(files)
    assert 'REST_URL = os.environ.get("RP_URL", "https://rest.runpod.io/v1")' in out["pkg/config.py"].new_source
    assert "https://api.runpod.io/v2" not in "".join(r.new_source for r in out.values())
    assert out["pkg/config.py"].new_source.splitlines()[2] == (
        "# v1bridge: L01 REST_URL is imported by other files of the run and stays v1 with them (http.py:11: it is the "
        "base of rest(), which stays v1 (volumes.py:16: a v1 call on a client the rewrite cannot type may go through "
        "it)); use /v2/serverless, /v2/network-volumes, /v2/registries (and /v2 before every path)")
    assert [(s.line, s.state, s.cause.split(":")[0]) for s in out["pkg/volumes.py"].states] == [
        (5, 3, "GET /networkvolumes through rest().get() of http.py, which stays on v1"),
        (12, 3, "DELETE /networkvolumes/{networkVolumeId} through rest().delete() of http.py, which stays on v1"),
        (16, 3, "DELETE /networkvolumes/{networkVolumeId} on `c`, which the rewrite cannot type (it may be a "
                "rest().delete() of http.py)")]
    assert out["pkg/volumes.py"].states[2].cause.split("): ")[1].startswith(
        "bind it here (`c = rest()`) and run the rewrite again")
    assert [s.state for s in out["pkg/pods.py"].states] == [3]
    assert out["pkg/http.py"].new_source == FACTORY_HTTP


def test_an_awaitable_of_an_async_client_gathered_is_read_where_asyncio_gather_unpacks_it():
    """`h, ep = await asyncio.gather(c.get(job_api), c.get(v1))` on an `httpx.AsyncClient`: the answer of the v1
    call is `ep` (its `workersMax` read renamed), the job API's answer `h` keeps its own fields; neither is an answer
    the rewrite cannot trace (which sent every call of the module through the run-time translation, and that with
    the synchronous call_v1 on an awaitable)."""
    source = '''import asyncio

import httpx

REST = "https://rest.runpod.io/v1"
JOBS = "https://api.runpod.ai/v2"


async def health(endpoint_id):
    async with httpx.AsyncClient(timeout=20) as c:
        h, ep = await asyncio.gather(
            c.get(f"{JOBS}/{endpoint_id}/health"),
            c.get(f"{REST}/endpoints/{endpoint_id}"),
        )
    return h.json()["workers"]["idle"], ep.json()["workersMax"]


def delete(endpoint_id):
    httpx.delete(f"{REST}/endpoints/{endpoint_id}").raise_for_status()
'''
    out = rewrite_files({"ep.py": source})["ep.py"]
    assert out.new_source == source.replace("rest.runpod.io/v1", "api.runpod.io/v2").replace(
        "/endpoints/", "/serverless/").replace('ep.json()["workersMax"]', 'ep.json()["workers"]["max"]')
    assert [(s.line, s.state) for s in out.states] == [(13, 1), (19, 1)]


def test_a_call_on_an_async_client_awaited_elsewhere_goes_through_acall_v1():
    """A call of an `httpx.AsyncClient` not awaited where it is made (handed to asyncio.gather) answers an
    awaitable: translated at run time, it goes through acall_v1, never call_v1 (asyncio.gather refused the
    synchronous answer: TypeError)."""
    source = '''import asyncio

import httpx

REST = "https://rest.runpod.io/v1"


async def both(a, b, filters):
    async with httpx.AsyncClient(timeout=20) as c:
        return await asyncio.gather(c.get(f"{REST}/pods/{a}", params=filters), c.get(f"{REST}/pods/{b}"))
'''
    out = rewrite_files({"both.py": source})["both.py"]
    assert "v1bridge_compat.acall_v1(lambda method, url, **kw: c.request(method, url, **kw), \"GET\", " \
        'f"{REST}/pods/{a}", params=filters)' in out.new_source
    assert "v1bridge_compat.call_v1(" not in out.new_source


def test_a_v1_call_on_a_client_the_rewrite_cannot_type_keeps_the_helper_translated_at_run_time():
    untyped = 'from .client import Client\n\n\ndef stop(client, pod_id):\n    client.post(f"/pods/{pod_id}/stop")\n'
    files = {"pkg/__init__.py": "", "pkg/client.py": CLIENT, "pkg/volumes.py": USES_CLIENT, "pkg/untyped.py": untyped}
    out = rewrite_files(files)
    # `client` may be a Client: moving its base plain would leave that call's v1 path on a v2 base
    assert "v1bridge_compat.call_v1(" in out["pkg/client.py"].new_source
    assert out["pkg/volumes.py"].new_source == USES_CLIENT


def test_helpers_a_package_hands_on_are_read_through_the_package_imported_whole():
    files = {"rp/__init__.py": "from .http import call\n", "rp/http.py": URLLIB,
             "job.py": 'import rp\n\n\ndef stop(pod_id):\n    rp.call("POST", f"/pods/{pod_id}/stop")\n'}
    out = rewrite_files(files)
    assert out["job.py"].new_source.splitlines()[4] == '    rp.call("POST", f"/pods/{pod_id}/action", {"action": "stop"})'
    assert 'BASE = "https://api.runpod.io/v2"' in out["rp/http.py"].new_source


def test_only_files_that_import_a_base_constant_are_read_again_with_the_run_s_constants():
    """A file the prefilter skipped is parsed a second time only when it reads another module's base constant
    through an import; the constant's name as a word of its text (`API` in a docstring) is not a read: on a tree
    of ordinary modules that made every file a second parse."""
    from codemod.crossfile import ModuleFacts, constant_readers

    facts = [ModuleFacts(path="rp/constants.py", constants={"API": "https://rest.runpod.io/v1"})]
    texts = {
        "prose.py": '"""Ordinary code, no API calls."""\nAPI_TIMEOUT = 3\n',
        "attribute.py": "from . import constants\n\nclient = make(base_url=constants.API)\n",
        "named.py": "from .constants import API\n",
        "listed.py": "from .constants import (\n    TIMEOUT,\n    API,\n)\n",
        "star.py": "from .constants import *\n\nclient = make(base_url=API)\n",
        "commented.py": "import os  # API keys come from the environment\n",
    }
    assert constant_readers(facts, sorted(texts), texts.get) == ["attribute.py", "listed.py", "named.py", "star.py"]


READER_TEXTS = {
    "a word before import": "reimport API\n",
    "a word before import, then an import": "xximport os; import API\n",
    "an import inside a word, then an import on the next line": "reimport os\nfrom .constants import API\n",
    "a star import inside a word": "from .c reimport *\nx = API\n",
    "a star import, the name only in a longer word": "from .c import *\nx = API_TIMEOUT\n",
    "a star import at the very start": "import *\nAPI\n",
    "an attribute with spaces": "x = constants .  API\n",
    "an attribute of a longer name": "x = constants.APIS\n",
    "an import of a longer name": "from .constants import APIS\n",
    "an import line cut by a comment": "from .constants import TIMEOUT  # API\n",
    "an import with the name on its own line": "from .constants import (\n\n  API)\n",
    "the name at the start of the text": "API = 1\n",
    "unicode word before import": "éimport API\n",
    "an underscore before import": "_import API\n",
}


@pytest.mark.parametrize("name", sorted(READER_TEXTS))
def test_constant_readers_answer_as_the_one_regex_did(name: str) -> None:
    """The import and star-import patterns are looked for from their word (`import`) and checked to start one:
    the same files as the single `\\b`-led regex (tried at every position of every file) found."""
    import re

    from codemod.crossfile import ModuleFacts, constant_readers

    facts = [ModuleFacts(path="rp/constants.py", constants={"API": "https://rest.runpod.io/v1"})]
    text = READER_TEXTS[name]
    imported = re.compile(r"\.\s*(?:API)\b|\bimport\s+(?:\([^)]*|[^#\n]*)\b(?:API)\b")
    expected = bool(imported.search(text) or (re.search(r"\bimport\s+\*", text) and re.search(r"\b(?:API)\b", text)))
    assert constant_readers(facts, ["f.py"], {"f.py": text}.get) == (["f.py"] if expected else [])


# ------------------------------------------------------------------ one function per route, imported elsewhere

RESOURCE_FUNCTIONS = '''import requests

API = "https://rest.runpod.io/v1"


def get_pod(pod_id, key):
    r = requests.get(f"{API}/pods/{pod_id}", headers={"Authorization": f"Bearer {key}"}, timeout=30)
    r.raise_for_status()
    return r.json()


def stop_pod(pod_id, key):
    requests.post(f"{API}/pods/{pod_id}/stop", headers={"Authorization": f"Bearer {key}"}, timeout=30).raise_for_status()
'''

RESOURCE_READER = '''from rp.pods import get_pod, stop_pod

pod = get_pod("abc", "k")
print(pod["desiredStatus"], pod["costPerHr"])
stop_pod("abc", "k")
'''


def test_a_function_per_route_is_read_where_it_is_defined_and_its_answer_where_it_is_read():
    """`get_pod(pod_id)` names one route whole (its parameter fills the route's id): no helper its callers spell
    a path through, but a function whose answer other modules read. Its call is plain v2 in its own module, the
    response bound to `r` and returned as `r.json()` like any other, and the reads are renamed where they happen.
    (It was taken for a helper with the base `.../v1/pods/`: the call went whole through call_v1, the caller's
    line was counted as a call site in state 2, and `stop_pod("abc", "k")` was flagged with a false cause.)"""
    out = rewrite_files({"rp/__init__.py": "", "rp/pods.py": RESOURCE_FUNCTIONS, "report.py": RESOURCE_READER})
    assert out["rp/pods.py"].new_source == RESOURCE_FUNCTIONS.replace(
        "https://rest.runpod.io/v1", "https://api.runpod.io/v2").replace(
        '/stop", headers={"Authorization": f"Bearer {key}"}, timeout=30)',
        '/action", headers={"Authorization": f"Bearer {key}"}, timeout=30, json={"action": "stop"})')
    assert out["report.py"].new_source == RESOURCE_READER.replace(
        'pod["desiredStatus"], pod["costPerHr"]', 'pod["status"], pod["cost"]')
    states = {(path, s.line): (s.state, s.rule) for path, r in out.items() for s in r.states}
    assert states == {("rp/pods.py", 7): (1, "L01"), ("rp/pods.py", 13): (1, "L04")}
    assert not any(r.manual for r in out.values())


SDK_CLASS = '''import requests


class RunPodREST:
    def __init__(self, api_key, base_url="https://rest.runpod.io/v1"):
        self.base_url = base_url.rstrip("/")
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {api_key}"

    def get_pod(self, pod_id):
        r = self.session.get(f"{self.base_url}/pods/{pod_id}", timeout=30)
        r.raise_for_status()
        return r.json()

    def stop_pod(self, pod_id):
        self.session.post(f"{self.base_url}/pods/{pod_id}/stop", timeout=30).raise_for_status()
'''

SDK_USER = '''import os

from rpc.client import RunPodREST

client = RunPodREST(os.environ["RUNPOD_API_KEY"])
pod = client.get_pod("abc")
if pod["desiredStatus"] == "RUNNING":
    client.stop_pod(pod["id"])
'''


def test_a_method_per_route_that_returns_nothing_is_read_where_it_is_defined():
    """`stop_pod(self, pod_id)` names one route whole and returns nothing: plain v2 in its class, and its callers'
    calls are no call sites of their own (it was flagged in the caller "stays on v1: it joins something after the
    path" while the method itself moved to /action). `get_pod` returns its answer, which the other module reads by
    a field v2 renames: the method is plain v2 and the read renamed there (a method's answer was not followed
    across modules: the method's request was translated at run time, and the caller's call claimed as state 2)."""
    out = rewrite_files({"rpc/__init__.py": "", "rpc/client.py": SDK_CLASS, "status.py": SDK_USER})
    assert out["rpc/client.py"].new_source == SDK_CLASS.replace(
        "https://rest.runpod.io/v1", "https://api.runpod.io/v2").replace(
        '/stop", timeout=30)', '/action", timeout=30, json={"action": "stop"})')
    assert out["status.py"].new_source == SDK_USER.replace('"desiredStatus"', '"status"')
    states = {(path, s.line): (s.state, s.rule) for path, r in out.items() for s in r.states}
    assert states == {("rpc/client.py", 11): (1, "L01"), ("rpc/client.py", 16): (1, "L04")}
    assert not any(r.manual for r in out.values())


KW_HTTP = '''import os

import requests

API_URL = os.environ.get("RUNPOD_API_URL", "https://rest.runpod.io/v1").rstrip("/")


def request(method, path, body=None, **params):
    r = requests.request(method, f"{API_URL}/{path.lstrip('/')}", json=body, params=params or None, timeout=30)
    if not r.ok:
        raise RuntimeError(r.json().get("message", r.reason))
    return r.json() if r.text else None


def get(path, **params):
    return request("GET", path, **params)


def post(path, body=None):
    return request("POST", path, body)


def patch(path, body):
    return request("PATCH", path, body)
'''

KW_USES = '''from pkg.http import get, post


def named(name):
    return [p["id"] for p in get("/pods", name=name)]


def spend(start):
    return sum(r["amount"] for r in get("/billing/networkvolumes", bucketSize="day", startTime=start))


def grow(volume_id, size):
    post(f"/networkvolumes/{volume_id}/update", {"size": size})
'''


def test_a_helper_whose_keyword_arguments_are_the_query_is_read_at_each_call_site():
    """`get(path, **params)` hands its keywords to the request as the query (`params=params or None`, opsbox's
    rpops): `get("/pods", name=name)` sends the query {"name": name}. Each call is read at its call site: the
    filter v2 ignores is every page of v2 filtered at run time (all_pages), the billing list is plain v2, the update is a PATCH
    through `patch` imported beside `post`; the helper's base moves plain and its error read is v2's."""
    out = rewrite_files({"pkg/__init__.py": "", "pkg/http.py": KW_HTTP, "uses.py": KW_USES})
    assert out["pkg/http.py"].new_source == KW_HTTP.replace("rest.runpod.io/v1", "api.runpod.io/v2").replace(
        '.get("message", r.reason)', '.get("detail", r.reason)')
    assert out["uses.py"].new_source == '''from pkg.http import get, patch, post

import v1bridge_compat


def named(name):
    return [p["id"] for p in v1bridge_compat.all_pages(v1bridge_compat.by_method(get=get, post=post), "/pods", {"name": name}, op="pods.list")]


def spend(start):
    return sum(r["totalAmount"] for r in get("/billing/network-volumes", bucketSize="day", startTime=start)["records"])


def grow(volume_id, size):
    patch(f"/network-volumes/{volume_id}", {"size": size})
'''
    assert [(s.line, s.state, s.rule) for s in out["uses.py"].states] == [(5, 2, "Q03"), (9, 1, "L01"), (13, 1, "L04")]
    again = rewrite_files({path: r.new_source for path, r in out.items()})
    assert all(r.new_source == out[path].new_source for path, r in again.items())


def test_one_call_through_a_helper_staying_v1_keeps_its_request_group_from_moving_whatever_the_calls_before_say():
    """`get` and `post` send through one `request`: a plain GET read first, then a POST .../update that needs a
    PATCH the module has no helper for. That file's word on `request` is 'stay' (it was the first call's 'go', and
    the base moved under a call left flagged with its v1 path): the request is translated, both calls state 2."""
    http = KW_HTTP.split("\n\ndef patch")[0] + "\n"
    uses = ('from pkg.http import get, post\n\n\ndef pod(pod_id):\n    return get(f"/pods/{pod_id}")["id"]\n\n\n'
            'def grow(volume_id, size):\n    post(f"/networkvolumes/{volume_id}/update", {"size": size})\n')
    out = rewrite_files({"pkg/__init__.py": "", "pkg/http.py": http, "uses.py": uses})
    assert out["uses.py"].new_source == uses
    assert [(s.line, s.state) for s in out["uses.py"].states] == [(5, 2), (9, 2)]
    assert "r = v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, timeout=30, **kw), " \
           "method, f\"{API_URL}/{path.lstrip('/')}\", json=body, params=params or None)" in out["pkg/http.py"].new_source


def test_a_function_a_package_hands_on_is_heard_where_it_is_called_through_the_package():
    """`import pkg; pkg.pod(x)["publicIp"]` with `pkg/__init__.py` handing on `pods.pod`: reader.py reads the
    answer pod() returns (v1's publicIp), so pod() returns its v1 view, and the audit after lists the read as
    compat code (the call was agreed plain with no word from reader.py)."""
    files = {"pkg/__init__.py": "from .pods import pod\n", "pkg/api.py": API, "pkg/pods.py": GETTER,
             "reader.py": 'import pkg\n\n\ndef ip(pod_id):\n    return pkg.pod(pod_id)["publicIp"]\n'}
    out = rewrite_files(files)
    assert 'return v1bridge_compat.v1_view("pod", _get(f"/pods/{pod_id}"))' in out["pkg/pods.py"].new_source
    assert out["reader.py"].new_source == files["reader.py"]
    after = analyze_files({path: r.new_source for path, r in out.items()})
    assert [f for f in after["reader.py"].findings if not f.fixable] == []


def test_a_list_through_a_helper_whose_keywords_are_the_query_pages_with_the_cursor_as_keywords():
    uses = ('from pkg.http import get\n\n\ndef names():\n    return [p["name"] for p in get("/pods")]\n')
    out = rewrite_files({"pkg/__init__.py": "", "pkg/http.py": KW_HTTP, "uses.py": uses})
    assert out["uses.py"].new_source == '''from pkg.http import get


def names():
    pods, paging = [], {}
    while True:
        page = get("/pods", **paging)
        pods += page["pods"]
        if not page["pagination"]["hasNextPage"]:
            break
        paging = {"cursor": page["pagination"]["nextCursor"]}
    return [p["name"] for p in pods]
'''
    assert [(s.line, s.state, s.rule) for s in out["uses.py"].states] == [(5, 1, "Q02")]


def test_an_answer_its_module_hands_on_or_reads_alike_is_returned_as_its_v1_view():
    """pod()'s answer goes to another file that reads it where the rewrite cannot (a dump), to a function of its own
    module that returns it onward as it came (fresh), and to one reading a field v1 and v2 name and fill alike
    (`["id"]`): pod() returns the v1 view of its plain v2 call, and both local callers stay as they are (they get
    the v1 view; it was the whole call through call_v1)."""
    getter = GETTER + ('\n\ndef fresh(pod_id):\n    return pod(pod_id)\n\n\n'
                       'def ident(pod_id):\n    return pod(pod_id)["id"]\n')
    dump = DUMP + '\n\ndef status(pod_id):\n    return pods.fresh(pod_id)["desiredStatus"]\n'
    files = {"pkg/__init__.py": "", "pkg/api.py": API, "pkg/pods.py": getter, "wait.py": dump}
    out = rewrite_files(files)
    new = out["pkg/pods.py"].new_source
    assert new == "import v1bridge_compat\n\n" + getter.replace(
        'return _get(f"/pods/{pod_id}")', 'return v1bridge_compat.v1_view("pod", _get(f"/pods/{pod_id}"))').replace(
        "/stop\")", '/action", {"action": "stop"})')
    assert out["wait.py"].new_source == dump
    assert [(s.line, s.state) for s in out["pkg/pods.py"].states] == [(5, 2), (9, 1)]
    again = rewrite_files({path: r.new_source for path, r in out.items()})
    assert all(r.new_source == out[path].new_source for path, r in again.items())


def test_local_callers_reading_fields_v2_renames_or_lacks_read_the_v1_view_the_function_returns():
    """pod()'s answer goes to another file that reads it where the rewrite cannot (a dump, so the run keeps it v1's),
    to a local caller reading a field v2 renames (`desiredStatus`) and to one reading a field v2 does not name
    (`publicIp`): the call is plain v2, pod() returns its v1 view, and the local reads stay as written, on that
    view (it was the whole call through call_v1). A poll passing the view on (`ready`) hands it on as it came."""
    getter = GETTER + ('\n\ndef up(pod_id):\n    return pod(pod_id)["desiredStatus"] == "RUNNING"\n\n\n'
                       'def ip(pod_id):\n    p = pod(pod_id)\n    return p.get("publicIp")\n\n\n'
                       'def ready(pod_id):\n    p = pod(pod_id)\n    if p["desiredStatus"] != "RUNNING":\n'
                       '        return None\n    return p\n')
    files = {"pkg/__init__.py": "", "pkg/api.py": API, "pkg/pods.py": getter, "wait.py": DUMP}
    out = rewrite_files(files)
    assert out["pkg/pods.py"].new_source == "import v1bridge_compat\n\n" + getter.replace(
        'return _get(f"/pods/{pod_id}")', 'return v1bridge_compat.v1_view("pod", _get(f"/pods/{pod_id}"))').replace(
        "/stop\")", '/action", {"action": "stop"})')
    assert out["wait.py"].new_source == DUMP
    assert [(s.line, s.state, s.rule) for s in out["pkg/pods.py"].states] == [(5, 2, "L01"), (9, 1, "L04")]
    again = rewrite_files({path: r.new_source for path, r in out.items()})
    assert all(r.new_source == out[path].new_source for path, r in again.items())


def test_a_local_caller_binding_the_answer_to_a_name_it_binds_again_keeps_the_whole_call_on_the_translation():
    """`p = pod(...)`, then `p = ...` under an `if`: the flow does not follow what reaches p's later uses (a return
    onward to another file, read there as v1's), so the view is not planned on reads it cannot see."""
    getter = GETTER + ('\n\ndef bumped(pod_id):\n    p = pod(pod_id)\n    if p["desiredStatus"] != "RUNNING":\n'
                       '        p = {"id": pod_id}\n    return p\n')
    files = {"pkg/__init__.py": "", "pkg/api.py": API, "pkg/pods.py": getter, "wait.py": DUMP}
    new = rewrite_files(files)["pkg/pods.py"].new_source
    assert "v1_view" not in new and 'call_v1(v1bridge_compat.by_method(get=_get, post=_post), "GET"' in new


def test_a_billing_list_a_function_returns_to_its_own_module_only_is_regrouped_where_it_is_returned():
    """storage() returns network-volume billing (v1: one record per bucket; v2: one per volume and bucket) through
    another file's helper, and only its own module reads it: its reads are the call's, so the records are regrouped
    into v1's at the return and the read renamed (was the whole call through call_v1, as for a list other files
    get)."""
    spend = ('from pkg import api\n\n\ndef storage():\n'
             '    return api._get("/billing/networkvolumes", {"bucketSize": "day"})\n\n\n'
             'def main():\n    print(sum(r["amount"] for r in storage()))\n')
    out = rewrite_files({"pkg/__init__.py": "", "pkg/api.py": API, "spend.py": spend})
    assert out["spend.py"].new_source == spend.replace(
        "from pkg import api\n", "from pkg import api\n\nimport v1bridge_compat\n").replace(
        'return api._get("/billing/networkvolumes", {"bucketSize": "day"})',
        'return v1bridge_compat.regroup_billing("billing_network_volume", api._get("/billing/network-volumes", '
        '{"bucketSize": "day"}))').replace('r["amount"]', 'r["totalAmount"]')
    assert [(s.line, s.state) for s in out["spend.py"].states] == [(5, 2)]
    assert "call_v1" not in out["spend.py"].new_source


def test_a_helper_whose_base_builds_a_url_elsewhere_is_not_claimed_translated_by_its_callers_files():
    """api.py's BASE_URL also builds a link the rewrite cannot follow: the helpers keep their v1 base (flagged in
    api.py). The calls through them in pods.py say so with that cause (state 3), instead of claiming a translation
    at run time that api.py never makes, and wait.py's read of pod()'s answer stays v1's (it was renamed to v2's
    `status` on an answer still v1's: a KeyError on the first run)."""
    api = API + '\n\ndef link(pod_id):\n    return BASE_URL + "/pods/" + pod_id\n'
    out = rewrite_files({"pkg/__init__.py": "", "pkg/api.py": api, "pkg/pods.py": GETTER, "wait.py": WAIT})
    assert "https://rest.runpod.io/v1" in out["pkg/api.py"].new_source
    states = [(s.line, s.state) for s in out["pkg/pods.py"].states]
    assert states == [(5, 3), (9, 3)]
    cause = out["pkg/pods.py"].states[0].cause
    assert cause.startswith("GET /pods/{podId} through _get() of api.py, which stays on v1: its base also builds a "
                            "URL at line 19 that the rewrite cannot follow")
    assert "translated at run time" not in out["pkg/pods.py"].new_source
    assert out["wait.py"].new_source == WAIT


def test_a_list_whose_filters_v2_ignores_is_every_page_of_v2_with_the_filters_applied_at_run_time():
    """`desiredStatus`/`gpuTypeId` are v1 filters v2 ignores: the list is `all_pages(<the helper's send>, "/pods",
    q, op="pods.list")` (every page, the filters applied to v2's records) and its reads are v2's where they are made;
    it was the whole call translated at run time (v1's answer). The helper moves plain."""
    lists = ('from .api import _get\n\n\ndef running(gpu=None):\n    q = {"desiredStatus": "RUNNING"}\n    if gpu:\n'
             '        q["gpuTypeId"] = gpu\n    return [(p["name"], p["desiredStatus"]) for p in _get("/pods", q)]\n')
    out = rewrite_files({"pkg/__init__.py": "", "pkg/api.py": API, "pkg/lists.py": lists})
    assert out["pkg/lists.py"].new_source == "import v1bridge_compat\n\n" + lists.replace(
        'p["desiredStatus"]', 'p["status"]').replace(
        '_get("/pods", q)', 'v1bridge_compat.all_pages(v1bridge_compat.by_method(get=_get), "/pods", q, op="pods.list")')
    assert [(s.line, s.state, s.cause) for s in out["pkg/lists.py"].states] == [
        (8, 2, "v2 list; v1bridge_compat.all_pages reads every page and applies the v1 filters v2 ignores")]
    assert out["pkg/api.py"].new_source == API.replace("https://rest.runpod.io/v1", "https://api.runpod.io/v2")
    again = rewrite_files({path: r.new_source for path, r in out.items()})
    assert all(r.new_source == out[path].new_source for path, r in again.items())


def test_the_first_record_of_a_filtered_list_returned_to_another_module_is_read_there_by_its_v2_names():
    """find() returns `pods[0] if pods else None` of a list filtered by a v1 parameter v2 ignores (`name`): that is
    the answer of its call too, so the other module's word is heard; it reads a field v2 renames, so the list is
    every page of v2 filtered at run time and the read is renamed where it is made (it was the whole call through
    call_v1: find() had no ReturnSig)."""
    pods = 'from .http import get\n\n\ndef find(name):\n    pods = get("/pods", name=name)\n    return pods[0] if pods else None\n'
    uses = ('from pkg.pods import find\n\n\ndef running(name):\n    pod = find(name)\n'
            '    return pod is not None and pod["desiredStatus"] == "RUNNING"\n')
    out = rewrite_files({"pkg/__init__.py": "", "pkg/http.py": KW_HTTP, "pkg/pods.py": pods, "uses.py": uses})
    assert out["pkg/pods.py"].new_source == pods.replace("from .http", "import v1bridge_compat\n\nfrom .http").replace(
        'get("/pods", name=name)',
        'v1bridge_compat.all_pages(v1bridge_compat.by_method(get=get), "/pods", {"name": name}, op="pods.list")')
    assert out["uses.py"].new_source == uses.replace('"desiredStatus"', '"status"')
    assert [(s.line, s.state, s.rule) for s in out["pkg/pods.py"].states] == [(5, 2, "Q03")]


def test_a_field_read_on_another_files_answer_a_local_function_hands_on_does_not_hold_this_files_calls():
    """`pod = launch(...)` (this file's create), then `pod = wait(pod["id"])` (another file's answer, handed on by
    wait()): the reads after the second binding read that answer (the v1 view pod() returns), not the create's, so
    the create is plain v2 (it went whole through call_v1: `costPerHr` was a read the rewrite could not trace)."""
    uses = ('from pkg import pods\nfrom pkg.api import _post\n\n\ndef launch(name):\n'
            '    return _post("/pods", {"name": name, "imageName": "busybox", "gpuTypeIds": ["NVIDIA A40"]})\n\n\n'
            'def wait(pod_id):\n    return pods.pod(pod_id)\n\n\n'
            'def main():\n    pod = launch("x")\n    pod = wait(pod["id"])\n'
            '    return pod["costPerHr"], pod.get("publicIp")\n')
    out = rewrite_files({"pkg/__init__.py": "", "pkg/api.py": API, "pkg/pods.py": GETTER, "uses.py": uses})
    assert out["uses.py"].new_source == uses.replace(
        '{"name": name, "imageName": "busybox", "gpuTypeIds": ["NVIDIA A40"]}',
        '{"name": name, "image": "busybox", "gpu": {"id": "NVIDIA A40", "count": 1, "minRamPerGpu": 8, '
        '"minVcpuCountPerGpu": 2}, "disk": 50, "ports": ["8888/http", "22/tcp"], "mounts": {"persistent": '
        '{"size": 20, "path": "/workspace"}}}')
    assert 'return v1bridge_compat.v1_view("pod", _get(f"/pods/{pod_id}"))' in out["pkg/pods.py"].new_source
    assert [(s.line, s.state, s.rule) for s in out["uses.py"].states] == [(6, 1, "L02")]


def test_a_billing_list_whose_grouping_and_gpu_filter_are_set_on_some_runs_reads_that_query_when_it_runs():
    """v1 grouped pod billing by GPU type unless `grouping` said otherwise, and filtered it on each pod's GPU type;
    the query is built under `if`s, so only the run knows it: the list is every page of v2 with that query applied
    when it runs (all_pages sends v2 only what it takes), its reads by v2's names (was the whole call through
    call_v1: R10, and the grouping sent on some runs only)."""
    uses = ('from pkg.http import get\n\n\ndef spend(gpu=None, per_pod=False):\n    q = {"bucketSize": "day"}\n'
            '    if gpu:\n        q["gpuTypeId"] = gpu\n    if per_pod:\n        q["grouping"] = "podId"\n'
            '    return [r["amount"] for r in get("/billing/pods", **q)]\n')
    out = rewrite_files({"pkg/__init__.py": "", "pkg/http.py": KW_HTTP, "uses.py": uses})
    assert out["uses.py"].new_source == uses.replace("get\n\n\n", "get\n\nimport v1bridge_compat\n\n\n").replace(
        'r["amount"] for r in get("/billing/pods", **q)',
        'r["totalAmount"] for r in v1bridge_compat.all_pages(v1bridge_compat.by_method(get=get), "/billing/pods", q, '
        'op="billing.pods")')
    assert [(s.line, s.state) for s in out["uses.py"].states] == [(10, 2)]


SDK = '''import requests


class Client:
    def __init__(self, key):
        self.base = "https://rest.runpod.io/v1"
        self.s = requests.Session()
        self.s.headers["Authorization"] = "Bearer " + key

    def get_pod(self, pod_id):
        r = self.s.get(f"{self.base}/pods/{pod_id}", timeout=30)
        r.raise_for_status()
        return r.json()
'''


def test_a_client_class_methods_answer_is_read_by_v2_names_in_the_modules_that_read_it():
    """A client class made in one module and used in two (`Client(key).get_pod(...)`, `c = Client(key)` then
    `c.get_pod(...)`): the answer of its method is heard like a module function's (ReturnSig `Client.get_pod`),
    every reader reads a field v2 has, so the method is plain v2 and the reads are renamed where they are made
    (`desiredStatus` -> `status`, `costPerHr` -> `cost`). It was the whole call through call_v1."""
    watch = 'from sdk import Client\n\n\ndef status(key, pod_id):\n    return Client(key).get_pod(pod_id)["desiredStatus"]\n'
    cli = ('from sdk import Client\n\n\ndef cost(key, pod_id):\n    c = Client(key)\n    pod = c.get_pod(pod_id)\n'
           '    return pod["costPerHr"]\n')
    out = rewrite_files({"sdk.py": SDK, "watch.py": watch, "cli.py": cli})
    assert out["sdk.py"].new_source == SDK.replace("rest.runpod.io/v1", "api.runpod.io/v2")
    assert out["watch.py"].new_source == watch.replace('"desiredStatus"', '"status"')
    assert out["cli.py"].new_source == cli.replace('"costPerHr"', '"cost"')
    assert [(s.line, s.state) for s in out["sdk.py"].states] == [(11, 1)]
    assert not out["watch.py"].states and not out["cli.py"].states


def test_a_client_class_method_whose_answer_goes_out_of_sight_returns_the_v1_view_of_a_plain_v2_call():
    """One reader hands the answer where the rewrite cannot read it (a dump): the method is plain v2 and returns
    its v1 view, and the other reader's v1 names stay as written (on that view)."""
    dump = 'import json\n\nfrom sdk import Client\n\n\ndef dump(key, pod_id):\n    return json.dumps(Client(key).get_pod(pod_id))\n'
    cli = ('from sdk import Client\n\n\ndef cost(key, pod_id):\n    c = Client(key)\n    pod = c.get_pod(pod_id)\n'
           '    return pod["costPerHr"]\n')
    out = rewrite_files({"sdk.py": SDK, "dump.py": dump, "cli.py": cli})
    assert out["sdk.py"].new_source == SDK.replace("import requests\n", "import requests\n\nimport v1bridge_compat\n") \
        .replace("rest.runpod.io/v1", "api.runpod.io/v2").replace("return r.json()",
                                                                  'return v1bridge_compat.v1_view("pod", r.json())')
    assert not out["dump.py"].changed and not out["cli.py"].changed
    assert [(s.line, s.state) for s in out["sdk.py"].states] == [(11, 2)]


def test_a_list_rebound_under_an_if_is_still_the_lists_records_after_it():
    """`if prefix: pods = [p for p in pods if ...]` may or may not run: a read after it may see the first value, so
    the flow follows both (a rebinding under an `if` is possible, not certain) and a rebinding to some of the same
    records keeps them the list's. The list is all_pages and the read after the `if` is v2's; it was the whole call
    through call_v1 (the flow took the name as rebound for good). (A read in another branch of an if/elif chain
    never sees the value, whatever its line: modelhub's deploy.py, projects_expected.)"""
    lists = ('from .api import _get\n\n\ndef running(prefix=None):\n    pods = _get("/pods", {"desiredStatus": "RUNNING"})\n'
             '    if prefix:\n        pods = [p for p in pods if p["name"].startswith(prefix)]\n'
             '    return [(p["name"], p["desiredStatus"]) for p in pods]\n')
    out = rewrite_files({"pkg/__init__.py": "", "pkg/api.py": API, "pkg/lists.py": lists})
    assert out["pkg/lists.py"].new_source == "import v1bridge_compat\n\n" + lists.replace(
        '_get("/pods", {"desiredStatus": "RUNNING"})', 'v1bridge_compat.all_pages(v1bridge_compat.by_method(get=_get), '
        '"/pods", {"desiredStatus": "RUNNING"}, op="pods.list")').replace(
        'return [(p["name"], p["desiredStatus"])', 'return [(p["name"], p["status"])')
    assert [(s.line, s.state) for s in out["pkg/lists.py"].states] == [(5, 2)]


def test_a_list_whose_query_asks_for_what_the_v1_view_builds_is_every_page_read_through_that_view():
    """`includeWorkers=true` set under an `if` (modelhub's all_endpoints): v2 lists no workers, v1's view of each
    record builds them (one v2 read per endpoint through the client's send). The list is every page of v2
    (all_pages) returned as v1_view(..., includes=<the query>), which honours the flags as the query sets them when
    it runs; it was the whole call through call_v1. The local caller reads `name`, which both shapes have."""
    lists = ('from .api import _get\n\n\ndef endpoints(with_workers=False):\n    params = {}\n    if with_workers:\n'
             '        params["includeWorkers"] = "true"\n    return _get("/endpoints", params)\n\n\n'
             'def by_name(name):\n    return next((e for e in endpoints() if e["name"] == name), None)\n')
    cli = ('from pkg.lists import endpoints\n\n\ndef show():\n    for e in endpoints(True):\n'
           '        print(e["workersMax"], len(e.get("workers") or []))\n')
    out = rewrite_files({"pkg/__init__.py": "", "pkg/api.py": API, "pkg/lists.py": lists, "cli.py": cli})
    send = "v1bridge_compat.by_method(get=_get)"
    assert out["pkg/lists.py"].new_source == "import v1bridge_compat\n\n" + lists.replace(
        'return _get("/endpoints", params)', f'return v1bridge_compat.v1_view("endpoint", v1bridge_compat.all_pages('
        f'{send}, "/serverless", params, op="endpoints.list"), send={send}, includes=params)')
    assert out["cli.py"].new_source == cli


def test_a_client_class_methods_answer_is_heard_through_an_instance_or_a_factory_another_module_imports():
    """`from sdk import CLIENT` (a module-level instance) and `from sdk import client` (a function returning one):
    `CLIENT.get_pod(...)` and `client().get_pod(...)` are calls of the method whose answer they read, renamed there
    (the method returned the v1 view: the run did not hear those readers)."""
    sdk = SDK + '\n\nCLIENT = Client("k")\n\n\ndef client():\n    return Client("k")\n'
    by_instance = 'from sdk import CLIENT\n\n\ndef status(pod_id):\n    return CLIENT.get_pod(pod_id)["desiredStatus"]\n'
    by_factory = 'from sdk import client\n\n\ndef cost(pod_id):\n    pod = client().get_pod(pod_id)\n    return pod["costPerHr"]\n'
    out = rewrite_files({"sdk.py": sdk, "a.py": by_instance, "b.py": by_factory})
    assert out["sdk.py"].new_source == sdk.replace("rest.runpod.io/v1", "api.runpod.io/v2")
    assert out["a.py"].new_source == by_instance.replace('"desiredStatus"', '"status"')
    assert out["b.py"].new_source == by_factory.replace('"costPerHr"', '"cost"')


def test_a_method_called_on_an_object_the_run_cannot_tie_to_its_class_keeps_its_answer_v1s():
    """b.py calls `client.get_pod(...)` on a client handed in: the run cannot hear what it reads, so the method
    returns the v1 view (a.py's read stays as written) instead of moving every reader to v2 but that one."""
    by_class = 'from sdk import Client\n\n\ndef status(pod_id):\n    return Client("k").get_pod(pod_id)["desiredStatus"]\n'
    handed = 'import json\n\n\ndef report(client, pod_id):\n    return client.get_pod(pod_id)["costPerHr"]\n'
    out = rewrite_files({"sdk.py": SDK, "a.py": by_class, "b.py": handed})
    assert 'return v1bridge_compat.v1_view("pod", r.json())' in out["sdk.py"].new_source
    assert not out["a.py"].changed and not out["b.py"].changed


WHOLE_URL_API = '''import requests

API = "https://rest.runpod.io/v1"
HEADERS = {"Authorization": "Bearer k"}


def get(url, params=None):
    r = requests.get(url, headers=HEADERS, params=params, timeout=30)
    r.raise_for_status()
    return r.json()
'''
WHOLE_URL_PODS = '''from .api import API, get


def pod_ids():
    return sorted(p["id"] for p in get(API + "/pods"))


def running_ids():
    return sorted(p["id"] for p in get(f"{API}/pods", params={"desiredStatus": "RUNNING"}))


def status(pod_id):
    return get(f"{API}/pods/{pod_id}")["desiredStatus"]
'''


def test_a_helper_module_given_whole_urls_is_read_at_each_call_site_and_its_callers_run_on_v2(tmp_path):
    """`get(url, params=None)` in api.py, called from pods.py with `API + "/pods"`: the helper has no base of its
    own, so it is read at each call site (a cursor loop, all_pages for the filter, the v2 field) and the constant
    moves; before, the helper was held on v1 ('its base address is not a literal') and every call flagged."""
    import importlib
    import sys

    from codemod import compat
    from tests.codemod.compat.tools import AUTH, Client, pod_body, start_sandbox
    from tests.codemod.tools import load

    out = rewrite_files({"pkg/__init__.py": "", "pkg/api.py": WHOLE_URL_API, "pkg/pods.py": WHOLE_URL_PODS})
    assert out["pkg/api.py"].new_source == WHOLE_URL_API.replace("https://rest.runpod.io/v1", "https://api.runpod.io/v2")
    assert out["pkg/pods.py"].new_source == '''import v1bridge_compat

from .api import API, get


def pod_ids():
    pods, paging = [], {}
    while True:
        page = get(API + "/pods", params=paging)
        pods += page["pods"]
        if not page["pagination"]["hasNextPage"]:
            break
        paging = {"cursor": page["pagination"]["nextCursor"]}
    return sorted(p["id"] for p in pods)


def running_ids():
    return sorted(p["id"] for p in v1bridge_compat.all_pages(v1bridge_compat.by_method(get=get), f"{API}/pods", {"desiredStatus": "RUNNING"}, op="pods.list"))


def status(pod_id):
    return get(f"{API}/pods/{pod_id}")["status"]
'''
    assert [(s.line, s.state, s.rule) for s in out["pkg/pods.py"].states] == [(5, 1, "Q02"), (9, 2, "Q03"),
                                                                               (13, 1, "L01")]
    again = rewrite_files({path: r.new_source for path, r in out.items()})
    assert all(r.new_source == out[path].new_source for path, r in again.items())

    server = start_sandbox()  # two pods a page
    try:
        client = Client(server.url)
        ids = [client.create_pod(pod_body(name=f"w{n}")).json()["id"] for n in range(5)]
        client.send("POST", f"/pods/{ids[0]}/action", json={"action": "stop"})
        root = tmp_path / "project"
        (root / "pkg").mkdir(parents=True)
        for path, result in out.items():
            (root / path).write_text(result.new_source)
        (root / f"{compat.MODULE_NAME}.py").write_text(compat.render())
        sys.path.insert(0, str(root))
        try:
            api, pods = importlib.import_module("pkg.api"), importlib.import_module("pkg.pods")
            api.HEADERS = dict(AUTH)
            pods.API = server.url + "/v2"
            assert pods.pod_ids() == sorted(ids)
            assert pods.running_ids() == sorted(ids[1:])
            assert pods.status(ids[0]) == "EXITED"
        finally:
            sys.path.remove(str(root))
            for name in [m for m in sys.modules if m in ("pkg", compat.MODULE_NAME) or m.startswith("pkg.")]:
                del sys.modules[name]
    finally:
        server.close()
