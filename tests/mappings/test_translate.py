"""Exact translations both ways, and every translated body valid against the v2 schema."""
from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from mappings import load_schema
from mappings.translate import (
    Catalog,
    InvalidValue,
    NeedsLookup,
    PolicyRefused,
    ResponseContext,
    translators,
)

T = translators()
_REGISTRY = Registry().with_resource("urn:v2", Resource.from_contents(load_schema("v2"), default_specification=DRAFT202012))


def assert_valid_v2(schema_name: str, body: dict) -> None:
    validator = Draft202012Validator({"$ref": f"urn:v2#/components/schemas/{schema_name}"}, registry=_REGISTRY)
    errors = sorted(e.message for e in validator.iter_errors(body))
    assert errors == [], f"{schema_name} refuses {body}: {errors}"


def test_empty_pod_create_gets_every_v1_default():
    result = T.request("pod.create", {"imageName": "ubuntu", "gpuTypeIds": ["NVIDIA A40"]})
    assert result.body == {
        "image": "ubuntu",
        "gpu": {"id": "NVIDIA A40", "count": 1, "minRamPerGpu": 8, "minVcpuCountPerGpu": 2},
        "name": "my pod",
        "disk": 50,
        "ports": ["8888/http", "22/tcp"],
        "mounts": {"persistent": {"size": 20, "path": "/workspace"}},
    }
    assert result.emulations == ["v1-defaults"]
    assert result.alternatives == {}
    assert_valid_v2("CreatePodRequest", result.body)


def test_pod_create_full_body():
    v1 = {
        "name": "trainer", "imageName": "pytorch:2", "gpuTypeIds": ["NVIDIA A40", "NVIDIA L4"], "gpuCount": 2,
        "cloudType": "COMMUNITY", "containerDiskInGb": 80, "volumeInGb": 100, "volumeMountPath": "/data",
        "dockerStartCmd": ["bash", "-lc", "python train.py --lr 0.1"], "env": {"A": "1"}, "ports": "8888/http,22/tcp",
        "dataCenterIds": ["EU-RO-1"], "allowedCudaVersions": ["12.4"], "globalNetworking": True,
        "containerRegistryAuthId": "reg1", "templateId": "tpl1",
    }
    result = T.request("pod.create", v1)
    assert result.body == {
        "name": "trainer", "image": "pytorch:2",
        "gpu": {"id": "NVIDIA A40", "count": 2, "allowedCudaVersions": ["12.4"], "minRamPerGpu": 8, "minVcpuCountPerGpu": 2},
        "cloud": "COMMUNITY", "disk": 80, "mounts": {"persistent": {"size": 100, "path": "/data"}},
        "cmd": ["bash", "-lc", "python train.py --lr 0.1"], "env": {"A": "1"}, "ports": ["8888/http", "22/tcp"],
        "dataCenterIds": ["EU-RO-1"], "globalNetworking": True, "registry": "reg1", "templateId": "tpl1",
    }
    assert result.alternatives == {"gpu.id": ["NVIDIA A40", "NVIDIA L4"]}
    assert result.emulations == ["gpu-fallback", "v1-defaults"]
    assert_valid_v2("CreatePodRequest", result.body)


def test_cpu_pod_ignores_gpu_fields_and_gets_no_volume():
    result = T.request("pod.create", {"computeType": "CPU", "imageName": "u", "cpuFlavorIds": ["cpu3c"], "gpuCount": 2, "volumeInGb": 30})
    assert result.body == {"image": "u", "cpu": {"id": "cpu3c", "vcpuCount": 2}, "name": "my pod", "disk": 50, "ports": ["8888/http", "22/tcp"]}
    assert result.ignored == ["gpuCount"]
    assert result.notes == ["volumeInGb dropped: v2 CPU pods take no persistent volume (L05)"]
    assert_valid_v2("CreatePodRequest", result.body)


def test_network_volume_replaces_pod_volume():
    result = T.request("pod.create", {"imageName": "u", "gpuTypeIds": ["X"], "networkVolumeId": "nv1", "volumeInGb": 50})
    assert result.body["mounts"] == {"network": [{"volumeId": "nv1", "path": "/workspace"}]}
    assert_valid_v2("CreatePodRequest", result.body)


def test_strict_policy_refuses_instead_of_emulating():
    with pytest.raises(PolicyRefused) as refused:
        T.request("pod.create", {"imageName": "u", "gpuTypeIds": ["A", "B"]}, strict={"gpu-fallback": True})
    assert refused.value.policy == "gpu-fallback"
    assert "R02" in refused.value.message


