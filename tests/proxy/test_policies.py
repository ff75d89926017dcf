"""Every emulation policy, on by default and strict: what the upstream got, what the client got."""
from __future__ import annotations

import pytest

from proxy.app import create_proxy_app
from tests.proxy.tools import create_pod, emulations, sent, v1_pod, v2

UNAVAILABLE = ["NVIDIA H200", "NVIDIA B200"]  # seeded out of stock in the sandbox


@pytest.fixture
def strict_proxy(aiohttp_client, proxy_config):
    """A proxy with the named policies strict."""

    async def make(*policies: str, emulate: tuple[str, ...] = ()):
        proxy_config.strict = frozenset(policies)
        proxy_config.emulate = frozenset(emulate)
        return await aiohttp_client(create_proxy_app(proxy_config))

    return make


def is_action(body: dict | None, name: str) -> bool:
    return isinstance(body, dict) and body.get("action") == name


# ------------------------------------------------------------------------ reset


async def test_reset_is_stop_then_start(proxy, auth, recorder):
    pod = await create_pod(proxy, auth)
    recorder.clear()
    r = await proxy.post(f"/v1/pods/{pod['id']}/reset", headers=auth)
    assert r.status == 200, await r.text()
    assert sent(recorder) == [
        ("POST", f"/v2/pods/{pod['id']}/action", {"action": "stop"}),
        ("POST", f"/v2/pods/{pod['id']}/action", {"action": "start"}),
    ]
    got = await r.json()
    assert got == v1_pod(await v2(proxy, auth, "GET", f"/v2/pods/{pod['id']}"))
    assert got["desiredStatus"] == "RUNNING"
    assert emulations(r) == {"reset"}
    assert r.headers["Link"] == f'</v2/pods/{pod["id"]}/action>; rel="successor-version"'


async def test_reset_failing_at_stop_names_the_step_and_state(proxy, auth, recorder):
    pod = await create_pod(proxy, auth, locked=True)
    recorder.clear()
    r = await proxy.post(f"/v1/pods/{pod['id']}/reset", headers=auth)
    assert r.status == 400
    message = (await r.json())["message"]
    assert message.startswith("POST /pods/{podId}/reset failed at step 1/2 (POST /pods/{podId}/stop) after nothing succeeded: ")
    assert "locked" in message
    assert message.endswith("the resource was left with desiredStatus RUNNING (v2 status RUNNING)")
    assert sent(recorder) == [
        ("POST", f"/v2/pods/{pod['id']}/action", {"action": "stop"}),
        ("GET", f"/v2/pods/{pod['id']}", None),
    ]


async def test_reset_failing_at_start_is_never_success(proxy, auth, recorder):
    pod = await create_pod(proxy, auth)
    recorder.fail(lambda s: is_action(s.body, "start"), 500, "host failure")
    recorder.clear()
    r = await proxy.post(f"/v1/pods/{pod['id']}/reset", headers=auth)
    assert r.status == 502
    assert await r.json() == {
        "message": "POST /pods/{podId}/reset failed at step 2/2 (POST /pods/{podId}/start) after "
        "POST /pods/{podId}/stop succeeded: the v2 upstream failed (500): host failure; the resource was left with desiredStatus EXITED "
        "(v2 status EXITED)"
    }
    assert [c[2] for c in sent(recorder)] == [{"action": "stop"}, {"action": "start"}, None]


async def test_reset_strict_is_501_without_upstream_call(strict_proxy, auth, recorder):
    proxy = await strict_proxy("reset")
    r = await proxy.post("/v1/pods/abc/reset", headers=auth)
    assert r.status == 501
    assert await r.json() == {"message": "pod reset has no v2 equivalent (R01); stop the pod, then start it"}
    assert list(recorder) == []


# -------------------------------------------------------------- fallback walks


