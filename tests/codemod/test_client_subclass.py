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
