"""Every v1 route through the proxy: exact v2 request received upstream, exact v1 answer returned."""
from __future__ import annotations

import pytest
from tests.proxy.tools import EMULATION, create_pod, emulations, sent, v1_pod, v2

SUNSET_HEADERS = {"Deprecation": "@1794700800", "Sunset": "Sun, 15 Nov 2026 00:00:00 GMT"}


# ------------------------------------------------------------------------ pods


async def test_pod_create_translates_every_field_and_answers_v1(proxy, auth, recorder):
    body = {
        "name": "trainer",
        "imageName": "pytorch:2.4",
        "computeType": "GPU",
        "gpuTypeIds": ["NVIDIA A40"],
        "gpuCount": 2,
        "allowedCudaVersions": ["12.4"],
        "cloudType": "SECURE",
        "containerDiskInGb": 80,
        "volumeInGb": 40,
        "volumeMountPath": "/data",
        "dockerStartCmd": ["bash", "-lc", "python train.py --name 'a b'"],
        "env": {"A": "1"},
        "ports": ["8888/http", "22/tcp"],
        "dataCenterIds": ["EU-SE-1"],
        "globalNetworking": False,
    }
    r = await proxy.post("/v1/pods", json=body, headers=auth)
    text = await r.text()
    assert r.status == 201, text
    assert sent(recorder) == [
        (
            "POST",
            "/v2/pods",
            {
                "name": "trainer",
                "image": "pytorch:2.4",
                "gpu": {"id": "NVIDIA A40", "count": 2, "allowedCudaVersions": ["12.4"], "minRamPerGpu": 8,
                        "minVcpuCountPerGpu": 2},
                "cloud": "SECURE",
                "disk": 80,
                "mounts": {"persistent": {"size": 40, "path": "/data"}},
                "cmd": ["bash", "-lc", "python train.py --name 'a b'"],
                "env": {"A": "1"},
                "ports": ["8888/http", "22/tcp"],
                "dataCenterIds": ["EU-SE-1"],
                "globalNetworking": False,
            },
        )
    ]
    got = await r.json()
    pod = await v2(proxy, auth, "GET", f"/v2/pods/{got['id']}")
    assert pod["cmd"] == ["bash", "-lc", "python train.py --name 'a b'"]
    assert got == v1_pod(pod)
    assert got["dockerStartCmd"] == ["bash", "-lc", "python train.py --name 'a b'"]
    assert (got["vcpuCount"], got["memoryInGb"]) == (pod["gpu"]["vcpuCount"], pod["gpu"]["memory"])
    assert emulations(r) == {"v1-defaults"}
    for name, value in SUNSET_HEADERS.items():
        assert r.headers[name] == value
    assert r.headers["Link"] == '</v2/pods>; rel="successor-version"'
    assert r.headers["Content-Length"] == str(len(await r.read()))
    assert "Transfer-Encoding" not in r.headers


async def test_pod_list_is_a_bare_array(proxy, auth, recorder):
    a = await create_pod(proxy, auth, name="a")
    b = await create_pod(proxy, auth, name="b")
    recorder.clear()
    r = await proxy.get("/v1/pods", headers=auth)
    assert r.status == 200
    assert sent(recorder) == [("GET", "/v2/pods", None)]
    listing = (await v2(proxy, auth, "GET", "/v2/pods"))["pods"]
    got = await r.json()
    assert got == [v1_pod(p) for p in listing]
    assert {p["id"] for p in got} == {a["id"], b["id"]}
    assert EMULATION not in r.headers


async def test_pod_get(proxy, auth, recorder):
    pod = await create_pod(proxy, auth)
    recorder.clear()
    r = await proxy.get(f"/v1/pods/{pod['id']}", headers=auth)
    assert r.status == 200
    assert sent(recorder) == [("GET", f"/v2/pods/{pod['id']}", None)]
    assert await r.json() == v1_pod(await v2(proxy, auth, "GET", f"/v2/pods/{pod['id']}"))
    assert r.headers["Link"] == f'</v2/pods/{pod["id"]}>; rel="successor-version"'