async def test_gpu_fallback_custom_priority_walks_in_the_given_order(proxy, auth, recorder):
    r = await proxy.post("/v1/pods", json={"name": "w", "imageName": "img", "gpuTypeIds": [*UNAVAILABLE, "NVIDIA A40"],
                                           "gpuTypePriority": "custom"}, headers=auth)
    assert r.status == 201, await r.text()
    floors = {"count": 1, "minRamPerGpu": 8, "minVcpuCountPerGpu": 2}
    assert [(m, p, b["gpu"]) for m, p, b in sent(recorder)] == [
        ("POST", "/v2/pods", {"id": "NVIDIA H200", **floors}),
        ("POST", "/v2/pods", {"id": "NVIDIA B200", **floors}),
        ("POST", "/v2/pods", {"id": "NVIDIA A40", **floors}),
    ]
    assert (await r.json())["gpu"] == {"id": "NVIDIA A40", "count": 1}
    assert "gpu-fallback" in emulations(r)


async def test_gpu_fallback_default_priority_tries_the_most_available_first(proxy, auth, recorder):
    """v1's default gpuTypePriority is availability: one catalog read, then the available type first."""
    r = await proxy.post("/v1/pods", json={"name": "w", "imageName": "img", "gpuTypeIds": [*UNAVAILABLE, "NVIDIA A40"]},
                         headers=auth)
    assert r.status == 201, await r.text()
    assert [(s.method, s.path, s.query) for s in recorder] == [
        ("GET", "/v2/catalog/gpus", [("include", "AVAILABILITY"), ("product", "POD"), ("count", "1")]),
        ("POST", "/v2/pods", []),
    ]
    assert recorder[1].body["gpu"] == {"id": "NVIDIA A40", "count": 1, "minRamPerGpu": 8, "minVcpuCountPerGpu": 2}
    assert (await r.json())["gpu"] == {"id": "NVIDIA A40", "count": 1}
    assert "gpu-fallback" in emulations(r)


async def test_gpu_availability_ranking_uses_the_pods_cloud_and_count(proxy, auth, recorder):
    """A40 has no community capacity for 2 GPUs in the sandbox; L4 is HIGH, the RTX 3090 MEDIUM."""
    r = await proxy.post("/v1/pods", json={"imageName": "img", "cloudType": "COMMUNITY", "gpuCount": 2,
                                           "gpuTypeIds": ["NVIDIA A40", "NVIDIA GeForce RTX 3090", "NVIDIA L4"],
                                           "gpuTypePriority": "availability"}, headers=auth)
    assert r.status == 201, await r.text()
    assert recorder[0].query == [("include", "AVAILABILITY"), ("product", "POD"), ("cloud", "COMMUNITY"), ("count", "2")]
    assert [b["gpu"] for _, _, b in sent(recorder)] == [
        {"id": "NVIDIA L4", "count": 2, "minRamPerGpu": 8, "minVcpuCountPerGpu": 2}]


async def test_gpu_availability_unreadable_keeps_the_given_order(proxy, auth, recorder):
    recorder.fail(lambda s: s.path == "/v2/catalog/gpus", 503, "catalog down")
    r = await proxy.post("/v1/pods", json={"name": "w", "imageName": "img", "gpuTypeIds": [*UNAVAILABLE, "NVIDIA A40"]},
                         headers=auth)
    assert r.status == 201, await r.text()
    assert [b["gpu"]["id"] for _, _, b in sent(recorder)] == [*UNAVAILABLE, "NVIDIA A40"]


async def test_gpu_fallback_stops_on_422(proxy, auth, recorder):
    """A 422 is a bad body (here: an image v2 cannot pull), not scarce capacity: the walk stops at once."""
    recorder.fail(lambda seen: seen.method == "POST" and seen.path == "/v2/pods", 422, "image 'img' not found")
    r = await proxy.post("/v1/pods", json={"imageName": "img", "gpuTypeIds": ["NVIDIA A40", "NVIDIA L4"]}, headers=auth)
    assert r.status == 422
    assert [body["gpu"]["id"] for method, path, body in sent(recorder) if method == "POST"] == ["NVIDIA A40"]
    assert list(await r.json()) == ["message"]


async def test_gpu_fallback_exhausted_is_the_capacity_400(proxy, auth, recorder):
    r = await proxy.post("/v1/pods", json={"imageName": "img", "gpuTypeIds": UNAVAILABLE}, headers=auth)
    assert r.status == 400
    message = (await r.json())["message"]
    assert message.startswith("no choice could be placed (tried NVIDIA H200, NVIDIA B200): ")
    assert "no instances" in message.lower()
    assert len(sent(recorder)) == 2


