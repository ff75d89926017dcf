"""Helpers across modules (issue 21): a helper one module defines and others call (`from .api import _get`,
`from pkg import api; api._post(...)`, a client class made in one module and used in others).

The helper's own request goes through the compat module's run-time translation and its base moves to v2; every
call through it, in every module, is then on v2 (state 2) and left as it is; a helper whose request cannot be
wrapped leaves its callers flagged with the cause. `audit` reads the same project facts.
"""
from __future__ import annotations

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


def test_a_helper_other_modules_call_translates_its_request_and_its_base_moves():
    out = rewrite_files(_project())
    assert out["pkg/api.py"].new_source == API_AFTER
    for caller in ("pkg/pods.py", "spend.py", "reader.py"):
        assert out[caller].new_source == _project()[caller], caller  # left as they are: translated when they run
    states = {(path, s.line): (s.state, s.rule) for path, r in out.items() for s in r.states}
    assert states == {("pkg/pods.py", 5): (2, "L01"), ("pkg/pods.py", 9): (2, "R01"), ("pkg/pods.py", 13): (2, "L01"),
                      ("spend.py", 5): (2, "L01")}
    assert all("_post() of api.py" in s.cause or "_get() of" in s.cause
               for r in out.values() for s in r.states)
    assert not any(r.v1_left or r.manual for r in out.values())


def test_the_second_run_changes_nothing_and_still_counts_the_calls_through_the_helper():
    first = rewrite_files(_project())
    again = rewrite_files({path: r.new_source for path, r in first.items()})
    assert all(r.new_source == first[path].new_source for path, r in again.items())
    assert sorted(s.state for r in again.values() for s in r.states) == [2, 2, 2, 2]


def test_methods_of_a_client_class_imported_whole():
    files = {"pkg/__init__.py": "", "pkg/client.py": CLIENT, "pkg/volumes.py": USES_CLIENT}
    out = rewrite_files(files)
    new = out["pkg/client.py"].new_source
    assert 'def __init__(self, base="https://api.runpod.io/v2"):' in new
    assert ("resp = v1bridge_compat.call_v1(lambda method, url, **kw: self.session.request(method, url, timeout=10, "
            "**kw), method, f\"{self.base}/{path.lstrip('/')}\", **kwargs)") in new
    assert out["pkg/volumes.py"].new_source == USES_CLIENT
    assert [(s.line, s.state, s.rule) for s in out["pkg/volumes.py"].states] == [(5, 2, "Q02"), (9, 2, "L04")]


def test_a_helper_whose_request_cannot_be_wrapped_leaves_its_callers_flagged_with_the_cause():
    files = {"rp.py": URLLIB, "job.py": 'import rp\n\n\ndef stop(pod_id):\n    rp.call("POST", f"/pods/{pod_id}/stop")\n'}
    out = rewrite_files(files)
    assert out["rp.py"].new_source.count("rest.runpod.io/v1") == 1  # its base stays: its request stays v1
    job = out["job.py"]
    assert job.v1_left and [(s.line, s.state) for s in job.states] == [(5, 3)]
    comment = job.new_source.splitlines()[4].strip()
    assert comment.startswith("# v1bridge: L04 POST /pods/{podId}/stop through call() of rp.py, which stays on v1: "
                              "it sends through urllib, which the run-time translation does not drive;")


def test_the_audit_sees_the_calls_through_the_helper_before_and_compat_code_after():
    before = analyze_files(_project())
    assert any(f.route == "POST /pods/{podId}/reset" for f in before["pkg/pods.py"].findings)
    assert before["reader.py"].findings  # a v1 field read on a record from elsewhere: still v1 code
    after = analyze_files({path: r.new_source for path, r in rewrite_files(_project()).items()})
    for path in ("pkg/pods.py", "spend.py", "reader.py"):
        assert after[path].findings and all(f.kind == "compat-helper" for f in after[path].findings), path


def test_a_call_on_a_client_another_module_makes_is_flagged_with_that_cause_never_silent():
    files = {"pkg/__init__.py": "", "pkg/http.py": "import httpx\n\nfrom . import config\n\n\ndef rest():\n"
             "    return httpx.Client(base_url=config.REST_URL)\n",
             "pkg/templates.py": 'from .http import rest\n\n\ndef names():\n    return rest().get("/templates").json()\n'}
    out = rewrite_files(files)
    assert [(s.line, s.state, s.rule) for s in out["pkg/templates.py"].states] == [(5, 3, "Q02")]
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
    a call through Client.get() (state 2 once the class's request is translated), and the v1 fields read on its
    answer are v1 reads before the rewrite and v1 views made at run time after it."""
    files = {"pkg/__init__.py": "", "pkg/client.py": CLIENT, "cli.py": MODULE_INSTANCE}
    out = rewrite_files(files)
    assert out["cli.py"].new_source == MODULE_INSTANCE
    assert [(s.line, s.state, s.rule) for s in out["cli.py"].states] == [(7, 2, "Q02")]
    before = analyze_files(files)["cli.py"].findings
    assert [(f.line, f.rule, f.kind, f.route, f.fixable) for f in before] == [
        (7, "Q02", "call", "GET /templates", True), (8, "L02", "response-field", "GET /templates", True)]
    assert before[1].message.startswith("v1 field 'imageName' of GET /templates through Client.get() of pkg/client.py")
    after = analyze_files({path: r.new_source for path, r in out.items()})["cli.py"].findings
    assert [(f.line, f.rule, f.kind) for f in after] == [(7, "Q02", "compat-helper"), (8, "L02", "compat-helper")]


def test_a_field_read_on_the_answer_of_a_helper_that_stays_v1_is_v1_code():
    files = {"rp.py": URLLIB, "job.py": 'import rp\n\n\ndef running():\n    return [p["id"] for p in rp.call("GET", '
             '"/pods") if p["desiredStatus"] == "RUNNING"]\n'}
    found = analyze_files(files)["job.py"].findings
    read = next(f for f in found if f.kind == "response-field")
    assert (read.line, read.rule, read.route, read.fixable) == (5, "Q13", "GET /pods", False)
    assert read.message.startswith("v1 field 'desiredStatus' of GET /pods through call() of rp.py, which stays on v1")


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