@pytest.mark.parametrize("method,suffix,emulation", [("PATCH", "", None), ("POST", "/update", "update-alias")])
async def test_pod_update_and_alias(proxy, auth, recorder, method, suffix, emulation):
    pod = await create_pod(proxy, auth)
    recorder.clear()
    r = await proxy.request(
        method,
        f"/v1/pods/{pod['id']}{suffix}",
        json={"name": "renamed", "imageName": "nginx:2", "containerDiskInGb": 60, "dockerStartCmd": ["sleep", "1 h"]},
        headers=auth,
    )
    assert r.status == 200, await r.text()
    assert sent(recorder) == [
        ("PATCH", f"/v2/pods/{pod['id']}", {"name": "renamed", "image": "nginx:2", "disk": 60, "cmd": ["sleep", "1 h"]})
    ]
    got = await r.json()
    assert got["name"] == "renamed" and got["image"] == "nginx:2" and got["dockerStartCmd"] == ["sleep", "1 h"]
    assert got == {**v1_pod(await v2(proxy, auth, "GET", f"/v2/pods/{pod['id']}")), "dockerStartCmd": ["sleep", "1 h"]}
    assert emulations(r) == ({"update-alias"} if emulation else set())


async def test_pod_update_volume_half_is_completed_from_current(proxy, auth, recorder):
    pod = await create_pod(proxy, auth, volumeInGb=30, volumeMountPath="/data")
    recorder.clear()
    r = await proxy.patch(f"/v1/pods/{pod['id']}", json={"volumeInGb": 50}, headers=auth)
    assert r.status == 200, await r.text()
    assert sent(recorder) == [
        ("GET", f"/v2/pods/{pod['id']}", None),
        ("PATCH", f"/v2/pods/{pod['id']}", {"mounts": {"persistent": {"size": 50, "path": "/data"}}}),
    ]
    assert (await r.json())["volumeInGb"] == 50


async def test_pod_delete(proxy, auth, recorder):
    pod = await create_pod(proxy, auth)
    recorder.clear()
    r = await proxy.delete(f"/v1/pods/{pod['id']}", headers=auth)
    assert r.status == 204
    assert await r.read() == b""
    assert sent(recorder) == [("DELETE", f"/v2/pods/{pod['id']}", None)]


@pytest.mark.parametrize("verb,expected_status", [("stop", "EXITED"), ("restart", "RUNNING")])
async def test_pod_actions(proxy, auth, recorder, verb, expected_status):
    pod = await create_pod(proxy, auth)
    recorder.clear()
    r = await proxy.post(f"/v1/pods/{pod['id']}/{verb}", headers=auth)
    assert r.status == 200, await r.text()
    assert sent(recorder) == [("POST", f"/v2/pods/{pod['id']}/action", {"action": verb})]
    got = await r.json()
    assert got == v1_pod(await v2(proxy, auth, "GET", f"/v2/pods/{pod['id']}"))
    assert got["desiredStatus"] == expected_status


async def test_pod_start_after_stop(proxy, auth, recorder):
    pod = await create_pod(proxy, auth)
    await proxy.post(f"/v1/pods/{pod['id']}/stop", headers=auth)
    recorder.clear()
    r = await proxy.post(f"/v1/pods/{pod['id']}/start", headers=auth)
    assert r.status == 200
    assert sent(recorder) == [("POST", f"/v2/pods/{pod['id']}/action", {"action": "start"})]
    assert (await r.json())["desiredStatus"] == "RUNNING"


async def test_illegal_transition_is_v1_400(proxy, auth, recorder):
    pod = await create_pod(proxy, auth)
    r = await proxy.post(f"/v1/pods/{pod['id']}/start", headers=auth)
    assert r.status == 400
    body = await r.json()
    assert list(body) == ["message"]
    assert "start" in body["message"]
    assert emulations(r) == {"action-status"}


# ------------------------------------------------------------------- templates


async def create_template(proxy, auth, **extra) -> dict:
    body = {"name": "tpl", "imageName": "img:1", **extra}
    r = await proxy.post("/v1/templates", json=body, headers=auth)
    assert r.status == 200, await r.text()
    return await r.json()


def v1_template(t: dict, official: bool = False) -> dict:
    out = {
        "id": t["id"],
        "name": t["name"],
        "imageName": t["image"],
        "category": t["category"],
        "containerDiskInGb": t["disk"],
        "volumeInGb": (t["mounts"].get("persistent") or {}).get("size", 0),
        "dockerEntrypoint": t["entrypoint"],
        "dockerStartCmd": t["cmd"],
        "env": t["env"],
        "ports": t["ports"],
        "isPublic": t["public"],
        "isServerless": t["serverless"],
        "isRunpod": official,
        "isPlatform": official,
    }
    if t["mounts"].get("persistent"):
        out["volumeMountPath"] = t["mounts"]["persistent"]["path"]
    if t.get("registry"):
        out["containerRegistryAuthId"] = t["registry"]
    return out