ENTRYPOINT_CASES = [
    pytest.param({"dockerEntrypoint": ["/bin/sh", "-c"], "dockerStartCmd": ["echo $HOME && sleep infinity"]},
                 {"entrypoint": ["/bin/sh", "-c"], "cmd": ["echo $HOME && sleep infinity"]}, id="both-exec-form"),
    pytest.param({"dockerStartCmd": ["python", "-m", "http.server", "8888"]},
                 {"cmd": ["python", "-m", "http.server", "8888"]}, id="cmd-only-no-quoting"),
    pytest.param({"dockerStartCmd": ["bash", "-lc", "python x.py --name 'a b'"]},
                 {"cmd": ["bash", "-lc", "python x.py --name 'a b'"]}, id="quotes-kept-verbatim"),
    pytest.param({"dockerEntrypoint": ["/usr/bin/tini", "--"]}, {"entrypoint": ["/usr/bin/tini", "--"]},
                 id="entrypoint-only"),
    pytest.param({"dockerEntrypoint": [], "dockerStartCmd": []}, {"entrypoint": [], "cmd": []}, id="empty-lists"),
]


@pytest.mark.parametrize("v1,expected", ENTRYPOINT_CASES)
@pytest.mark.parametrize("map_id,base", [
    ("pod.create", {"imageName": "u", "gpuTypeIds": ["A"]}), ("pod.update", {}),
    ("template.create", {"name": "t", "imageName": "u"}), ("template.update", {}),
])
def test_entrypoint_and_start_cmd_map_one_to_one_and_never_to_args(map_id, base, v1, expected):
    """R06 resolved, Q09: dockerEntrypoint -> entrypoint and dockerStartCmd -> cmd element for element;
    nothing is quoted into args (sending args too would have to encode the same command)."""
    result = T.request(map_id, {**base, **v1})
    assert {k: result.body[k] for k in ("entrypoint", "cmd") if k in result.body} == expected
    assert "args" not in result.body
    assert set(result.emulations) <= {"v1-defaults", "template-startup-flags"}
    assert_valid_v2(T.mappings.requests[map_id].v2_schema, result.body)


@pytest.mark.parametrize("v2,expected", [
    pytest.param({"args": '{"entrypoint":["/bin/sh","-c"],"cmd":["echo hi"]}', "entrypoint": ["/bin/sh", "-c"],
                  "cmd": ["echo hi"]}, (["/bin/sh", "-c"], ["echo hi"]), id="current-server-arrays"),
    pytest.param({"args": '{"entrypoint":["/bin/sh","-c"],"cmd":["echo hi"]}'}, (["/bin/sh", "-c"], ["echo hi"]),
                 id="json-object-args-is-decoded-not-split"),
    pytest.param({"args": "bash -lc 'python x.py'"}, ([], ["bash", "-lc", "python x.py"]), id="plain-args-split"),
    pytest.param({"args": ""}, ([], []), id="empty"),
])
@pytest.mark.parametrize("map_id", ["pod", "template"])
def test_entrypoint_and_cmd_read_back_to_v1(map_id, v2, expected):
    """v2 -> v1: cmd/entrypoint when present; otherwise derived from args (JSON object decoded, plain split)."""
    out = T.response(map_id, {"id": "x", **v2})
    assert (out["dockerEntrypoint"], out["dockerStartCmd"]) == expected


def test_gpu_pod_totals_fill_v1_vcpu_and_memory():
    """v2c gpu.vcpuCount / gpu.memory are the pod's totals: v1 vcpuCount / memoryInGb on GPU pods; CPU pods keep cpu."""
    gpu_pod = T.response("pod", {"id": "p", "gpu": {"id": "NVIDIA GeForce RTX 4090", "count": 2, "vcpuCount": 32,
                                                    "memory": 128}})
    assert (gpu_pod["vcpuCount"], gpu_pod["memoryInGb"], gpu_pod["gpu"]) == (32, 128, {"id": "NVIDIA GeForce RTX 4090", "count": 2})
    cpu_pod = T.response("pod", {"id": "p", "cpu": {"id": "cpu3c", "vcpuCount": 4, "memory": 8}})
    assert (cpu_pod["vcpuCount"], cpu_pod["memoryInGb"], cpu_pod["cpuFlavorId"]) == (4, 8, "cpu3c")
    assert "vcpuCount" not in T.response("pod", {"id": "p", "gpu": {"id": "g", "count": 1}})  # an older server