async def test_gpu_fallback_strict(strict_proxy, auth, recorder):
    proxy = await strict_proxy("gpu-fallback")
    r = await proxy.post("/v1/pods", json={"imageName": "img", "gpuTypeIds": ["NVIDIA A40", "NVIDIA L4"]}, headers=auth)
    assert r.status == 501
    assert await r.json() == {"message": "v2 pods take one GPU type (R02); send a single entry in gpuTypeIds"}
    assert list(recorder) == []
    r = await proxy.post("/v1/pods", json={"imageName": "img", "gpuTypeIds": ["NVIDIA A40"]}, headers=auth)
    assert r.status == 201


async def test_cpu_fallback(proxy, auth, recorder):
    recorder.fail(lambda s: s.method == "POST" and (s.body or {}).get("cpu", {}).get("id") == "cpu3c", 400,
                  "There are no instances currently available")
    r = await proxy.post("/v1/pods", json={"name": "c", "imageName": "img", "computeType": "CPU",
                                           "cpuFlavorIds": ["cpu3c", "cpu5c"], "cpuFlavorPriority": "custom",
                                           "vcpuCount": 4}, headers=auth)
    assert r.status == 201, await r.text()
    assert sent(recorder) == [
        ("POST", "/v2/pods", {"name": "c", "image": "img", "cpu": {"id": "cpu3c", "vcpuCount": 4}, "disk": 50,
                              "ports": ["8888/http", "22/tcp"]}),
        ("POST", "/v2/pods", {"name": "c", "image": "img", "cpu": {"id": "cpu5c", "vcpuCount": 4}, "disk": 50,
                              "ports": ["8888/http", "22/tcp"]}),
    ]
    got = await r.json()
    assert (got["cpuFlavorId"], got["vcpuCount"]) == ("cpu5c", 4)
    assert emulations(r) == {"cpu-fallback", "v1-defaults"}


async def test_cpu_fallback_strict(strict_proxy, auth, recorder):
    proxy = await strict_proxy("cpu-fallback")
    r = await proxy.post("/v1/pods", json={"name": "c", "imageName": "img", "computeType": "CPU",
                                           "cpuFlavorIds": ["cpu3c", "cpu5c"]}, headers=auth)
    assert r.status == 501
    assert await r.json() == {"message": "v2 pods take one CPU flavor (R02); send a single entry in cpuFlavorIds"}


# --------------------------------------------------------------- v1 defaults


async def test_v1_defaults_applied_when_omitted(proxy, auth, recorder):
    r = await proxy.post("/v1/pods", json={"imageName": "img", "gpuTypeIds": ["NVIDIA A40"]}, headers=auth)
    assert r.status == 201
    assert sent(recorder) == [("POST", "/v2/pods", {
        "image": "img", "gpu": {"id": "NVIDIA A40", "count": 1, "minRamPerGpu": 8, "minVcpuCountPerGpu": 2},
        "name": "my pod", "disk": 50, "ports": ["8888/http", "22/tcp"],
        "mounts": {"persistent": {"size": 20, "path": "/workspace"}},
    })]
    assert emulations(r) == {"v1-defaults"}


async def test_v1_defaults_strict(strict_proxy, auth, recorder):
    proxy = await strict_proxy("v1-defaults")
    r = await proxy.post("/v1/pods", json={"imageName": "img", "gpuTypeIds": ["NVIDIA A40"]}, headers=auth)
    assert r.status == 501
    assert "v1 default" in (await r.json())["message"]
    assert list(recorder) == []
    full = {"name": "n", "imageName": "img", "gpuTypeIds": ["NVIDIA A40"], "containerDiskInGb": 10, "volumeInGb": 10,
            "volumeMountPath": "/w", "ports": ["22/tcp"], "gpuCount": 1, "minRAMPerGPU": 16, "minVCPUPerGPU": 4}
    r = await proxy.post("/v1/pods", json=full, headers=auth)
    assert r.status == 201, await r.text()


# --------------------------------------------------------- filters and includes


