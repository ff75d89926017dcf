"""all_pages (Q30): every page of a v2 list, and a v1 query applied where the rewrite could not read it."""
from __future__ import annotations

import pytest

from tests.codemod.compat.tools import PAGE, Client, pod_body, start_sandbox


@pytest.fixture(scope="module")
def listing():
    """A sandbox holding more pods than three pages (PAGE items each), two of them stopped."""
    server = start_sandbox()
    client = Client(server.url)
    ids = [client.create_pod(pod_body(name=f"list-{n}")).json()["id"] for n in range(3 * PAGE + 1)]
    for pod_id in ids[:2]:
        client.send("POST", f"/pods/{pod_id}/action", json={"action": "stop"})
    yield server, ids
    server.close()


def test_every_page_is_read(cm, listing):
    server, ids = listing
    client = Client(server.url)
    pods = cm.all_pages(client.send, "/pods")
    assert sorted(p["id"] for p in pods) == sorted(ids)
    gets = [path for method, path, _ in client.calls if method == "GET"]
    assert len(gets) == 4 and all("cursor=" in path for path in gets[1:])


def test_a_parsing_helper_and_the_callers_own_query_are_kept(cm, listing):
    server, ids = listing
    client = Client(server.url)
    pods = cm.all_pages(client.helper, "/pods?name=list-3", {"limit": 1})
    assert [p["name"] for p in pods if p["name"] == "list-3"] == ["list-3"]
    assert all("limit=1" in path for _, path, _ in client.calls)


def test_a_v1_query_is_applied_to_every_page(cm, listing):
    """desiredStatus is a v1 filter v2 ignores: applied to the records of every page, as v1 did."""
    server, ids = listing
    client = Client(server.url)
    stopped = cm.all_pages(client.send, "/pods", {"desiredStatus": "EXITED"}, op="pods.list")
    assert sorted(p["id"] for p in stopped) == sorted(ids[:2])
    running = cm.all_pages(client.send, "/pods", {"desiredStatus": "RUNNING"}, op="pods.list")
    assert len(running) == len(ids) - 2


def test_a_full_v2_url_is_read_on_its_base_and_every_page_sent_as_a_full_url(cm, listing):
    """A helper given whole URLs (`_get(url, params=None)`): every page goes to it as a full URL on the same base."""
    import requests

    server, ids = listing
    sent = []

    def get_url(url):
        sent.append(url)
        response = requests.get(url, headers={"Authorization": "Bearer compat-key"}, timeout=10)
        response.raise_for_status()
        return response.json()

    stopped = cm.all_pages(cm.by_method(get=get_url), f"{server.url}/v2/pods", {"desiredStatus": "EXITED"},
                           op="pods.list")
    assert sorted(p["id"] for p in stopped) == sorted(ids[:2])
    assert len(sent) == 4 and all(url.startswith(f"{server.url}/v2/pods?limit=") for url in sent)
    with pytest.raises(cm.CompatError, match="not a URL on the v2 prefix /v2"):
        cm.all_pages(cm.by_method(get=get_url), f"{server.url}/v1/pods")


def test_a_v1_filter_v2_cannot_rebuild_is_refused_never_an_unfiltered_list(cm, listing):
    server, _ = listing
    with pytest.raises(cm.CompatError, match="templateId"):
        cm.all_pages(Client(server.url).send, "/pods", {"templateId": "t1"}, op="pods.list")


def test_a_page_error_raises_the_clients_own_error(cm, listing):
    import requests

    server, _ = listing
    client = Client(server.url)
    client.session.headers["Authorization"] = "Bearer wrong"
    with pytest.raises(requests.HTTPError):
        cm.all_pages(client.send, "/pods")


def test_a_cursor_that_does_not_move_is_an_incomplete_list_not_a_loop(cm):
    page = {"pods": [{"id": "a"}], "pagination": {"hasNextPage": True, "nextCursor": "same"}}
    with pytest.raises(cm.CompatError, match="incomplete"):
        cm.all_pages(lambda method, path: page, "/pods")
