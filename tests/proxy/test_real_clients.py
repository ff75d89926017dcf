"""The requests real v1 clients sent through the proxy and got wrong answers to (issue 15, items 1-4), replayed
as the clients sent them: the exact v1 answer, what reached v2, and the sandbox state afterwards.

Item 5 (invalid v1 input answered 5xx or stored as floats) is replayed in test_v1_input.py.
"""
from __future__ import annotations

import pytest

from proxy.app import create_proxy_app
from tests.proxy.tools import emulations, sent, v2

GPU = "NVIDIA A40"
# what v2 gets for a GPU pod beside the type: the count always (Q31) and v1's placement floors (Q39)
GPU_V2 = {"id": GPU, "count": 1, "minRamPerGpu": 8, "minVcpuCountPerGpu": 2}


@pytest.fixture
def strict_proxy(aiohttp_client, proxy_config):
    async def make(*policies: str):
        proxy_config.strict = frozenset(policies)
        return await aiohttp_client(create_proxy_app(proxy_config))

    return make


# ------------------------------------------------------------ 1. empty strings


async def test_cli_empty_strings_mean_not_set_and_the_name_default_applies(proxy, auth, recorder):
    """A bash CLI built on curl and jq sends "" for every option the user left out."""
    r = await proxy.post("/v1/pods", json={"name": "", "imageName": "runpod/base:0.6", "gpuTypeIds": [GPU],
                                           "templateId": "", "networkVolumeId": "", "containerRegistryAuthId": "",
                                           "volumeMountPath": "", "dataCenterIds": [], "countryCodes": []},
                         headers=auth)
    assert r.status == 201, await r.text()
    assert sent(recorder) == [("POST", "/v2/pods", {
        "name": "my pod", "image": "runpod/base:0.6", "gpu": GPU_V2, "disk": 50,
        "ports": ["8888/http", "22/tcp"], "mounts": {"persistent": {"size": 20, "path": "/workspace"}}})]
    pod = await r.json()
    assert (pod["name"], pod["image"], pod["volumeMountPath"], pod["volumeInGb"]) == (
        "my pod", "runpod/base:0.6", "/workspace", 20)
    assert emulations(r) == {"v1-defaults"}


async def test_null_container_disk_means_not_set_where_v1_allowed_null(proxy, auth, recorder):
    r = await proxy.post("/v1/pods", json={"imageName": "img", "gpuTypeIds": [GPU], "containerDiskInGb": None},
                         headers=auth)
    assert r.status == 201, await r.text()
    assert sent(recorder)[0][2]["disk"] == 50


async def test_empty_string_endpoint_name_gets_the_v1_default(proxy, auth, recorder):
    template = await _template(proxy, auth, name="worker", isServerless=True)
    r = await proxy.post("/v1/endpoints", json={"templateId": template["id"], "name": "", "networkVolumeId": "",
                                                "gpuTypeIds": [GPU]}, headers=auth)
    assert r.status == 200, await r.text()
    assert (await r.json())["name"] == f"endpoint-{template['id']}"


# ------------------------------------------------------ 2. template-aware defaults


async def _template(proxy, auth, **fields) -> dict:
    body = {"name": "t", "imageName": "img", **fields}
    r = await proxy.post("/v1/templates", json=body, headers=auth)
    assert r.status == 200, await r.text()
    return await r.json()


async def test_pod_from_template_takes_the_templates_values_not_v1_defaults(proxy, auth, recorder):
    template = await _template(proxy, auth, name="sd", containerDiskInGb=12, volumeInGb=15, volumeMountPath="/data",
                               ports=["7860/http"])
    recorder.clear()
    r = await proxy.post("/v1/pods", json={"templateId": template["id"], "gpuTypeIds": [GPU], "name": "d2"},
                         headers=auth)
    assert r.status == 201, await r.text()
    assert sent(recorder) == [("POST", "/v2/pods", {"name": "d2", "templateId": template["id"], "gpu": GPU_V2})]
    pod = await r.json()
    assert (pod["containerDiskInGb"], pod["volumeInGb"], pod["volumeMountPath"], pod["ports"]) == (
        12, 15, "/data", ["7860/http"])
    assert emulations(r) == {"v1-defaults"}  # the GPU floors only: templates carry none


