"""A `requests.Session` subclass is a client class (issue 21, labkit's shape).

`class Session(requests.Session)` overrides `request()` to join `self.base_url`, taken from a dataclass field of
another module whose default is that module's constant (`field(default_factory=lambda: os.environ.get("VAR",
DEFAULT_URL))`). Its `request()`, its own helpers that call `self.request`, and the verbs it inherits (`s.get(...)`)
are helpers other modules call on an instance (`s: Session`); the base is followed through the field to the
constant, which moves to v2 once every call through the class is v2 at its call site.
"""
from __future__ import annotations

from codemod.analysis import analyze
from codemod.crossfile import External, Table
from codemod.engine import rewrite_files

SETTINGS = '''import os
from dataclasses import dataclass, field

DEFAULT_URL = "https://rest.runpod.io/v1"


@dataclass
class Settings:
    api_url: str = field(default_factory=lambda: os.environ.get("RP_URL", DEFAULT_URL))
    timeout: float = 30.0
'''

SESSION = '''import requests

from .settings import Settings


class Session(requests.Session):
    def __init__(self, settings=None):
        super().__init__()
        self.settings = settings or Settings()
        self.base_url = self.settings.api_url.rstrip("/")

    def request(self, method, url, *args, **kwargs):
        if not url.startswith("http"):
            url = f"{self.base_url}/{url.lstrip('/')}"
        return super().request(method, url, *args, **kwargs)

    def call(self, method, path, body=None):
        resp = self.request(method, path, json=body or {})
        resp.raise_for_status()
        return resp.json() if resp.content else None
'''

VOLUMES = '''from .session import Session


def names(s: Session):
    return [v["name"] for v in s.get("networkvolumes").json()]


def drop(s: Session, volume_id):
    s.call("DELETE", f"networkvolumes/{volume_id}")
'''

FILES = {"lab/__init__.py": "", "lab/settings.py": SETTINGS, "lab/session.py": SESSION, "lab/volumes.py": VOLUMES}


def _session_read_with_its_settings():
    """session.py as the run reads it the second time: with the constants of the files it imports."""
    _an, settings = analyze(SETTINGS, "lab/settings.py")
    _an, first = analyze(SESSION, "lab/session.py")
    externals = Table([settings.module_facts, first.module_facts]).externals("lab/session.py")
    return settings, externals, analyze(SESSION, "lab/session.py", externals=externals)[1]


def test_a_dataclass_field_defaulting_to_a_module_constant_is_that_constant_for_the_importers():
    settings, externals, _session = _session_read_with_its_settings()
    assert settings.module_facts.fields == (("Settings.api_url", "DEFAULT_URL"),)
    assert externals["Settings.api_url"] == External("https://rest.runpod.io/v1", "lab/settings.py", "DEFAULT_URL")


def test_a_session_subclass_hands_its_request_its_own_helper_and_the_verbs_it_inherits_to_other_modules():
    _settings, _externals, session = _session_read_with_its_settings()
    sigs = {sig.name: sig for sig in session.module_facts.helpers}
    assert sorted(sigs) == ["Session.call", "Session.delete", "Session.get", "Session.patch", "Session.post",
                            "Session.put", "Session.request"]
    assert {(sig.base, sig.group, sig.slash_join) for sig in sigs.values()} == {
        ("https://rest.runpod.io/v1/", "Session.request", True)}  # one base, through the overridden request()
    get = sigs["Session.get"]
    assert (get.params, get.path_param, get.method, get.kwargs_param, get.returns) == (
        ("url",), "url", "GET", "kwargs", "response")
    call = sigs["Session.call"]
    assert (call.method_param, call.path_param, call.body_param, call.returns) == ("method", "path", "body", "json")


def test_a_url_rebound_from_itself_reads_the_value_before():
    """`url = f"{self.base_url}/{url.lstrip('/')}"`: the `url` it reads is the parameter (it was read as the same
    assignment again, the base joined three times: `/https://rest.runpod.io/v1/https://...`)."""
    source = SESSION.replace('self.settings.api_url.rstrip("/")', '"https://rest.runpod.io/v1"')
    _an, facts = analyze(source, "lab/session.py")
    request = next(sig for sig in facts.module_facts.helpers if sig.name == "Session.request")
    assert (request.base, request.path_param) == ("https://rest.runpod.io/v1/", "url")
    assert facts.unmatched == []


