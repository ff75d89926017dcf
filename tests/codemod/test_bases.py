"""Bases, helpers and flags (issue 11, r11b): URL builder functions, the helper of a family left on v1, v1 on the
v2 host, verbs v1 never had; cross-file constants (a sibling module's base, imported method constants).

Before/after pairs, the case that must not change first. Each is checked for the exact output, that it parses
and that a second run changes nothing.
"""
from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from codemod.engine import rewrite_source

L01 = "# v1bridge: L01 use /v2/serverless, /v2/network-volumes, /v2/registries (and /v2 before every path)"
L04 = "# v1bridge: L04 use PATCH on the resource and POST /v2/pods/{id}/action {action}"


def _case(before: str, after: str | None = None) -> tuple[str, str]:
    before = textwrap.dedent(before).lstrip("\n")
    return before, before if after is None else textwrap.dedent(after).lstrip("\n").replace("{L01}", L01).replace(
        "{L04}", L04)


def _check(before: str, after: str, path: str = "case.py") -> None:
    result = rewrite_source(before, path)
    assert result.error is None
    assert result.new_source == after
    cst.parse_module(result.new_source)
    assert rewrite_source(result.new_source, path).new_source == result.new_source


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
    # --- a family left on v1: the call its helper makes, and the helper's error read, say so too
    "a helper family left on v1: the helper's call under the rule that keeps most callers, its error read Q29": _case('''
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
        API = "https://rest.runpod.io/v1"
        def _get(path):
            # v1bridge: R07 read dataCenterId
            r = requests.get(API + path, timeout=10)
            if r.status_code >= 400:
                # v1bridge: Q29 read detail (and errors[]) from the problem body
                raise RuntimeError(r.json()["message"])
            return r.json()
        def machine(pod_id):
            # v1bridge: R07 read dataCenterId
            return _get(f"/pods/{pod_id}?includeMachine=true")["machine"]
        def pod(pod_id):
            {L01}
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
            {L01}
            return requests.get(OLD + "/pods").json()
    '''),
    "a verb v1 never had, next to the verbs it had: L04": _case('''
        import requests
        BASE = "https://rest.runpod.io/v1"
        def resume(pod_id):
            return requests.post(f"{BASE}/pods/{pod_id}/resume")
    ''', '''
        import requests
        {L01}
        BASE = "https://rest.runpod.io/v1"
        def resume(pod_id):
            {L04}
            return requests.post(f"{BASE}/pods/{pod_id}/resume")
    '''),
}


@pytest.mark.parametrize("name", list(CASES))
def test_base_case(name: str) -> None:
    _check(*CASES[name])