async def test_pod_from_template_body_fields_override_and_half_a_volume_takes_the_rest_from_it(
        proxy, auth, recorder):
    template = await _template(proxy, auth, name="sd", containerDiskInGb=12, volumeInGb=15, volumeMountPath="/data",
                               ports=["7860/http"])
    recorder.clear()
    r = await proxy.post("/v1/pods", json={"templateId": template["id"], "gpuTypeIds": [GPU], "name": "d3",
                                           "containerDiskInGb": 30, "volumeInGb": 40}, headers=auth)
    assert r.status == 201, await r.text()
    assert sent(recorder) == [
        ("GET", f"/v2/templates/{template['id']}", None),
        ("POST", "/v2/pods", {"name": "d3", "templateId": template["id"], "gpu": GPU_V2, "disk": 30,
                              "mounts": {"persistent": {"size": 40, "path": "/data"}}}),
    ]
    pod = await r.json()
    assert (pod["containerDiskInGb"], pod["volumeInGb"], pod["volumeMountPath"], pod["ports"]) == (
        30, 40, "/data", ["7860/http"])


# ------------------------------------------------ 3. template and endpoint copies


async def test_endpoint_from_template_and_the_template_outlive_each_other(proxy, auth, recorder):
    template = await _template(proxy, auth, name="worker", imageName="acme/worker:1", isServerless=True)
    tid = template["id"]
    r = await proxy.post("/v1/endpoints", json={"templateId": tid, "gpuTypeIds": [GPU]}, headers=auth)
    assert r.status == 200, await r.text()
    first = await r.json()
    r = await proxy.delete(f"/v1/endpoints/{first['id']}", headers=auth)
    assert r.status == 204
    r = await proxy.get(f"/v1/templates/{tid}", headers=auth)
    assert r.status == 200, "deleting the endpoint deleted the template it was created from"
    assert (await r.json())["imageName"] == "acme/worker:1"

    r = await proxy.post("/v1/endpoints", json={"templateId": tid, "gpuTypeIds": [GPU]}, headers=auth)
    second = await r.json()
    r = await proxy.delete(f"/v1/templates/{tid}", headers=auth)
    assert r.status == 204, await r.text()
    r = await proxy.get(f"/v1/endpoints/{second['id']}", headers=auth)
    assert r.status == 200
    # the sandbox state: the template is gone, the second endpoint runs on its own copy
    assert (await v2(proxy, auth, "GET", "/v2/templates"))["templates"] == []
    assert (await v2(proxy, auth, "GET", f"/v2/serverless/{second['id']}"))["image"] == "acme/worker:1"
    assert [e["id"] for e in (await v2(proxy, auth, "GET", "/v2/serverless"))["endpoints"]] == [second["id"]]


# ------------------------------------------------- 4. v1's own choice of compute


async def test_cpu_pod_without_flavors_gets_v1s_choice_by_availability(proxy, auth, recorder):
    r = await proxy.post("/v1/pods", json={"name": "c", "imageName": "img", "computeType": "CPU"}, headers=auth)
    assert r.status == 201, await r.text()
    cpus = {c["id"]: c["availability"] for c in (await v2(
        proxy, auth, "GET", "/v2/catalog/cpus?include=AVAILABILITY&product=POD&vcpuCount=2"))["cpus"]}
    ranked = sorted(["cpu3c", "cpu3g", "cpu3m", "cpu5c", "cpu5g", "cpu5m"],
                    key=lambda c: ["HIGH", "MEDIUM", "LOW", "NONE"].index(cpus[c]))
    assert (await r.json())["cpuFlavorId"] == ranked[0]
    assert [s[2]["cpu"] for s in sent(recorder) if s[0] == "POST"] == [{"id": ranked[0], "vcpuCount": 2}]
    assert emulations(r) == {"compute-choice", "v1-defaults"}