def test_gpu_count_and_placement_floors_are_always_sent():
    """Q31: live v2 fails a create without gpu.count; Q39: v1's 8 GB / 2 vCPU per GPU floors unless the client set them."""
    given = T.request("pod.create", {"imageName": "u", "gpuTypeIds": ["A"], "gpuCount": 4, "minRAMPerGPU": 32,
                                     "minVCPUPerGPU": 6})
    assert given.body["gpu"] == {"id": "A", "count": 4, "minRamPerGpu": 32, "minVcpuCountPerGpu": 6}
    omitted = T.request("pod.create", {"imageName": "u", "gpuTypeIds": ["A"]})
    assert omitted.body["gpu"] == {"id": "A", "count": 1, "minRamPerGpu": 8, "minVcpuCountPerGpu": 2}
    assert "v1-defaults" in omitted.emulations
    cpu = T.request("pod.create", {"computeType": "CPU", "imageName": "u", "cpuFlavorIds": ["cpu3c"], "minRAMPerGPU": 8})
    assert "gpu" not in cpu.body and cpu.ignored == ["minRAMPerGPU"]
    with pytest.raises(PolicyRefused, match="Q39"):
        T.request("pod.create", {"imageName": "u", "gpuTypeIds": ["A"], "gpuCount": 1}, strict={"v1-defaults": True})


def test_pod_update_applies_no_defaults_and_completes_mounts_from_current():
    assert T.request("pod.update", {"name": "n"}).body == {"name": "n"}
    with pytest.raises(NeedsLookup) as needs:
        T.request("pod.update", {"volumeInGb": 40})
    assert needs.value.what == "current"
    current = {"mounts": {"persistent": {"size": 20, "path": "/workspace"}}}
    result = T.request("pod.update", {"volumeInGb": 40}, current=current)
    assert result.body == {"mounts": {"persistent": {"size": 40, "path": "/workspace"}}}
    assert_valid_v2("UpdatePodRequest", result.body)


def test_endpoint_create_synthesises_what_v2_requires():
    catalog = Catalog({"NVIDIA A40": "AMPERE_48", "NVIDIA RTX A6000": "AMPERE_48", "NVIDIA L4": "ADA_24", "NVIDIA GeForce RTX 4090": "ADA_24"})
    with pytest.raises(NeedsLookup):
        T.request("endpoint.create", {"templateId": "t1", "gpuTypeIds": ["NVIDIA A40"]})
    result = T.request("endpoint.create", {"templateId": "t1", "gpuTypeIds": ["NVIDIA A40", "NVIDIA L4"], "workersMax": 5, "flashboot": True}, catalog=catalog)
    assert result.body == {
        "templateId": "t1", "workers": {"max": 5, "idleTimeout": 5}, "flashboot": "FLASHBOOT", "name": "endpoint-t1",
        "timeout": 300000, "gpu": {"pools": ["AMPERE_48", "ADA_24"], "excludedTypes": ["NVIDIA GeForce RTX 4090", "NVIDIA RTX A6000"]},
        "scaling": {"type": "QUEUE_DELAY", "queueDelay": 4}, "type": "QUEUE",
    }
    assert result.emulations == ["endpoint-gpu-pools", "flashboot-enum", "v1-defaults"]
    assert_valid_v2("CreateEndpointRequest", result.body)


def test_idle_timeout_is_dropped_with_request_count_scaling():
    result = T.request("endpoint.create", {"templateId": "t1", "scalerType": "REQUEST_COUNT", "scalerValue": 3, "idleTimeout": 7,
                                           "computeType": "CPU"})
    assert result.body["scaling"] == {"type": "REQUEST_COUNT", "requestCount": 3}
    assert "workers" not in result.body
    assert result.notes == ["idleTimeout dropped: v2 refuses it with REQUEST_COUNT scaling (Q11)"]


def test_template_create():
    result = T.request("template.create", {"name": "t", "imageName": "img", "isPublic": True, "readme": "# hi", "isServerless": False})
    assert result.body == {
        "name": "t", "image": "img", "public": True, "serverless": False, "disk": 50, "ports": ["8888/http", "22/tcp"],
        "mounts": {"persistent": {"size": 20, "path": "/workspace"}}, "startSsh": False, "startJupyter": False,
    }
    assert_valid_v2("CreateTemplateRequest", result.body)


def test_network_volume_and_registry():
    assert T.request("network_volume.create", {"name": "v", "size": 50, "dataCenterId": "EU-RO-1"}).body == {"name": "v", "size": 50, "dataCenter": "EU-RO-1"}
    assert T.request("registry.create", {"name": "r", "username": "u", "password": "p"}).body == {"name": "r", "username": "u", "password": "p"}