async def test_list_filters_applied_by_the_proxy(proxy, auth, recorder):
    a = await create_pod(proxy, auth, name="a")
    b = await create_pod(proxy, auth, name="b", gpuTypeIds=["NVIDIA L4"])
    await proxy.post(f"/v1/pods/{a['id']}/stop", headers=auth)
    recorder.clear()

    async def ids(query: str) -> list[str]:
        r = await proxy.get(f"/v1/pods?{query}", headers=auth)
        assert r.status == 200, await r.text()
        assert emulations(r) == {"list-filters"}
        return sorted(p["id"] for p in await r.json())

    assert await ids("desiredStatus=EXITED") == [a["id"]]
    assert await ids("desiredStatus=RUNNING") == [b["id"]]
    assert await ids("gpuTypeId=NVIDIA%20L4") == [b["id"]]
    assert await ids("gpuTypeId=NVIDIA%20L4&gpuTypeId=NVIDIA%20A40") == sorted([a["id"], b["id"]])
    assert await ids("computeType=CPU") == []
    assert await ids("name=a") == [a["id"]]
    # v2 got the bare list request every time: the filters never reach it
    assert {(s.path, tuple(s.query)) for s in recorder} == {("/v2/pods", (("limit", "1000"),))}  # the largest page


async def test_unsupported_filter_is_refused_not_ignored(proxy, auth, recorder):
    r = await proxy.get("/v1/pods?templateId=abc", headers=auth)
    assert r.status == 501
    assert (await r.json())["message"].startswith("the v1 filter 'templateId' cannot be applied on v2 (Q15: ")
    assert list(recorder) == []


async def test_list_filters_strict(strict_proxy, auth, recorder):
    proxy = await strict_proxy("list-filters")
    r = await proxy.get("/v1/pods?desiredStatus=RUNNING", headers=auth)
    assert r.status == 501
    assert await r.json() == {"message": "v2 ignores this list filter (Q03); filter client-side"}
    r = await proxy.get("/v1/pods", headers=auth)
    assert r.status == 200


async def test_include_machine_and_network_volume(proxy, auth, recorder):
    r = await proxy.post("/v1/networkvolumes", json={"name": "v", "size": 20, "dataCenterId": "EU-SE-1"}, headers=auth)
    vol = await r.json()
    pod = await create_pod(proxy, auth, networkVolumeId=vol["id"])
    recorder.clear()
    r = await proxy.get(f"/v1/pods/{pod['id']}?includeMachine=true&includeNetworkVolume=true", headers=auth)
    assert r.status == 200, await r.text()
    got = await r.json()
    p = await v2(proxy, auth, "GET", f"/v2/pods/{pod['id']}")
    assert got["machine"] == {"dataCenterId": p["dataCenterId"], "gpuTypeId": "NVIDIA A40", "secureCloud": True}
    assert got["networkVolume"] == {"id": vol["id"], "name": "v", "size": 20, "dataCenterId": "EU-SE-1"}
    assert sent(recorder)[:2] == [("GET", f"/v2/pods/{pod['id']}", None), ("GET", f"/v2/network-volumes/{vol['id']}", None)]
    assert emulations(r) == {"list-filters"}
    r = await proxy.get(f"/v1/pods/{pod['id']}", headers=auth)
    assert "machine" not in await r.json() and "networkVolume" not in await r.json()


async def test_neutral_include_platform_templates(proxy, auth, recorder):
    r = await proxy.get("/v1/templates?includePlatformTemplates=true", headers=auth)
    assert r.status == 200
    assert [(s.path, s.query) for s in recorder] == [
        ("/v2/templates", [("limit", "1000")]), ("/v2/catalog/templates", [("source", "official")])
    ]
    official = (await v2(proxy, auth, "GET", "/v2/catalog/templates?source=official"))["templates"]
    got = await r.json()
    assert [t["id"] for t in got] == [t["id"] for t in official]
    assert all(t["isRunpod"] is True and t["isPlatform"] is True for t in got)
    assert emulations(r) == {"template-catalog"}
    recorder.clear()
    r = await proxy.get("/v1/templates?includeRunpodTemplates=true", headers=auth)
    assert await r.json() == got