def test_calls_on_a_session_subclass_are_v2_at_their_call_site_and_the_field_s_constant_moves():
    out = rewrite_files(FILES)
    assert out["lab/settings.py"].new_source == SETTINGS.replace("https://rest.runpod.io/v1", "https://api.runpod.io/v2")
    assert out["lab/session.py"].new_source == SESSION
    assert out["lab/volumes.py"].new_source == VOLUMES.replace(
        's.get("networkvolumes").json()]', 's.get("network-volumes").json()["networkVolumes"]]').replace(
        'f"networkvolumes/{volume_id}"', 'f"network-volumes/{volume_id}"')
    assert [(s.line, s.state, s.rule) for s in out["lab/volumes.py"].states] == [(5, 1, "Q02"), (9, 1, "L01")]
    again = rewrite_files({path: r.new_source for path, r in out.items()})
    assert all(r.new_source == out[path].new_source for path, r in again.items())


MADE_ELSEWHERE = '''from .session import SHARED, make_session


def by_factory():
    s = make_session()
    return s.call("DELETE", "networkvolumes/x")


def by_instance():
    SHARED.delete("networkvolumes/y")
'''


def test_an_instance_from_a_factory_or_a_module_level_instance_of_another_module_is_the_class_s():
    """However the instance is obtained: a function returning one, an instance made at module level."""
    files = dict(FILES, **{"lab/session.py": SESSION + "\n\ndef make_session() -> Session:\n    return Session()\n\n\n"
                                                       "SHARED = Session()\n", "lab/made.py": MADE_ELSEWHERE})
    out = rewrite_files(files)
    assert out["lab/made.py"].new_source == MADE_ELSEWHERE.replace('"networkvolumes/', '"network-volumes/')
    assert [(s.line, s.state) for s in out["lab/made.py"].states] == [(6, 1), (10, 1)]
    assert "https://api.runpod.io/v2" in out["lab/settings.py"].new_source


def test_a_call_on_an_object_the_rewrite_cannot_type_is_flagged_and_the_class_is_translated_at_run_time():
    """`def drop(s): s.call(...)` in a file that imports the class: `s` may be a Session. The class's base must not
    move plain under it (its v1 path would go to v2 as it is): the class's request is translated at run time, the
    typed calls are state 2 through it, and the line is flagged with its cause, not left silent."""
    untyped = 'from .session import Session\n\n\ndef drop(s, volume_id):\n    s.call("DELETE", f"networkvolumes/{volume_id}")\n'
    out = rewrite_files(dict(FILES, **{"lab/untyped.py": untyped}))
    assert 'DEFAULT_URL = "https://api.runpod.io/v2"' in out["lab/settings.py"].new_source
    assert "v1bridge_compat.call_v1(lambda method, url, **kw: super(Session, self).request(method, url, *args, **kw)" \
        ", method, url, **kwargs)" in out["lab/session.py"].new_source
    assert [(s.line, s.state, s.cause) for s in out["lab/untyped.py"].states] == [
        (5, 3, "DELETE /networkvolumes/{networkVolumeId} on `s`, which the rewrite cannot type (it may be a "
               "Session.call() of session.py): give it a type (`s: Session`) and run the rewrite again (use "
               "/v2/serverless, /v2/network-volumes, /v2/registries (and /v2 before every path))")]
    assert [(s.line, s.state) for s in out["lab/volumes.py"].states] == [(5, 2), (9, 2)]
    assert out["lab/volumes.py"].new_source == VOLUMES


def test_a_dict_read_with_a_list_key_is_not_a_call_on_an_untyped_client():
    reads = 'from .session import Session\n\n\ndef count(page):\n    return len(page.get("pods") or [])\n'
    out = rewrite_files(dict(FILES, **{"lab/reads.py": reads}))
    assert out["lab/reads.py"].states == [] and out["lab/reads.py"].new_source == reads
    assert "https://api.runpod.io/v2" in out["lab/settings.py"].new_source