async def test_template_create_applies_v1_defaults_and_answers_200(proxy, auth, recorder):
    r = await proxy.post(
        "/v1/templates",
        json={"name": "tpl", "imageName": "img:1", "readme": "# hi", "isPublic": False, "env": {"K": "v"}},
        headers=auth,
    )
    assert r.status == 200, await r.text()
    assert sent(recorder) == [
        (
            "POST",
            "/v2/templates",
            {
                "name": "tpl",
                "image": "img:1",
                "public": False,
                "env": {"K": "v"},
                "disk": 50,
                "ports": ["8888/http", "22/tcp"],
                "mounts": {"persistent": {"size": 20, "path": "/workspace"}},
                "startSsh": False,
                "startJupyter": False,
            },
        )
    ]
    got = await r.json()
    assert got == v1_template(await v2(proxy, auth, "GET", f"/v2/templates/{got['id']}"))
    assert emulations(r) == set("v1-defaults, template-ssh-jupyter-off, create-status".split(", "))


async def test_template_list_get_update_delete(proxy, auth, recorder):
    t = await create_template(proxy, auth)
    recorder.clear()
    r = await proxy.get("/v1/templates", headers=auth)
    assert r.status == 200
    assert await r.json() == [v1_template(x) for x in (await v2(proxy, auth, "GET", "/v2/templates"))["templates"]]
    r = await proxy.get(f"/v1/templates/{t['id']}", headers=auth)
    assert await r.json() == t
    r = await proxy.post(f"/v1/templates/{t['id']}/update", json={"isPublic": True, "imageName": "img:2"}, headers=auth)
    assert r.status == 200
    assert (await r.json()) == {**t, "isPublic": True, "imageName": "img:2"}
    r = await proxy.delete(f"/v1/templates/{t['id']}", headers=auth)
    assert r.status == 204
    assert sent(recorder)[:1] + sent(recorder)[3:] == [
        ("GET", "/v2/templates", None),
        ("PATCH", f"/v2/templates/{t['id']}", {"public": True, "image": "img:2"}),
        ("DELETE", f"/v2/templates/{t['id']}", None),
    ]


# ------------------------------------------------------------------- endpoints


async def test_endpoint_create_list_get_update_delete(proxy, auth, recorder):
    t = await create_template(proxy, auth, isServerless=True)
    recorder.clear()
    r = await proxy.post(
        "/v1/endpoints",
        json={"templateId": t["id"], "name": "ep", "gpuTypeIds": ["NVIDIA A40"], "workersMax": 2, "flashboot": True,
              "scalerType": "REQUEST_COUNT", "scalerValue": 3, "idleTimeout": 9},
        headers=auth,
    )
    assert r.status == 200, await r.text()
    catalog = await v2(proxy, auth, "GET", "/v2/catalog/gpus")
    pool = next(g["pool"] for g in catalog["gpus"] if g["id"] == "NVIDIA A40")
    others = sorted(g["id"] for g in catalog["gpus"] if g.get("pool") == pool and g["id"] != "NVIDIA A40")
    expected_body = {
        "templateId": t["id"],
        "name": "ep",
        "workers": {"max": 2},
        "flashboot": "FLASHBOOT",
        "timeout": 300000,
        "gpu": {"pools": [pool], **({"excludedTypes": others} if others else {})},
        "scaling": {"type": "REQUEST_COUNT", "requestCount": 3},
        "type": "QUEUE",
    }
    assert sent(recorder)[:1] == [("POST", "/v2/serverless", expected_body)]
    ep = await r.json()
    e = await v2(proxy, auth, "GET", f"/v2/serverless/{ep['id']}")
    expected = {
        "id": e["id"], "name": "ep", "createdAt": e["createdAt"], "env": e["env"], "dataCenterIds": e["dataCenterIds"],
        "computeType": "GPU", "gpuTypeIds": ["NVIDIA A40"], "gpuCount": e["gpu"]["count"],
        "allowedCudaVersions": e["gpu"]["allowedCudaVersions"], "workersMin": e["workers"]["min"], "workersMax": 2,
        "scalerType": "REQUEST_COUNT", "scalerValue": 3, "executionTimeoutMs": 300000, "networkVolumeIds": [],
    }
    if e["gpu"].get("minCudaVersion"):
        expected["minCudaVersion"] = e["gpu"]["minCudaVersion"]
    assert ep == expected
    assert emulations(r) == set("flashboot-enum, gpu-pools, v1-defaults, create-status".split(", "))
    r = await proxy.get("/v1/endpoints", headers=auth)
    assert await r.json() == [ep]
    r = await proxy.get(f"/v1/endpoints/{ep['id']}", headers=auth)
    assert await r.json() == ep
    recorder.clear()
    r = await proxy.post(f"/v1/endpoints/{ep['id']}/update", json={"workersMin": 1, "flashboot": False}, headers=auth)
    assert r.status == 200
    assert sent(recorder) == [("PATCH", f"/v2/serverless/{ep['id']}", {"workers": {"min": 1}, "flashboot": "OFF"})]
    assert await r.json() == {**ep, "workersMin": 1}
    assert emulations(r) == set("update-alias, flashboot-enum".split(", "))
    recorder.clear()
    r = await proxy.delete(f"/v1/endpoints/{ep['id']}", headers=auth)
    assert r.status == 204
    assert sent(recorder) == [("DELETE", f"/v2/serverless/{ep['id']}", None)]


