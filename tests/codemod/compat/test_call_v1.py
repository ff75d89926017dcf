"""call_v1: a v1 call whose route, body or query the rewrite could not read, translated when it runs.

The proxy in front of the same sandbox is the reference for what v1 answered.
"""
from __future__ import annotations

import pytest
import requests

from tests.codemod.compat.tools import AVAILABLE_GPU, UNAVAILABLE_GPU, Client, pod_body

V1_POD = {"name": "v1-pod", "imageName": "runpod/base:0.6.2", "gpuTypeIds": [UNAVAILABLE_GPU, AVAILABLE_GPU],
          "gpuTypePriority": "custom", "ports": ["22/tcp"], "volumeInGb": 10}


def _created(client) -> str:
    """A pod made beforehand: the calls list starts after it."""
    pod_id = client.create_pod(pod_body(name="call-v1")).json()["id"]
    client.calls.clear()
    return pod_id


def test_a_v1_get_answers_the_v1_record_as_the_proxy_does(cm, client, v1):
    pod_id = _created(client)
    answer = cm.call_v1(client.send, "GET", f"/pods/{pod_id}")
    assert isinstance(answer, cm.V1Response) and answer.status_code == 200 and answer.ok
    assert answer.json() == v1.get(f"/pods/{pod_id}")
    assert answer.headers is answer._answer.headers  # anything else is the real answer's
    assert client.calls == [("GET", f"/pods/{pod_id}", None)]


def test_a_send_that_returns_json_gets_v1_json(cm, client, v1):
    pod_id = _created(client)
    assert cm.call_v1(client.helper, "GET", f"/pods/{pod_id}") == v1.get(f"/pods/{pod_id}")


def test_a_v1_create_with_a_gpu_list_walks_it_and_answers_v1(cm, client):
    answer = cm.call_v1(client.send, "POST", "/pods", json=V1_POD)
    assert answer.status_code == 201  # v1's status for a pod create
    pod = answer.json()
    assert pod["gpu"]["id"] == AVAILABLE_GPU and pod["desiredStatus"] == "RUNNING" and pod["volumeInGb"] == 10
    creates = [(path, body["gpu"]["id"]) for method, path, body in client.calls if method == "POST"]
    assert creates == [("/pods", UNAVAILABLE_GPU), ("/pods", AVAILABLE_GPU)]
    assert "imageName" not in client.calls[-1][2] and client.calls[-1][2]["image"] == "runpod/base:0.6.2"


@pytest.mark.parametrize("verb,status", [("stop", "EXITED"), ("start", "RUNNING"), ("reset", "RUNNING")])
def test_a_verb_known_only_at_run_time(cm, client, verb, status):
    pod_id = _created(client)
    if verb == "start":
        client.send("POST", f"/pods/{pod_id}/action", json={"action": "stop"})
        client.calls.clear()
    answer = cm.call_v1(client.send, "POST", f"/pods/{pod_id}/{verb}")
    assert answer.status_code == 200, answer.json()
    assert answer.json()["desiredStatus"] == status
    if verb == "reset":
        actions = [body["action"] for method, path, body in client.calls if method == "POST"]
        assert actions == ["stop", "start"]


def test_an_illegal_transition_is_v1s_400_with_a_message(cm, client, v1):
    pod_id = _created(client)
    answer = cm.call_v1(client.send, "POST", f"/pods/{pod_id}/start")  # already running: v2 409
    assert answer.status_code == 400 and not answer.ok
    assert set(answer.json()) == {"message"}
    with pytest.raises(requests.HTTPError):
        answer.raise_for_status()
    proxied = v1.session.post(f"{v1.base}/pods/{pod_id}/start", timeout=20)
    assert proxied.status_code == answer.status_code


def test_a_missing_record_is_v1s_404_message(cm, client):
    answer = cm.call_v1(client.send, "GET", "/pods/nosuchpod")
    assert answer.status_code == 404 and "message" in answer.json()


def test_a_query_built_at_run_time_lists_every_page_filtered(cm, client, v1):
    for n in range(5):
        _created(client)
    stopped = _created(client)
    client.send("POST", f"/pods/{stopped}/action", json={"action": "stop"})
    query = {"desiredStatus": "EXITED"}
    answer = cm.call_v1(client.send, "GET", "/pods", params=query)
    assert answer.json() == v1.get("/pods", params=query)
    assert stopped in [p["id"] for p in answer.json()]
    assert all(p["desiredStatus"] == "EXITED" for p in answer.json())
    everything = cm.call_v1(client.send, "GET", "/pods?computeType=GPU")
    assert everything.json() == v1.get("/pods", params={"computeType": "GPU"})