def test_bad_values_are_refused_with_the_field_named():
    # dockerStartCmd moves as is; a non-string element is refused by the proxy's v2 body check, named in
    # v1 terms (tests/proxy/test_pagination.py::test_bad_start_cmd_is_a_v1_400_naming_the_v1_field)
    assert T.request("pod.create", {"imageName": "u", "gpuTypeIds": ["A"], "dockerStartCmd": [1, 2]}).body["cmd"] == [1, 2]
    with pytest.raises(InvalidValue, match="gpuTypeIds"):
        T.request("pod.create", {"imageName": "u", "gpuTypeIds": []})
    # v1 declared a list; a bare string must not slip through as a single choice
    with pytest.raises(InvalidValue, match="gpuTypeIds: must be a list of type ids"):
        T.request("pod.create", {"imageName": "u", "gpuTypeIds": "NVIDIA A40"})
    with pytest.raises(InvalidValue, match="cpuFlavorIds: must be a list of type ids"):
        T.request("pod.create", {"computeType": "CPU", "imageName": "u", "cpuFlavorIds": [3]})
    with pytest.raises(InvalidValue, match="JSON object"):
        T.request("pod.create", ["not", "an", "object"])


V2_POD = {
    "id": "p1", "name": "trainer", "status": "STARTING", "actions": ["stop", "terminate"], "image": "pytorch:2",
    "args": "bash -lc 'python train.py --lr 0.1'", "disk": 80, "mounts": {"persistent": {"size": 100, "path": "/data"}},
    "ports": ["8888/http"], "env": {"A": "1"}, "registry": None, "cloud": "SECURE", "dataCenterId": "EU-RO-1",
    "cudaVersion": "12.4", "ssh": None, "template": None, "cost": 0.79, "locked": False,
    "runtime": {"ports": [{"private": 22, "public": 10341, "type": "tcp", "ip": "203.0.113.7"}, {"private": 8888, "public": None, "type": "http", "ip": None}]},
    "createdAt": "2026-11-20T10:00:00Z", "startedAt": "2026-11-20T10:01:00Z", "gpu": {"id": "NVIDIA A40", "count": 2},
}


def test_pod_response_backward():
    assert T.response("pod", V2_POD) == {
        "id": "p1", "name": "trainer", "desiredStatus": "RUNNING", "image": "pytorch:2",
        "dockerStartCmd": ["bash", "-lc", "python train.py --lr 0.1"], "dockerEntrypoint": [], "containerDiskInGb": 80,
        "volumeInGb": 100, "volumeMountPath": "/data", "ports": ["8888/http"], "env": {"A": "1"}, "costPerHr": 0.79,
        "adjustedCostPerHr": 0.79, "gpu": {"id": "NVIDIA A40", "count": 2}, "locked": False,
        "lastStartedAt": "2026-11-20T10:01:00Z", "portMappings": {"22": 10341}, "publicIp": "203.0.113.7", "interruptible": False,
    }


@pytest.mark.parametrize("ports,expected", [
    pytest.param([{"private": 8888, "public": None, "type": "http", "ip": "100.72.4.9"},
                  {"private": 22, "public": 10341, "type": "tcp", "ip": "203.0.113.7"}], "203.0.113.7",
                 id="http-proxy-address-first-is-skipped"),
    pytest.param([{"private": 8888, "public": None, "type": "http", "ip": "100.72.4.9"}], None, id="http-only-no-public-ip"),
    pytest.param([{"private": 22, "public": 10341, "type": "tcp", "ip": "100.100.0.3"}], None, id="tcp-in-proxy-range"),
])
def test_public_ip_is_never_the_http_proxy_address(ports, expected):
    """Q28: an http port's ip is the edge proxy (100.64.0.0/10); publicIp comes from a tcp port outside it."""
    out = T.response("pod", {"id": "p", "runtime": {"ports": ports}})
    assert out.get("publicIp") == expected


def test_pod_response_include_flags():
    ctx = ResponseContext(includes=frozenset({"includeMachine", "includeSavingsPlans"}))
    v1 = T.response("pod", V2_POD, ctx)
    assert v1["machine"] == {"dataCenterId": "EU-RO-1", "gpuTypeId": "NVIDIA A40", "secureCloud": True}
    assert v1["savingsPlans"] == []
    assert "networkVolume" not in v1


