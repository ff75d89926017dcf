"""create_with_fallback (R02): a v1 list of GPU types (or CPU flavors) tried in order on a v2 create."""
from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request

import pytest
import requests

from tests.codemod.compat.tools import AUTH, AVAILABLE_GPU, UNAVAILABLE_GPU, pod_body


def test_the_pod_is_created_on_the_next_type_when_the_first_is_out_of_capacity(cm, client):
    answer = cm.create_with_fallback(client.create_pod, pod_body(), [UNAVAILABLE_GPU, AVAILABLE_GPU])
    assert isinstance(answer, requests.Response)  # the client's own answer object, as its call returned it
    assert answer.status_code == 201
    assert answer.json()["gpu"]["id"] == AVAILABLE_GPU
    creates = [body["gpu"]["id"] for method, path, body in client.calls if (method, path) == ("POST", "/pods")]
    assert creates == [UNAVAILABLE_GPU, AVAILABLE_GPU]


def test_the_first_type_with_capacity_is_used_and_no_other_is_tried(cm, client):
    answer = cm.create_with_fallback(client.create_pod, pod_body(), [AVAILABLE_GPU, UNAVAILABLE_GPU])
    assert answer.json()["gpu"]["id"] == AVAILABLE_GPU
    assert len([c for c in client.calls if c[:2] == ("POST", "/pods")]) == 1


def test_the_callers_body_is_not_changed(cm, client):
    body = pod_body()
    cm.create_with_fallback(client.create_pod, body, [UNAVAILABLE_GPU, AVAILABLE_GPU])
    assert body == pod_body()


def test_a_helper_that_raises_on_errors_still_walks(cm, client):
    """requests' raise_for_status: the capacity 400 arrives as requests.HTTPError, its .response is read."""
    pod = cm.create_with_fallback(lambda body: client.helper("POST", "/pods", body), pod_body(),
                                  [UNAVAILABLE_GPU, AVAILABLE_GPU])
    assert isinstance(pod, dict) and pod["gpu"]["id"] == AVAILABLE_GPU


class ApiError(RuntimeError):
    """A client's own error, as helpers raise one in place of their HTTP library's."""


def _wrapping_helper(client, chained: bool):
    def create(body):
        try:
            return client.helper("POST", "/pods", body)
        except requests.HTTPError as exc:
            message = f"POST /pods: {exc.response.status_code} {exc.response.json().get('detail')}"
            if chained:
                raise ApiError(message) from exc
            raise ApiError(message)  # raised while handling it: the HTTP error is its context
    return create


@pytest.mark.parametrize("chained", [True, False], ids=["raise-from", "raised-while-handling"])
def test_a_helper_that_turns_http_errors_into_its_own_still_walks(cm, client, chained):
    """The capacity 400 reaches the walk as the client's ApiError: its answer is read from the HTTP error it came
    from, so the next type is tried (before, the ApiError ended the walk on the first type)."""
    pod = cm.create_with_fallback(_wrapping_helper(client, chained), pod_body(), [UNAVAILABLE_GPU, AVAILABLE_GPU])
    assert pod["gpu"]["id"] == AVAILABLE_GPU
    assert [b["gpu"]["id"] for m, p, b in client.calls if (m, p) == ("POST", "/pods")] == [UNAVAILABLE_GPU,
                                                                                           AVAILABLE_GPU]


def test_a_helpers_own_error_is_the_one_raised_when_every_type_is_out_of_capacity(cm, client):
    with pytest.raises(ApiError, match="POST /pods: 400 "):
        cm.create_with_fallback(_wrapping_helper(client, True), pod_body(), [UNAVAILABLE_GPU, "NVIDIA B200"])
    assert [b["gpu"]["id"] for m, p, b in client.calls if (m, p) == ("POST", "/pods")] == [UNAVAILABLE_GPU,
                                                                                           "NVIDIA B200"]


def test_an_error_with_no_http_error_behind_it_is_raised_as_it_came(cm, client):
    def create(body):
        raise ApiError("the cron box has no network")

    with pytest.raises(ApiError, match="no network"):
        cm.create_with_fallback(create, pod_body(), [UNAVAILABLE_GPU, AVAILABLE_GPU])