def test_a_full_url_on_the_moved_base(cm, client, v1, sandbox):
    pod_id = _created(client)
    session = client.session
    seen = []

    def send(method, url, **kw):
        seen.append(url)
        return session.request(method, url, timeout=10, **kw)

    answer = cm.call_v1(send, "POST", f"{sandbox.url}/v2/pods/{pod_id}/stop")
    assert answer.json()["desiredStatus"] == "EXITED"
    assert seen == [f"{sandbox.url}/v2/pods/{pod_id}/action"]
    assert cm.call_v1(send, "GET", f"{sandbox.url}/v2/pods/{pod_id}").json() == v1.get(f"/pods/{pod_id}")


def test_a_full_url_on_the_v1_host_goes_to_the_v2_host(cm):
    seen = []
    cm.call_v1(lambda method, url, **kw: seen.append((method, url, kw)) or {"id": "p1", "status": "EXITED"},
               "post", "https://rest.runpod.io/v1/pods/p1/stop")
    assert seen == [("POST", "https://api.runpod.io/v2/pods/p1/action", {"json": {"action": "stop"}})]


def test_a_relative_path_without_its_slash_keeps_that_spelling(cm):
    seen = []
    cm.call_v1(lambda method, path, **kw: seen.append(path) or {}, "POST", "pods/p1/update", json={"name": "x"})
    assert seen == ["pods/p1"]


def test_a_path_that_is_not_a_v1_route_is_sent_unchanged(cm, client):
    answer = cm.call_v1(client.send, "GET", "/catalog/gpus")
    assert isinstance(answer, requests.Response) and answer.status_code == 200 and "gpus" in answer.json()
    seen = []
    cm.call_v1(lambda method, url, **kw: seen.append(url), "GET", "https://api.runpod.ai/v2/abc/status/1")
    assert seen == ["https://api.runpod.ai/v2/abc/status/1"]  # the job API is never translated


def test_a_v1_route_with_no_v2_form_is_refused(cm, client):
    with pytest.raises(cm.CompatError, match="no v2 equivalent"):
        cm.call_v1(client.send, "GET", "/docs")
    assert client.calls == []


def test_the_update_alias_is_a_patch_with_the_v2_body(cm, client):
    pod_id = _created(client)
    answer = cm.call_v1(client.send, "POST", f"/pods/{pod_id}/update", json={"imageName": "runpod/base:0.7.0"})
    assert answer.json()["image"] == "runpod/base:0.7.0"
    assert client.calls[-1] == ("PATCH", f"/pods/{pod_id}", {"image": "runpod/base:0.7.0"})


def test_an_endpoint_create_reads_the_catalog_for_its_pools(cm, client, v1):
    template = client.send("POST", "/templates", json={"name": "tpl-call", "image": "runpod/worker:1",
                                                       "serverless": True}).json()
    client.calls.clear()
    answer = cm.call_v1(client.send, "POST", "/endpoints", json={"templateId": template["id"],
                                                                   "gpuTypeIds": [AVAILABLE_GPU]})
    assert answer.status_code == 200, answer.json()
    endpoint = answer.json()
    assert endpoint["gpuTypeIds"] == [AVAILABLE_GPU]
    assert endpoint == v1.get(f"/endpoints/{endpoint['id']}")
    assert client.calls[0][:2] == ("GET", "/catalog/gpus")


def test_by_method_makes_a_send_of_per_verb_helpers(cm, sandbox):
    client = Client(sandbox.url)
    send = cm.by_method(get=lambda path: client.helper("GET", path),
                        post=lambda path, body: client.helper("POST", path, body))
    pod_id = _created(client)
    assert cm.call_v1(send, "POST", f"/pods/{pod_id}/stop")["desiredStatus"] == "EXITED"
    with pytest.raises(cm.CompatError, match="DELETE"):
        cm.call_v1(send, "DELETE", f"/pods/{pod_id}")



def test_locked_on_create_is_a_patch_after_the_create(cm, client, v1):
    """v2 takes `locked` only on an existing pod (R12): the create, then a PATCH of the new pod, as the proxy does."""
    answer = cm.call_v1(client.send, "POST", "/pods", json={"imageName": "runpod/base:0.6.2",
                                                            "gpuTypeIds": [AVAILABLE_GPU], "locked": True})
    assert answer.status_code == 201 and answer.json()["locked"] is True
    pod_id = answer.json()["id"]
    assert [c[:2] for c in client.calls] == [("POST", "/pods"), ("PATCH", f"/pods/{pod_id}")]
    assert client.calls[1][2] == {"locked": True}
    assert v1.get(f"/pods/{pod_id}")["locked"] is True