async def test_include_public_templates_reads_community_and_verified(proxy, auth, recorder):
    r = await proxy.get("/v1/templates?includePublicTemplates=true", headers=auth)
    assert r.status == 200, await r.text()
    assert sorted((s.path, tuple(s.query)) for s in recorder) == [
        ("/v2/catalog/templates", (("source", "community"),)),
        ("/v2/catalog/templates", (("source", "verified"),)),
        ("/v2/templates", (("limit", "1000"),)),
    ]
    community = (await v2(proxy, auth, "GET", "/v2/catalog/templates?source=community"))["templates"]
    verified = (await v2(proxy, auth, "GET", "/v2/catalog/templates?source=verified"))["templates"]
    assert community and verified
    got = await r.json()
    assert [t["id"] for t in got] == [t["id"] for t in community + verified]
    assert not any(t["isRunpod"] for t in got)
    assert emulations(r) == {"template-catalog"}


async def test_include_endpoint_bound_templates_is_named_not_emulated(proxy, auth, recorder):
    """v2 cannot say which templates are bound to an endpoint: nothing is added, and no emulation is claimed."""
    r = await proxy.get("/v1/templates?includeEndpointBoundTemplates=true", headers=auth)
    assert r.status == 200
    assert [(s.path, s.query) for s in recorder] == [("/v2/templates", [("limit", "1000")])]
    assert emulations(r) == set()
    assert "Q27" in r.headers["X-V1bridge-Rules"].split(", ")


async def test_endpoint_include_workers(proxy, auth, recorder):
    r = await proxy.post("/v1/templates", json={"name": "s", "imageName": "i", "isServerless": True}, headers=auth)
    t = await r.json()
    r = await proxy.post("/v1/endpoints", json={"templateId": t["id"], "gpuTypeIds": ["NVIDIA A40"], "workersMin": 1},
                         headers=auth)
    ep = await r.json()
    recorder.clear()
    r = await proxy.get(f"/v1/endpoints/{ep['id']}?includeWorkers=true", headers=auth)
    assert r.status == 200
    workers = (await v2(proxy, auth, "GET", f"/v2/serverless/{ep['id']}/workers"))["workers"]
    got = await r.json()
    assert got["workers"] == [
        {"id": w["id"], "desiredStatus": "RUNNING", "image": w["image"], "gpu": {"id": w["gpuTypeId"], "count": w["gpuCount"]},
         "machine": {"dataCenterId": w["dataCenterId"]}, "lastStartedAt": w["startedAt"]}
        for w in workers
    ]
    assert ("GET", f"/v2/serverless/{ep['id']}/workers", None) in sent(recorder)


# ------------------------------------------------- argv, flashboot, alias, more


async def test_start_cmd_and_entrypoint_round_trip_through_cmd_and_entrypoint(proxy, auth, recorder):
    """R06 resolved, Q09: v1 argv lists become v2 cmd/entrypoint element for element (no args string, no
    emulation), and come back to v1 unchanged from what the service stored."""
    body = {"name": "t", "imageName": "i", "dockerEntrypoint": ["/bin/sh", "-c"],
            "dockerStartCmd": ["exec python serve.py --title 'a b' \"$PORT\""]}
    r = await proxy.post("/v1/templates", json=body, headers=auth)
    assert r.status == 200, await r.text()
    sent_body = recorder[-1].body
    assert (sent_body["entrypoint"], sent_body["cmd"]) == (body["dockerEntrypoint"], body["dockerStartCmd"])
    assert "args" not in sent_body and emulations(r) == {"v1-defaults", "template-ssh-jupyter-off", "create-status"}
    got = await r.json()
    assert (got["dockerEntrypoint"], got["dockerStartCmd"]) == (body["dockerEntrypoint"], body["dockerStartCmd"])
    stored = await v2(proxy, auth, "GET", f"/v2/templates/{got['id']}")
    assert (stored["entrypoint"], stored["cmd"]) == (body["dockerEntrypoint"], body["dockerStartCmd"])
    r = await proxy.patch(f"/v1/templates/{got['id']}", json={"dockerEntrypoint": []}, headers=auth)
    assert recorder[-1].body == {"entrypoint": []}
    assert ((await r.json())["dockerEntrypoint"], (await r.json())["dockerStartCmd"]) == ([], body["dockerStartCmd"])


async def test_flashboot_strict(strict_proxy, auth, recorder):
    proxy = await strict_proxy("flashboot-enum")
    r = await proxy.patch("/v1/endpoints/abc", json={"flashboot": True}, headers=auth)
    assert r.status == 501
    assert await r.json() == {"message": "flashboot is an enum in v2 (Q04)"}