def test_urllib_http_errors_are_read_and_walked(cm, sandbox):
    def create(body):
        request = urllib.request.Request(sandbox.url + "/v2/pods", data=json.dumps(body).encode(), method="POST",
                                         headers={**AUTH, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    pod = cm.create_with_fallback(create, pod_body(), [UNAVAILABLE_GPU, AVAILABLE_GPU])
    assert pod["gpu"]["id"] == AVAILABLE_GPU


def test_every_type_out_of_capacity_gives_back_the_last_answer_or_error(cm, client):
    answer = cm.create_with_fallback(client.create_pod, pod_body(), [UNAVAILABLE_GPU, "NVIDIA B200"])
    assert answer.status_code == 400
    assert "no instances currently available" in answer.json()["detail"]
    with pytest.raises(requests.HTTPError) as raised:
        cm.create_with_fallback(lambda body: client.helper("POST", "/pods", body), pod_body(),
                                [UNAVAILABLE_GPU, "NVIDIA B200"])
    assert raised.value.response.status_code == 400
    tried = [b["gpu"]["id"] for m, p, b in client.calls if (m, p) == ("POST", "/pods")]
    assert tried == [UNAVAILABLE_GPU, "NVIDIA B200"] * 2


def test_an_answer_that_is_not_no_capacity_ends_the_walk(cm, client):
    """A refusal of the request itself (here: no image, 422) is the client's to see; no other type is tried."""
    body = pod_body()
    del body["image"]
    answer = cm.create_with_fallback(client.create_pod, body, [UNAVAILABLE_GPU, AVAILABLE_GPU])
    assert answer.status_code == 422
    assert len([c for c in client.calls if c[:2] == ("POST", "/pods")]) == 1


def test_cpu_flavors_walk_at_cpu_id(cm, client):
    body = {"name": "cpu", "image": "runpod/base:0.6.2", "cpu": {"id": "cpu3c", "vcpuCount": 2}}
    answer = cm.create_with_fallback(client.create_pod, body, ["cpu3c", "cpu5c"], at="cpu.id")
    assert answer.status_code == 201
    assert answer.json()["cpu"]["id"] == "cpu3c"


class FakeAnswer:
    def __init__(self, status, body, headers=None):
        self.status_code = status
        self._body = body
        self.headers = headers or {"Content-Type": "application/problem+json"}

    def json(self):
        return self._body


def test_a_429_with_retry_after_is_waited_out_and_the_same_type_sent_again(cm, monkeypatch):
    slept = []
    monkeypatch.setattr(cm.time, "sleep", slept.append)
    answers = [FakeAnswer(429, {"detail": "slow down"}, {"Retry-After": "3"}), FakeAnswer(201, {"id": "p1"})]
    sent = []

    def create(body):
        sent.append(body["gpu"]["id"])
        return answers.pop(0)

    answer = cm.create_with_fallback(create, {"gpu": {"id": "A"}}, ["A", "B"])
    assert answer.status_code == 201
    assert sent == ["A", "A"] and slept == [3.0]


def test_a_403_problem_means_no_access_to_the_pool_and_walks_on_but_a_plain_403_does_not(cm):
    def walk(first):
        answers = [first, FakeAnswer(201, {"id": "p1"})]
        sent = []

        def create(body):
            sent.append(body["gpu"]["id"])
            return answers.pop(0)

        cm.create_with_fallback(create, {"gpu": {}}, ["A", "B"])
        return sent

    assert walk(FakeAnswer(403, {"detail": "no access"})) == ["A", "B"]
    assert walk(FakeAnswer(403, {"detail": "error 1010"}, {"Content-Type": "text/html"})) == ["A"]


def test_v1s_default_priority_ranks_the_choices_by_availability(cm, client):
    """rank_with: the catalog's availability orders the walk (v1's gpuTypePriority "availability")."""
    catalog = client.send("GET", "/catalog/gpus?include=AVAILABILITY&product=POD").json()["gpus"]
    level = {g["id"]: g.get("availability") for g in catalog}
    rank = ["HIGH", "MEDIUM", "LOW", "NONE"]
    candidates = [g["id"] for g in catalog if level[g["id"]] in rank][:4]
    given = sorted(candidates, key=lambda t: -rank.index(level[t]))  # worst first
    client.calls.clear()
    answer = cm.create_with_fallback(client.create_pod, pod_body(), given, rank_with=client.send)
    best = sorted(given, key=lambda t: rank.index(level[t]))[0]
    assert client.calls[0][0] == "GET" and client.calls[0][1].startswith("/catalog/gpus?")
    assert client.calls[1][2]["gpu"]["id"] == best
    assert answer.json()["gpu"]["id"] == best


def test_locked_is_patched_onto_the_created_pod_after_the_walk(cm, client):
    """R12: v2 takes `locked` only after a create; the create's own answer comes back, then the PATCH is sent."""
    answer = cm.create_with_fallback(client.create_pod, pod_body(), [UNAVAILABLE_GPU, AVAILABLE_GPU],
                                     after={"locked": True}, send=client.send)
    assert answer.status_code == 201 and answer.json()["gpu"]["id"] == AVAILABLE_GPU
    pod_id = answer.json()["id"]
    assert [(m, p, b) for m, p, b in client.calls if m == "PATCH"] == [("PATCH", f"/pods/{pod_id}", {"locked": True})]
    assert client.send("GET", f"/pods/{pod_id}").json()["locked"] is True


def test_locked_without_a_send_is_refused_before_anything_is_sent(cm, client):
    with pytest.raises(cm.CompatError, match="locked is set by a PATCH after the create"):
        cm.create_with_fallback(client.create_pod, pod_body(), [AVAILABLE_GPU], after={"locked": True})
    assert client.calls == []


def test_a_create_the_rewrite_made_gets_its_pod_when_the_first_type_is_out_of_capacity(cm, sandbox, monkeypatch):
    """Issue 21's proof, run: a v1 create with a GPU list and locked, rewritten to plain v2 around
    create_with_fallback, creates the pod on the second type and locks it, through the client's own session."""
    from codemod.engine import rewrite_source
    from tests.codemod.tools import load

    before = (
        "import requests\n"
        'API = "https://rest.runpod.io/v1"\n'
        "s = requests.Session()\n"
        "def create(name, gpus):\n"
        '    r = s.post(API + "/pods", json={"name": name, "imageName": "runpod/base:0.6.2", "gpuTypeIds": gpus,\n'
        '                                    "gpuTypePriority": "custom", "locked": True}, timeout=10)\n'
        "    r.raise_for_status()\n"
        "    return r.json()\n"
    )
    after = rewrite_source(before, "farm.py").new_source
    assert "create_with_fallback(" in after and "gpuTypeIds" not in after
    monkeypatch.setitem(sys.modules, "v1bridge_compat", cm)
    farm = load(after.replace("https://api.runpod.io/v2", sandbox.url + "/v2"), "farm_after")
    farm.s.headers.update(AUTH)
    pod = farm.create("walked", [UNAVAILABLE_GPU, AVAILABLE_GPU])
    assert pod["gpu"]["id"] == AVAILABLE_GPU
    assert farm.s.get(f"{sandbox.url}/v2/pods/{pod['id']}", timeout=10).json()["locked"] is True
