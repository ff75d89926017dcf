"""The `runpod` SDK 1.12.0 (PyPI), unmodified, with only RUNPOD_API_BASE_URL pointed at the proxy: every
control-plane function it offers, judged on what the SDK returns and on the v2 state read through `/v2`.

The SDK sends `POST {base}/graphql` with `{"query"}` (arguments as inline literals), the key in
`Authorization: Bearer`; it raises AuthenticationError on HTTP 401 and QueryError on any `errors` member, and
otherwise reads `data.<root field>`.
"""
from __future__ import annotations

import pytest
import requests

runpod = pytest.importorskip("runpod")
from runpod import error as runpod_error  # noqa: E402

from tests.proxy.graphql.conftest import KEY  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def sdk(live, monkeypatch):
    monkeypatch.setenv("RUNPOD_API_BASE_URL", live.url)
    monkeypatch.setattr(runpod, "api_key", KEY)
    return runpod


@pytest.fixture
def v2(live):
    def get(path: str) -> requests.Response:
        return requests.get(live.url + "/v2" + path, headers={"Authorization": f"Bearer {KEY}"}, timeout=10)
    return get


def test_user_and_ssh_keys(sdk, v2):
    user = sdk.get_user()
    assert user == {"id": None, "pubKey": "", "networkVolumes": []}
    key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBn0 me@laptop"
    assert sdk.update_user_settings(key) == {"id": None, "pubKey": key}
    assert v2("/account/ssh-keys").json() == {"keys": [key]}
    assert sdk.get_user()["pubKey"] == key


def test_gpu_catalog(sdk, v2):
    gpus = sdk.get_gpus()
    catalog = {g["id"]: g for g in v2("/catalog/gpus").json()["gpus"]}
    assert [g["id"] for g in gpus] == list(catalog)
    a40 = catalog["NVIDIA A40"]
    assert gpus[[g["id"] for g in gpus].index("NVIDIA A40")] == {
        "id": "NVIDIA A40", "displayName": a40["name"], "memoryInGb": a40["memory"]}
    one = sdk.get_gpu("NVIDIA A40", 2)
    assert one["id"] == "NVIDIA A40" and one["memoryInGb"] == a40["memory"]
    assert one["securePrice"] == a40["price"]["secure"] and one["communityPrice"] == a40["price"]["community"]
    assert one["maxGpuCount"] == max(a40["maxCount"].values())
    offered = [a40["price"][cloud] for cloud in ("secure", "community") if a40[cloud]]  # a cloud without it: no price
    assert one["lowestPrice"] == {"minimumBidPrice": None, "uninterruptablePrice": min(offered)}
    assert one["communitySpotPrice"] is None and one["cudaCores"] is None
    with pytest.raises(ValueError, match="No GPU found"):
        sdk.get_gpu("NVIDIA GeForce RTX 9999")


def test_gpu_pod_lifecycle(sdk, v2):
    created = sdk.create_pod("trainer", "runpod/pytorch:2.4", "NVIDIA A40", cloud_type="SECURE", gpu_count=1,
                             volume_in_gb=30, container_disk_in_gb=40, docker_args="python train.py --epochs 3",
                             ports="8888/http, 22/tcp", env={"A": "1", "B": "two"})
    pod_id = created["id"]
    # v2 adds the account's SSH keys as PUBLIC_KEY when startSsh is on (the SDK's default), as v1 did
    created["env"] = [e for e in created["env"] if not e.startswith("PUBLIC_KEY=")]
    assert created == {"id": pod_id, "imageName": "runpod/pytorch:2.4", "env": ["A=1", "B=two"], "machineId": None,
                       "machine": {"podHostId": None}}
    state = v2(f"/pods/{pod_id}").json()
    state["env"].pop("PUBLIC_KEY", None)
    assert (state["name"], state["image"], state["gpu"]["id"], state["gpu"]["count"], state["cloud"], state["disk"],
            state["mounts"]["persistent"], state["ports"], state["env"], state["args"]) == (
        "trainer", "runpod/pytorch:2.4", "NVIDIA A40", 1, "SECURE", 40, {"size": 30, "path": "/runpod-volume"},
        ["8888/http", "22/tcp"], {"A": "1", "B": "two"}, "python train.py --epochs 3")

    listed = sdk.get_pods()
    mine = [p for p in listed if p["id"] == pod_id]
    assert len(mine) == 1
    assert mine[0]["desiredStatus"] == "RUNNING" and mine[0]["gpuCount"] == 1 and mine[0]["volumeInGb"] == 30
    assert mine[0]["ports"] == "8888/http,22/tcp" and mine[0]["machine"] == {"gpuDisplayName": "NVIDIA A40"}
    got = sdk.get_pod(pod_id)
    assert got["id"] == pod_id and got["imageName"] == "runpod/pytorch:2.4" and got["dockerArgs"] == \
        "python train.py --epochs 3" and got["containerDiskInGb"] == 40 and got["volumeMountPath"] == "/runpod-volume"
    assert set(got) == set(mine[0])

    stopped = sdk.stop_pod(pod_id)
    assert stopped == {"id": pod_id, "desiredStatus": "EXITED"}
    assert v2(f"/pods/{pod_id}").json()["status"] == "EXITED"

    with pytest.raises(runpod_error.QueryError, match="gpu.count"):
        sdk.resume_pod(pod_id, 2)  # v2 cannot resume with another GPU count: an error naming it, nothing done
    assert v2(f"/pods/{pod_id}").json()["status"] == "EXITED"
    resumed = sdk.resume_pod(pod_id, 1)
    assert resumed["id"] == pod_id and resumed["desiredStatus"] == "RUNNING" and resumed["env"][:2] == ["A=1", "B=two"]
    assert v2(f"/pods/{pod_id}").json()["status"] in ("RUNNING", "STARTING", "PROVISIONING")

    assert sdk.terminate_pod(pod_id) is None
    assert v2(f"/pods/{pod_id}").status_code == 404
    assert pod_id not in [p["id"] for p in sdk.get_pods()]


