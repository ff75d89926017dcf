"""reset_pod (R01): v1's reset on v2 as stop, wait until EXITED, start."""
from __future__ import annotations

import time

import pytest
import requests

from tests.codemod.compat.tools import Client, pod_body, start_sandbox


@pytest.fixture(scope="module")
def slow_sandbox():
    """Pods take a moment in PROVISIONING and STARTING, as on the service."""
    server = start_sandbox(transition_seconds=0.15)
    yield server
    server.close()


def _running_pod(client) -> str:
    pod_id = client.create_pod(pod_body(name="reset-me")).json()["id"]
    for _ in range(100):
        if client.send("GET", f"/pods/{pod_id}").json()["status"] == "RUNNING":
            return pod_id
        time.sleep(0.05)
    raise AssertionError("the pod never ran")


class Recorder(Client):
    """Records the v2 status each GET saw, in call order."""

    def __init__(self, url):
        super().__init__(url)
        self.seen = []

    def send(self, method, path, **kw):
        answer = super().send(method, path, **kw)
        if method == "GET":
            self.seen.append(("GET", answer.json().get("status")))
        else:
            self.seen.append((method, (kw.get("json") or {}).get("action")))
        return answer


def test_reset_leaves_the_pod_running_after_passing_through_exited(cm, slow_sandbox):
    client = Recorder(slow_sandbox.url)
    pod_id = _running_pod(client)
    client.seen.clear()
    answer = cm.reset_pod(client.send, pod_id, interval=0.05)
    assert isinstance(answer, requests.Response) and answer.status_code == 200
    assert client.seen[0] == ("POST", "stop")
    assert client.seen[-1] == ("POST", "start")
    polls = client.seen[1:-1]
    assert polls and polls[-1] == ("GET", "EXITED")  # start was sent only once the pod was seen EXITED
    for _ in range(100):
        status = client.send("GET", f"/pods/{pod_id}").json()["status"]
        if status == "RUNNING":
            break
        time.sleep(0.05)
    assert status == "RUNNING"


def test_reset_through_a_parsing_helper_returns_the_parsed_start_answer(cm, slow_sandbox):
    client = Client(slow_sandbox.url)
    pod_id = _running_pod(client)
    pod = cm.reset_pod(client.helper, pod_id, interval=0.05)
    assert isinstance(pod, dict) and pod["id"] == pod_id


def test_a_pod_that_never_reaches_exited_is_not_started_again(cm, monkeypatch):
    monkeypatch.setattr(cm.time, "sleep", lambda s: None)
    calls = []

    class Stuck:
        status_code = 200
        headers = {}

        def json(self):
            return {"id": "p1", "status": "RUNNING"}

    def send(method, path, json=None):
        calls.append((method, path, json))
        return Stuck()

    with pytest.raises(cm.CompatError, match="did not become EXITED") as raised:
        cm.reset_pod(send, "p1", timeout=0.0, interval=0.0)
    assert "the next step was not sent" in raised.value.message
    assert calls[0] == ("POST", "/pods/p1/action", {"action": "stop"})
    assert ("POST", "/pods/p1/action", {"action": "start"}) not in calls


def test_a_refused_stop_ends_the_reset_with_that_answer(cm, client):
    pod_id = client.create_pod(pod_body()).json()["id"]
    client.send("DELETE", f"/pods/{pod_id}")
    answer = cm.reset_pod(client.send, pod_id, interval=0.01)
    assert answer.status_code == 404
    assert [c[:2] for c in client.calls[-1:]] == [("POST", f"/pods/{pod_id}/action")]