ONE_MODULE = '''import requests

BASE = "https://rest.runpod.io/v1"


class RP(requests.Session):
    def request(self, method, url, *args, **kwargs):
        return super().request(method, BASE + url, *args, **kwargs)

    def pod(self, pod_id):
        return self.get(f"/pods/{pod_id}").json()


def main():
    s = RP()
    for v in s.get("/networkvolumes").json():
        print(v["name"])
    s.post("/pods/abc/stop")
'''


def test_the_verbs_a_session_subclass_inherits_are_its_helpers_in_its_own_module_too():
    """`self.get(...)` in its methods and `s.get(...)` on `s = RP()`: they were left silent, unchanged on v1."""
    out = rewrite_files({"one.py": ONE_MODULE})["one.py"]
    assert out.new_source == ONE_MODULE.replace("rest.runpod.io/v1", "api.runpod.io/v2").replace(
        's.get("/networkvolumes").json()', 's.get("/network-volumes").json()["networkVolumes"]').replace(
        's.post("/pods/abc/stop")', 's.post("/pods/abc/action", json={"action": "stop"})')
    assert [(s.line, s.state, s.rule) for s in out.states] == [(11, 1, "L01"), (16, 1, "Q02"), (18, 1, "L04")]


def test_a_session_subclass_whose_caller_cannot_be_typed_is_translated_at_run_time_and_runs_on_v2(tmp_path,
                                                                                                   monkeypatch):
    """With a caller the rewrite cannot type, the class's request goes through call_v1: `super().request(method,
    url, *args, **kwargs)` is handed over as `super(Session, self).request(method, url, *args, **kw)` (a bare
    `super()` in the lambda would fail when it runs). The untyped call then reaches v2 at run time."""
    import importlib
    import subprocess
    import sys

    import requests

    from tests.codemod.project_harness import rewrite

    untyped = 'from .session import Session\n\n\ndef drop(s, volume_id):\n    s.call("DELETE", f"networkvolumes/{volume_id}")\n'
    for path, text in dict(FILES, **{"lab/untyped.py": untyped}).items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    done = rewrite(tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert "super(Session, self).request(method, url, *args, **kw)" in (tmp_path / "lab/session.py").read_text()
    sent = []

    def request(self, method, url, *args, **kwargs):
        sent.append((method, url))
        response = requests.Response()
        response.status_code, response._content = 204, b""
        return response

    monkeypatch.setattr(requests.Session, "request", request)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("RP_URL", raising=False)
    for name in [m for m in sys.modules if m == "lab" or m.startswith("lab.") or m == "v1bridge_compat"]:
        monkeypatch.delitem(sys.modules, name)
    session, untyped_module = importlib.import_module("lab.session"), importlib.import_module("lab.untyped")
    untyped_module.drop(session.Session(), "abc")
    assert sent == [("DELETE", "https://api.runpod.io/v2/network-volumes/abc")]


HTTPX_SUBCLASS = '''import httpx

REST = "https://rest.runpod.io/v1"


class RunPod(httpx.Client):
    def __init__(self, key):
        super().__init__(base_url=REST, headers={"Authorization": f"Bearer {key}"})


def stop(pod_id):
    rp = RunPod("k")
    rp.post(f"/pods/{pod_id}/stop")
'''


def test_an_httpx_client_subclass_handing_its_base_to_the_library_is_that_client():
    """`super().__init__(base_url=REST, ...)` and no request() of its own: `RunPod(...)` is an httpx.Client on REST
    (its calls were left silent, only the base constant commented)."""
    out = rewrite_files({"rp.py": HTTPX_SUBCLASS})["rp.py"]
    assert out.new_source == HTTPX_SUBCLASS.replace("rest.runpod.io/v1", "api.runpod.io/v2").replace(
        'rp.post(f"/pods/{pod_id}/stop")', 'rp.post(f"/pods/{pod_id}/action", json={"action": "stop"})')
    assert [(s.line, s.state, s.rule) for s in out.states] == [(13, 1, "L04")]