async def test_update_alias_strict(strict_proxy, auth, recorder):
    proxy = await strict_proxy("update-alias")
    pod_id = "abc"
    r = await proxy.post(f"/v1/pods/{pod_id}/update", json={"name": "x"}, headers=auth)
    assert r.status == 501
    assert await r.json() == {"message": "the /update alias is gone in v2 (L04); use PATCH"}
    assert list(recorder) == []


async def test_pod_entrypoint_reaches_v2_and_reads_back(proxy, auth, recorder):
    """An ENTRYPOINT override on a pod create is sent as entrypoint (it was a 501 under the August v2)."""
    r = await proxy.post("/v1/pods", json={"name": "e", "imageName": "i", "gpuTypeIds": ["NVIDIA A40"],
                                           "dockerEntrypoint": ["/usr/bin/tini", "--"], "dockerStartCmd": ["sleep", "1 h"]},
                         headers=auth)
    assert r.status == 201, await r.text()
    assert (recorder[-1].body["entrypoint"], recorder[-1].body["cmd"]) == (["/usr/bin/tini", "--"], ["sleep", "1 h"])
    got = await r.json()
    assert (got["dockerEntrypoint"], got["dockerStartCmd"]) == (["/usr/bin/tini", "--"], ["sleep", "1 h"])


async def test_locked_after_create(proxy, auth, recorder):
    r = await proxy.post("/v1/pods", json={"name": "l", "imageName": "i", "gpuTypeIds": ["NVIDIA A40"], "locked": True},
                         headers=auth)
    assert r.status == 201
    got = await r.json()
    assert got["locked"] is True
    assert [(m, p) for m, p, _ in sent(recorder)] == [("POST", "/v2/pods"), ("PATCH", f"/v2/pods/{got['id']}")]
    assert sent(recorder)[1][2] == {"locked": True}
    assert "locked-after-create" in emulations(r)


async def test_locked_follow_up_failure_is_not_success(proxy, auth, recorder):
    recorder.fail(lambda s: s.method == "PATCH", 503, "maintenance")
    r = await proxy.post("/v1/pods", json={"name": "l", "imageName": "i", "gpuTypeIds": ["NVIDIA A40"], "locked": True},
                         headers=auth)
    assert r.status == 502
    message = (await r.json())["message"]
    created = recorder[0]
    assert message.startswith("created ") and message.endswith(
        "but applying locked afterwards failed: the v2 upstream failed (503): maintenance")


async def test_create_status_strict_answers_v2s_201_not_a_refusal(strict_proxy, auth, recorder):
    """Strict means "do not emulate": the create goes through and the client sees v2's 201."""
    proxy = await strict_proxy("create-status")
    r = await proxy.post("/v1/containerregistryauth", json={"name": "r", "username": "u", "password": "p"}, headers=auth)
    assert r.status == 201, await r.text()
    got = await r.json()
    assert sent(recorder) == [("POST", "/v2/registries", {"name": "r", "username": "u", "password": "p"})]
    assert got == {"id": got["id"], "name": "r"}
    assert "create-status" not in emulations(r)


async def test_create_status_emulated_answers_v1s_200(proxy, auth, recorder):
    r = await proxy.post("/v1/containerregistryauth", json={"name": "r", "username": "u", "password": "p"}, headers=auth)
    assert r.status == 200
    assert emulations(r) == {"create-status"}


async def test_action_status_strict_answers_v2s_409(strict_proxy, auth, recorder):
    proxy = await strict_proxy("action-status")
    pod = await create_pod(proxy, auth)
    recorder.clear()
    r = await proxy.post(f"/v1/pods/{pod['id']}/start", headers=auth)
    assert r.status == 409
    body = await r.json()
    assert list(body) == ["message"] and "start" in body["message"]
    assert sent(recorder) == [("POST", f"/v2/pods/{pod['id']}/action", {"action": "start"})]
    assert "action-status" not in emulations(r)


async def test_strict_all(strict_proxy, auth, recorder):
    proxy = await strict_proxy("all")
    r = await proxy.post("/v1/pods/abc/reset", headers=auth)
    assert r.status == 501
    r = await proxy.get("/v1/pods/abc", headers=auth)
    assert r.status == 404  # plain translation is never refused