async def test_cpu_pod_without_flavors_is_a_501_when_the_choice_is_strict(strict_proxy, auth, recorder):
    proxy = await strict_proxy("compute-choice")
    r = await proxy.post("/v1/pods", json={"name": "c", "imageName": "img", "computeType": "CPU",
                                           "cpuFlavorIds": []}, headers=auth)
    assert r.status == 501
    assert await r.json() == {"message": "v2 needs the compute named (R02); send gpuTypeIds or cpuFlavorIds"}


async def test_endpoint_with_only_template_id_runs_on_any_serverless_gpu(proxy, auth, recorder):
    template = await _template(proxy, auth, name="worker", isServerless=True)
    recorder.clear()
    r = await proxy.post("/v1/endpoints", json={"templateId": template["id"]}, headers=auth)
    assert r.status == 200, await r.text()
    gpus = sorted((await v2(proxy, auth, "GET", "/v2/catalog/gpus"))["gpus"], key=lambda g: g["id"])
    serverless_types = [g["id"] for g in gpus if g.get("pool")]
    created = [s for s in recorder if s.method == "POST"]
    # every pool of the catalog, none of its types excluded: v1 placed such an endpoint on any serverless GPU
    assert created[0].body["gpu"] == {"pools": list(dict.fromkeys(g["pool"] for g in gpus if g.get("pool")))}
    endpoint = await r.json()
    assert sorted(endpoint["gpuTypeIds"]) == sorted(serverless_types)
    assert "compute-choice" in emulations(r)


async def test_cpu_endpoint_without_flavors_gets_every_v1_serverless_flavor(proxy, auth, recorder):
    template = await _template(proxy, auth, name="worker", isServerless=True)
    recorder.clear()
    r = await proxy.post("/v1/endpoints", json={"templateId": template["id"], "computeType": "CPU"}, headers=auth)
    assert r.status == 200, await r.text()
    created = [s for s in recorder if s.method == "POST"]
    assert created[0].body["cpu"] == [{"id": f, "vcpuCount": 2} for f in ("cpu3c", "cpu3g", "cpu5c", "cpu5g")]
    assert "compute-choice" in emulations(r)


async def test_v2_problem_naming_v2_fields_reaches_the_v1_client_in_v1_names(proxy, auth, recorder):
    """v2's handler rule says "exactly one of gpu or cpu"; the v1 client reads its own field names."""
    recorder.fail(lambda s: s.method == "POST" and s.path == "/v2/pods", 400, "exactly one of gpu or cpu must be set")
    r = await proxy.post("/v1/pods", json={"imageName": "img", "gpuTypeIds": [GPU], "name": "x"}, headers=auth)
    assert r.status == 400
    assert await r.json() == {"message": "exactly one of gpuTypeIds or cpuFlavorIds must be set"}


async def test_gpu_pod_without_types_is_refused_before_v2_in_v1_names(proxy, auth, recorder):
    r = await proxy.post("/v1/pods", json={"imageName": "img", "gpuTypeIds": [], "name": "x"}, headers=auth)
    assert r.status == 400
    assert await r.json() == {"message": "gpuTypeIds: an empty list of types cannot be translated; name at least one"}
    r = await proxy.post("/v1/pods", json={"imageName": "img", "name": "x"}, headers=auth)
    assert r.status == 400
    assert await r.json() == {"message": "invalid input: gpuTypeIds: required"}
    assert [s for s in recorder if s.method == "POST"] == []


async def test_v2_mount_problem_names_the_v1_fields_the_client_used(proxy, auth, recorder):
    recorder.fail(lambda s: s.method == "POST" and s.path == "/v2/pods", 400,
                  "mounts.persistent and mounts.network are mutually exclusive; set at most one")
    r = await proxy.post("/v1/pods", json={"imageName": "img", "gpuTypeIds": [GPU], "networkVolumeId": "vol1"},
                         headers=auth)
    assert r.status == 400
    assert await r.json() == {"message": "volumeInGb and networkVolumeId are mutually exclusive; set at most one"}
