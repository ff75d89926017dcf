"""Gaps the first rewrite left: error reads in `except`, loops waiting for a status, handed-in objects.

Before/after pairs, the case that must not change first. Each is checked for
the exact output, that it parses and that a second run changes nothing.
"""
from __future__ import annotations

import pytest

from codemod.engine import analyze_python, rewrite_source
from tests.codemod.tools import case, check_rewrite


Q13 = "# v1bridge: Q13 read status and handle PROVISIONING, STARTING and ERROR; a loop waiting for RUNNING must stop on ERROR"

CASES = {
    # --- error reads in an except block around the call
    "except around a call to another API: untouched": case('''
        import requests
        try:
            requests.get("https://example.com/api/pods").raise_for_status()
        except requests.HTTPError as e:
            print(e.response.json()["message"])
    '''),
    "except around a v1 call: message -> detail": case('''
        import requests
        try:
            requests.get("https://rest.runpod.io/v1/pods/p1").raise_for_status()
        except requests.HTTPError as e:
            print(e.response.json()["message"], e.response.json().get("error"))
    ''', '''
        import requests
        try:
            requests.get("https://api.runpod.io/v2/pods/p1").raise_for_status()
        except requests.HTTPError as e:
            print(e.response.json()["detail"], e.response.json().get("detail"))
    '''),
    "the except of an outer try, the handler name shadowing nothing else": case('''
        import httpx
        def stop(pod_id):
            try:
                with httpx.Client() as c:
                    c.post(f"https://rest.runpod.io/v1/pods/{pod_id}/stop").raise_for_status()
            except httpx.HTTPStatusError as err:
                raise SystemExit(err.response.json()["message"])
            except ValueError as e:
                return e.response.json()["message"]
    ''', '''
        import httpx
        def stop(pod_id):
            try:
                with httpx.Client() as c:
                    c.post(f"https://api.runpod.io/v2/pods/{pod_id}/action", json={"action": "stop"}).raise_for_status()
            except httpx.HTTPStatusError as err:
                raise SystemExit(err.response.json()["detail"])
            except ValueError as e:
                return e.response.json()["detail"]
    '''),
    # --- a loop waiting for a status that v2 may answer with ERROR
    "status read outside a loop: renamed, no comment": case('''
        import requests
        pod = requests.get("https://rest.runpod.io/v1/pods/p1").json()
        if pod["desiredStatus"] == "RUNNING":
            print("up")
    ''', '''
        import requests
        pod = requests.get("https://api.runpod.io/v2/pods/p1").json()
        if pod["status"] == "RUNNING":
            print("up")
    '''),
    "while waiting for RUNNING: renamed and the loop gets Q13": case('''
        import time, requests
        URL = "https://rest.runpod.io/v1/pods/p1"
        pod = requests.get(URL).json()
        while pod["desiredStatus"] != "RUNNING":
            time.sleep(2)
            pod = requests.get(URL).json()
    ''', '''
        import time, requests
        URL = "https://api.runpod.io/v2/pods/p1"
        pod = requests.get(URL).json()
        # v1bridge: Q13 (migrated) read status and handle PROVISIONING, STARTING and ERROR; a loop waiting for RUNNING must stop on ERROR
        while pod["status"] != "RUNNING":
            time.sleep(2)
            pod = requests.get(URL).json()
    '''),
    "while True with if ...: break: the loop gets Q13 once": case('''
        import requests
        def wait(pod_id):
            while True:
                pod = requests.get(f"https://rest.runpod.io/v1/pods/{pod_id}").json()
                if pod["desiredStatus"] == "RUNNING":
                    break
                if pod.get("desiredStatus") == "RUNNING":
                    return pod
    ''', '''
        import requests
        def wait(pod_id):
            # v1bridge: Q13 (migrated) read status and handle PROVISIONING, STARTING and ERROR; a loop waiting for RUNNING must stop on ERROR
            while True:
                pod = requests.get(f"https://api.runpod.io/v2/pods/{pod_id}").json()
                if pod["status"] == "RUNNING":
                    break
                if pod.get("status") == "RUNNING":
                    return pod
    '''),
    "if inside a loop that does not leave it: no comment (the list read page by page)": case('''
        import requests
        for pod in requests.get("https://rest.runpod.io/v1/pods").json():
            if pod["desiredStatus"] == "RUNNING":
                print(pod["id"])
    ''', '''
        import requests
        pods, paging = [], {}
        while True:
            page = requests.get("https://api.runpod.io/v2/pods", params=paging).json()
            pods += page["pods"]
            if not page["pagination"]["hasNextPage"]:
                break
            paging = {"cursor": page["pagination"]["nextCursor"]}
        for pod in pods:
            if pod["status"] == "RUNNING":
                print(pod["id"])
    '''),
    # --- a v1 field read on an object handed in: reported, not rewritten
    # an unused v1 base constant is left too: it may serve code the rewrite cannot see
    "object handed in: the rewrite leaves it alone": case('''
        import requests
        API = "https://rest.runpod.io/v1"
        def show(pod):
            print(pod["desiredStatus"], pod.get("costPerHr"))
    '''),
}


@pytest.mark.parametrize("name", list(CASES))
def test_gap(name: str) -> None:
    check_rewrite(*CASES[name])


def test_handed_in_reads_are_findings_of_the_detector() -> None:
    """The detector (not a second text scan) reports v1 names on objects it cannot type; not fixable, no route."""
    before, _ = CASES["object handed in: the rewrite leaves it alone"]
    found = [(f.rule, f.line, f.column, f.kind, f.fixable, f.attributed, f.route)
             for f in analyze_python(before, "c.py").findings]
    assert found == [
        ("L01", 2, 7, "base-url", False, True, None),  # no call goes through it: left as it is
        ("Q13", 4, 15, "response-field", False, False, None),
        ("Q14", 4, 41, "response-field", False, False, None),
    ]
    assert rewrite_source(before, "c.py").manual == []


def test_handed_in_dict_keys_and_writes_are_body_fields() -> None:
    # (imageName is no longer a handed-in marker: the current v2 has a field of that name, Build.imageName)
    src = 'def payload(disk):\n    body = {"containerDiskInGb": disk}\n    body["volumeInGb"] = 5\n    return body\n'
    found = [(f.rule, f.line, f.kind) for f in analyze_python(src, "c.py").findings]
    assert found == [("L02", 2, "body-field"), ("Q08", 2, "body-field"), ("Q06", 3, "body-field"),
                     ("Q17", 3, "body-field")]


def test_typed_reads_are_not_reported_twice() -> None:
    """A read the detector tied to a v1 call is one finding (fixable), not also a handed-in one."""
    src = 'import requests\npod = requests.get("https://rest.runpod.io/v1/pods/p").json()\nprint(pod["costPerHr"])\n'
    found = [(f.rule, f.line, f.fixable, f.attributed) for f in analyze_python(src, "c.py").findings if f.line == 3]
    assert found == [("Q14", 3, True, True)]


def test_loop_comment_is_a_manual_item() -> None:
    before, _ = CASES["while waiting for RUNNING: renamed and the loop gets Q13"]
    result = rewrite_source(before, "w.py")
    assert [(m.line, m.rule) for m in result.manual] == [(4, "Q13")]
    assert dict(result.rules) == {"L01": 1, "Q13": 1}