def test_cloud_all_and_cpu_pod(sdk, v2):
    gpu_pod = sdk.create_pod("any-cloud", "img:1", "NVIDIA A40")  # the SDK's default cloud_type is ALL
    assert v2(f"/pods/{gpu_pod['id']}").json()["cloud"] == "SECURE"  # ALL walks SECURE, then COMMUNITY
    cpu_pod = sdk.create_pod("cpu-box", "ubuntu:22.04", instance_id="cpu3c-2-4")
    state = v2(f"/pods/{cpu_pod['id']}").json()
    assert state["cpu"]["id"] == "cpu3c" and state["cpu"]["vcpuCount"] == 2 and state["image"] == "ubuntu:22.04"
    assert state.get("gpu") is None
    for pod in (gpu_pod, cpu_pod):
        sdk.terminate_pod(pod["id"])


def test_templates_and_endpoints(sdk, v2):
    template = sdk.create_template("server", "me/server:1", docker_start_cmd='python -c "print(1)"',
                                   container_disk_in_gb=15, volume_in_gb=20, volume_mount_path="/data",
                                   ports="8000/http", env={"MODE": "prod"}, is_serverless=True)
    tid = template["id"]
    assert template == {"id": tid, "name": "server", "imageName": "me/server:1", "dockerArgs": 'python -c "print(1)"',
                        "containerDiskInGb": 15, "volumeInGb": 20, "volumeMountPath": "/data", "ports": "8000/http",
                        "env": [{"key": "MODE", "value": "prod"}], "isServerless": True}
    stored = v2(f"/templates/{tid}").json()  # the fields arrive renamed in v2
    assert (stored["image"], stored["disk"], stored["mounts"]["persistent"], stored["ports"], stored["env"],
            stored["serverless"], stored["args"], stored["startSsh"]) == (
        "me/server:1", 15, {"size": 20, "path": "/data"}, ["8000/http"], {"MODE": "prod"}, True,
        'python -c "print(1)"', True)

    endpoint = sdk.create_endpoint("api", tid, gpu_ids="AMPERE_16,ADA_24", idle_timeout=7, scaler_type="QUEUE_DELAY",
                                   scaler_value=3, workers_min=0, workers_max=2, flashboot=True)
    eid = endpoint["id"]
    assert (endpoint["name"], endpoint["templateId"], endpoint["gpuIds"], endpoint["idleTimeout"],
            endpoint["scalerType"], endpoint["scalerValue"], endpoint["workersMin"], endpoint["workersMax"],
            endpoint["flashBootType"], endpoint["gpuCount"]) == (
        "api", None, "AMPERE_16,ADA_24", 7, "QUEUE_DELAY", 3, 0, 2, "FLASHBOOT", 1)  # v2 keeps no template link (Q15)
    stored = v2(f"/serverless/{eid}").json()
    assert (stored["gpu"]["pools"], stored["workers"]["idleTimeout"], stored["scaling"], stored["flashboot"]) == (
        ["AMPERE_16", "ADA_24"], 7, {"type": "QUEUE_DELAY", "queueDelay": 3}, "FLASHBOOT")
    assert eid in [e["id"] for e in sdk.get_endpoints()]

    other = sdk.create_template("server2", "me/server:2", is_serverless=True)
    updated = sdk.update_endpoint_template(eid, other["id"])
    assert updated == {"id": eid, "templateId": None}
    assert v2(f"/serverless/{eid}").json()["image"] == "me/server:2"  # the new template's settings were applied


def test_registry_auth(sdk, v2):
    saved = sdk.create_container_registry_auth("ghcr", "me", "s3cret")
    rid = saved["id"]
    assert saved == {"id": rid, "name": "ghcr"}
    assert v2(f"/registries/{rid}").json()["name"] == "ghcr"
    with pytest.raises(runpod_error.QueryError, match="v2 registries cannot be changed"):
        sdk.update_container_registry_auth(rid, "me", "new")
    assert v2(f"/registries/{rid}").status_code == 200  # nothing deleted or recreated
    assert sdk.delete_container_registry_auth(rid) is None
    assert v2(f"/registries/{rid}").status_code == 404


def test_bad_key_is_an_authentication_error(sdk, monkeypatch):
    monkeypatch.setattr(runpod, "api_key", "wrong-key")
    with pytest.raises(runpod_error.AuthenticationError):
        sdk.get_pods()
    with pytest.raises(runpod_error.AuthenticationError):
        sdk.stop_pod("abc")