# ------------------------------------------------------ volumes and registries


async def test_network_volume_routes(proxy, auth, recorder):
    r = await proxy.post("/v1/networkvolumes", json={"name": "vol", "size": 20, "dataCenterId": "EU-RO-1"}, headers=auth)
    assert r.status == 200, await r.text()
    vol = await r.json()
    assert vol == {"id": vol["id"], "name": "vol", "size": 20, "dataCenterId": "EU-RO-1"}
    assert emulations(r) == set("create-status".split(", "))
    assert (await (await proxy.get("/v1/networkvolumes", headers=auth)).json()) == [vol]
    assert (await (await proxy.get(f"/v1/networkvolumes/{vol['id']}", headers=auth)).json()) == vol
    r = await proxy.patch(f"/v1/networkvolumes/{vol['id']}", json={"size": 30}, headers=auth)
    assert await r.json() == {**vol, "size": 30}
    r = await proxy.post(f"/v1/networkvolumes/{vol['id']}/update", json={"name": "vol2"}, headers=auth)
    assert await r.json() == {**vol, "size": 30, "name": "vol2"}
    r = await proxy.delete(f"/v1/networkvolumes/{vol['id']}", headers=auth)
    assert r.status == 204
    assert sent(recorder) == [
        ("POST", "/v2/network-volumes", {"name": "vol", "size": 20, "dataCenter": "EU-RO-1"}),
        ("GET", "/v2/network-volumes", None),
        ("GET", f"/v2/network-volumes/{vol['id']}", None),
        ("PATCH", f"/v2/network-volumes/{vol['id']}", {"size": 30}),
        ("PATCH", f"/v2/network-volumes/{vol['id']}", {"name": "vol2"}),
        ("DELETE", f"/v2/network-volumes/{vol['id']}", None),
    ]


async def test_registry_routes(proxy, auth, recorder):
    r = await proxy.post("/v1/containerregistryauth", json={"name": "reg", "username": "u", "password": "p"}, headers=auth)
    assert r.status == 200
    reg = await r.json()
    assert reg == {"id": reg["id"], "name": "reg"}
    assert (await (await proxy.get("/v1/containerregistryauth", headers=auth)).json()) == [reg]
    assert (await (await proxy.get(f"/v1/containerregistryauth/{reg['id']}", headers=auth)).json()) == reg
    r = await proxy.delete(f"/v1/containerregistryauth/{reg['id']}", headers=auth)
    assert r.status == 204
    assert sent(recorder) == [
        ("POST", "/v2/registries", {"name": "reg", "username": "u", "password": "p"}),
        ("GET", "/v2/registries", None),
        ("GET", f"/v2/registries/{reg['id']}", None),
        ("DELETE", f"/v2/registries/{reg['id']}", None),
    ]


# --------------------------------------------------------------------- billing


async def test_billing_endpoints_reaches_serverless_never_endpoints(proxy, auth, recorder):
    r = await proxy.get("/v1/billing/endpoints?endpointId=abc&bucketSize=day", headers=auth)
    assert r.status == 200
    assert [(s.method, s.path, s.query) for s in recorder] == [
        ("GET", "/v2/billing/serverless", [("serverlessId", "abc"), ("bucketSize", "day")])
    ]
    assert r.headers["Link"] == '</v2/billing/serverless>; rel="successor-version"'