def test_locked_without_a_send_to_patch_with_is_refused_before_anything_is_created(cm, client):
    with pytest.raises(cm.CompatError, match="pass send"):
        cm.with_v1_body(client.create_pod, "pods.create", {"imageName": "img", "gpuTypeIds": ["A"], "locked": True})
    assert client.calls == []


@pytest.mark.parametrize("query", [{}, {"includeRunpodTemplates": "true"}, {"includePlatformTemplates": "true"},
                                   {"includePublicTemplates": "true", "includeEndpointBoundTemplates": "true"}])
def test_template_lists_with_catalog_templates_equal_the_proxys(cm, client, v1, query):
    """include*Templates add catalog templates to the account's own (Q27), as v1 listed them."""
    client.send("POST", "/templates", json={"name": "own-tpl", "image": "img:1"})
    answer = cm.call_v1(client.send, "GET", "/templates", params=query)
    assert answer.status_code == 200, answer.json()
    assert answer.json() == v1.get("/templates", params=query)
    if query:
        assert len(answer.json()) > len(cm.call_v1(client.send, "GET", "/templates").json())


def test_other_keywords_reach_send_on_every_call_it_makes(cm, client):
    """A helper's `**kwargs` handed on whole (`call_v1(send, method, url, **kwargs)`): json= and params= are the
    call's, anything else (headers, timeout) goes to `send` with each request, here on every page of a list."""
    _created(client)
    seen = []

    def send(method, path, **kw):
        seen.append(kw.get("headers"))
        return client.send(method, path, **kw)

    pods = cm.call_v1(send, "GET", "/pods", params={"desiredStatus": "RUNNING"}, headers={"X-Trace": "t1"})
    assert pods.status_code == 200 and all(p["desiredStatus"] == "RUNNING" for p in pods.json())
    assert len(seen) >= 1 and seen == [{"X-Trace": "t1"}] * len(seen)


def test_a_create_with_no_capacity_answers_v1s_words_as_the_proxy_does(cm, client, v1):
    """A v1 client tries its next GPU type when the message says so in v1's words ("no longer any instances
    available"); v2's detail ("no instances currently available") does not contain them, so a loop reading v2's
    words alone would stop at the first type."""
    from mappings.loader import default_mappings

    policy = default_mappings().policies["gpu-fallback"]
    words = next(rule.v1_message for rule in policy.walk_on if rule.v1_message)
    body = {**V1_POD, "gpuTypeIds": [UNAVAILABLE_GPU]}
    answer = cm.call_v1(client.send, "POST", "/pods", json=body)
    proxied = v1.session.post(f"{v1.base}/pods", json=body, timeout=20)
    assert answer.status_code == proxied.status_code == 400
    v2 = client.send("POST", "/pods", json={**pod_body(), "gpu": {"id": UNAVAILABLE_GPU, "count": 1}})
    assert v2.status_code == 400 and "no longer any instances available" not in v2.json()["detail"].lower()
    # v1's words, then v2's (a loop written against either keeps working)
    assert answer.json() == proxied.json() == {"message": f"{words} ({v2.json()['detail']})"}
    assert "no longer any instances available" in words.lower()


def test_v1_error_gives_a_plain_v2_call_s_error_v1s_shape_and_words_and_leaves_its_success_as_it_came(cm, client, v1):
    """`v1_error(<plain v2 create>, "pods.create")`: a refusal for capacity answers what the proxy answers the v1
    create (v1's status, `{"message": <v1 words> (<v2 detail>)}`), so a loop matching v1's words walks on; an answer
    that succeeded is the v2 answer itself (its reads are v2 code)."""
    refused = client.send("POST", "/pods", json={**pod_body(), "gpu": {"id": UNAVAILABLE_GPU, "count": 1}})
    proxied = v1.session.post(f"{v1.base}/pods", json={**V1_POD, "gpuTypeIds": [UNAVAILABLE_GPU]}, timeout=20)
    answer = cm.v1_error(refused, "pods.create")
    assert (answer.status_code, answer.ok, answer.json()) == (proxied.status_code, False, proxied.json())
    assert "no longer any instances available" in answer.json()["message"].lower()
    made = client.send("POST", "/pods", json=pod_body(name="v1-error"))
    assert cm.v1_error(made, "pods.create") is made and made.json()["image"]
    client.send("DELETE", f"/pods/{made.json()['id']}")
    with pytest.raises(cm.CompatError):
        cm.v1_error(made, "pods.resurrect")