def test_template_response_emits_both_spellings_of_the_platform_flag():
    v2 = {"id": "t1", "name": "t", "image": "img", "args": "", "disk": 50, "mounts": {}, "ports": [], "env": {}, "registry": None,
          "serverless": False, "public": False, "category": "NVIDIA", "startSsh": True, "startJupyter": True, "allowedCudaVersions": []}
    v1 = T.response("template", v2, ResponseContext(lookups={"official_templates": {"t1"}}))
    assert v1 == {"id": "t1", "name": "t", "imageName": "img", "category": "NVIDIA", "containerDiskInGb": 50, "volumeInGb": 0,
                  "dockerEntrypoint": [], "dockerStartCmd": [], "env": {}, "ports": [], "isPublic": False, "isServerless": False,
                  "isRunpod": True, "isPlatform": True}


def test_network_volume_billing_is_summed_per_bucket():
    records = [
        {"startTime": "2026-11-01T00:00:00Z", "endTime": "2026-11-02T00:00:00Z", "networkVolumeId": "a", "totalAmount": 0.5, "standardAmount": 0.5, "highPerformanceAmount": 0.0},
        {"startTime": "2026-11-01T00:00:00Z", "endTime": "2026-11-02T00:00:00Z", "networkVolumeId": "b", "totalAmount": 0.25, "standardAmount": 0.0, "highPerformanceAmount": 0.25},
        {"startTime": "2026-11-02T00:00:00Z", "endTime": "2026-11-03T00:00:00Z", "networkVolumeId": "a", "totalAmount": 0.5, "standardAmount": 0.5, "highPerformanceAmount": 0.0},
    ]
    assert T.records("billing_network_volume", records) == [
        {"amount": 0.75, "time": "2026-11-01T00:00:00Z", "highPerformanceStorageAmount": 0.25},
        {"amount": 0.5, "time": "2026-11-02T00:00:00Z", "highPerformanceStorageAmount": 0.0},
    ]


@pytest.mark.parametrize("types", [[1], ["NVIDIA A40", {"id": "x"}], [["NVIDIA A40"]], "NVIDIA A40", {"NVIDIA A40": 1}])
def test_endpoint_gpu_types_must_be_strings(types):
    """Refused before the catalog is needed (no NeedsLookup, no TypeError from an unhashable item)."""
    with pytest.raises(InvalidValue, match="gpuTypeIds must be a list of GPU type id strings"):
        T.request("endpoint.create", {"templateId": "t1", "gpuTypeIds": types})
    with pytest.raises(InvalidValue, match="gpuTypeIds"):
        T.request("endpoint.update", {"gpuTypeIds": types})


def _edge_objects() -> list[dict]:
    """Sample v2 objects plus the shapes a compiled read must survive: missing, null and non-dict steps."""
    samples = [value for value in globals().values() if isinstance(value, dict) and "id" in value]
    return samples + [
        {},
        {"id": "x", "mounts": None, "gpu": None, "cpu": "not-a-dict", "runtime": {"ports": []}},
        {"id": "x", "mounts": {"persistent": None}, "cpu": {"id": "c", "vcpuCount": 0, "memory": None}},
        {"id": "x", "mounts": {"persistent": {"size": 0, "path": ""}}, "locked": False, "ports": [], "env": {}},
        {"id": "x", "mounts": [{"persistent": 1}], "cpu": ["id"]},
        {"id": "e", "networkVolumes": ["nv1", "nv2"], "scaling": {"type": "QUEUE_DELAY", "queueDelay": 2.6}},
        {"id": "e", "networkVolumes": [], "workers": None},
        {"id": "e", "networkVolumes": {"0": "keyed"}},
        {"startTime": "2026-11-01T00:00:00Z", "totalAmount": 1.5, "podId": "p", "serverlessId": "s"},
    ]


@pytest.mark.parametrize("map_id", sorted(T.responses))
@pytest.mark.parametrize("includes", [frozenset(), frozenset({"includeMachine", "includeSavingsPlans", "includeNetworkVolume"})])
def test_compiled_response_equals_the_step_reference(map_id, includes):
    compiled = T.responses[map_id]
    ctx = ResponseContext(includes=includes)
    for obj in _edge_objects():
        try:
            expected = compiled._translate_steps(obj, ctx)
        except (TypeError, AttributeError, KeyError, ValueError):
            continue  # a converter refuses this shape either way
        assert compiled.translate(obj, ctx) == expected, (map_id, obj)


def test_compiled_answers_never_share_mutable_values():
    """Two answers built from one map must not share a list (a client mutating one would change the other)."""
    first, second = T.response("pod", V2_POD), T.response("pod", V2_POD)
    assert first["dockerEntrypoint"] == [] and first["dockerEntrypoint"] is not second["dockerEntrypoint"]
    empty = {"id": "p"}
    assert T.response("pod", empty)["ports"] is not T.response("pod", empty)["ports"]