async def test_billing_pods_default_grouping_is_v1s_gpu_type(proxy, auth, recorder):
    """v1 grouped pod billing by gpuTypeId unless told otherwise; v2 is per pod: join the GPU type and sum."""
    pods = [await create_pod(proxy, auth), await create_pod(proxy, auth)]
    recorder.clear()
    r = await proxy.get("/v1/billing/pods?bucketSize=day", headers=auth)
    assert r.status == 200, await r.text()
    assert sorted((s.path, tuple(s.query)) for s in recorder) == [
        ("/v2/billing/pods", (("bucketSize", "day"),)),
        ("/v2/pods", (("limit", "1000"),)),  # the join reads every pod page, each as large as v2 allows
    ]
    records = (await v2(proxy, auth, "GET", "/v2/billing/pods?bucketSize=day"))["records"]
    gpu = {p["id"]: p["gpu"]["id"] for p in (await v2(proxy, auth, "GET", "/v2/pods"))["pods"]}
    expected: dict = {}
    for x in records:
        key = (x["startTime"], gpu[x["podId"]])
        expected[key] = expected.get(key, 0) + x["totalAmount"]
    got = await r.json()
    assert got and all(sorted(g) == ["amount", "gpuTypeId", "time"] for g in got)
    assert sorted((g["time"], g["gpuTypeId"]) for g in got) == sorted(expected)
    for g in got:  # the pods keep accruing between the two reads
        assert g["amount"] == pytest.approx(expected[(g["time"], g["gpuTypeId"])], abs=0.05)
    assert {p["id"] for p in pods} <= set(gpu)
    assert "list-filters" in emulations(r)


async def test_billing_endpoints_default_grouping_is_endpoint(proxy, auth, recorder):
    r = await proxy.get("/v1/billing/endpoints?bucketSize=day", headers=auth)
    assert r.status == 200
    assert [(s.path, s.query) for s in recorder] == [("/v2/billing/serverless", [("bucketSize", "day")])]
    assert "list-filters" in emulations(r)


async def test_billing_pods_records(proxy, auth, recorder):
    pod = await create_pod(proxy, auth)
    recorder.clear()
    r = await proxy.get(f"/v1/billing/pods?podId={pod['id']}&bucketSize=day&grouping=podId", headers=auth)
    assert r.status == 200
    assert [(s.path, s.query) for s in recorder] == [("/v2/billing/pods", [("podId", pod["id"]), ("bucketSize", "day")])]
    records = (await v2(proxy, auth, "GET", f"/v2/billing/pods?podId={pod['id']}&bucketSize=day"))["records"]
    got = await r.json()
    # the pod keeps accruing between the two reads: the amount may grow, everything else is exact
    assert [sorted(g) for g in got] == [["amount", "podId", "time"]] * len(records)
    assert [(g["time"], g["podId"]) for g in got] == [(x["startTime"], x["podId"]) for x in records]
    assert [g["amount"] == pytest.approx(x["totalAmount"], abs=0.01) for g, x in zip(got, records)] == [True] * len(got)


async def test_billing_network_volumes_sums_per_bucket(proxy, auth, recorder):
    r = await proxy.get("/v1/billing/networkvolumes?bucketSize=day", headers=auth)
    assert r.status == 200
    records = (await v2(proxy, auth, "GET", "/v2/billing/network-volumes?bucketSize=day"))["records"]
    buckets: dict = {}
    for x in records:
        b = buckets.setdefault(x["startTime"], {"amount": 0, "time": x["startTime"], "highPerformanceStorageAmount": 0})
        b["amount"] = round(b["amount"] + x["totalAmount"], 10)
        b["highPerformanceStorageAmount"] = round(b["highPerformanceStorageAmount"] + x["highPerformanceAmount"], 10)
    assert await r.json() == list(buckets.values())
    assert recorder[0].path == "/v2/billing/network-volumes"


# ---------------------------------------------------------------------- local


async def test_openapi_is_the_v1_document_and_docs_is_gone(proxy, auth, recorder):
    from mappings import load_schema

    r = await proxy.get("/v1/openapi.json")
    assert r.status == 200
    assert await r.json() == load_schema("v1")
    r = await proxy.get("/v1/docs")
    assert r.status == 404
    assert await r.json() == {"message": "GET /docs has no v2 equivalent (R13)"}
    assert list(recorder) == []
