"""A published v1 client, unmodified, driven through the proxy over every v1 REST operation it offers.

`evolvishub-runpod-management` (PyPI, httpx) is a real v1 REST client: PodClient (create, list with filters,
get with every include flag, update, start, stop, restart, delete) and ContainerRegistryAuthClient (create,
list, get, delete), configured only by its base URL, as its users would point it at the proxy. It validates
every answer with its own pydantic models and maps v1 error statuses to its own exceptions, so a v1 shape or
status the proxy gets wrong fails here. Its AccountInfoClient is GraphQL on a fixed host, not v1 REST: out of
the proxy's scope.
"""
from __future__ import annotations

import pytest
from evolvishub_runpod_management import (
    ContainerRegistryAuthClient,
    ContainerRegistryAuthCreateInput,
    PodClient,
    PodCreateInput,
    PodListFilters,
    PodUpdateInput,
    RunPodConfig,
)
from evolvishub_runpod_management.exceptions import RunPodAuthenticationError, RunPodNotFoundError, RunPodValidationError

from proxy.app import create_proxy_app
from proxy.config import ProxyConfig
from tests.live_server import LiveServer

KEY = "published-client-key"


@pytest.fixture(scope="module")
def base_url():
    server = LiveServer(create_proxy_app(ProxyConfig(upstream=None, keys=[KEY], access_log=False, fingerprint_salt="s",
                                                     reset_wait_seconds=2.0, sandbox_transition_seconds=0.0)))
    yield server.url + "/v1"
    server.close()


@pytest.fixture
def pods(base_url):
    with PodClient(RunPodConfig(api_key=KEY, base_url=base_url)) as client:
        yield client


@pytest.fixture
def registries(base_url):
    with ContainerRegistryAuthClient(RunPodConfig(api_key=KEY, base_url=base_url)) as client:
        yield client


def test_pod_lifecycle_through_every_pod_operation(pods):
    created = pods.create_pod(PodCreateInput(image_name="runpod/pytorch:2.4", name="trainer", gpu_type_ids=[
        "NVIDIA A40", "NVIDIA L4"], gpu_count=1, volume_in_gb=30, ports=["8888/http", "22/tcp"], env={"A": "1"}))
    assert (created.name, created.image, created.volume_in_gb, created.volume_mount_path, created.container_disk_in_gb,
            created.env, created.ports) == ("trainer", "runpod/pytorch:2.4", 30, "/workspace", 50, {"A": "1"},
                                            ["8888/http", "22/tcp"])
    assert created.gpu["id"] in ("NVIDIA A40", "NVIDIA L4") and created.desired_status == "RUNNING"

    listed = pods.list_pods()
    assert [p.id for p in listed] == [created.id]
    assert pods.list_pods(PodListFilters(desired_status="EXITED")) == []
    assert [p.id for p in pods.list_pods(PodListFilters(name="trainer", gpu_type_id=[created.gpu["id"]],
                                                        include_machine=True))] == [created.id]

    got = pods.get_pod(created.id, include_machine=True, include_network_volume=True, include_savings_plans=True,
                       include_template=True)
    assert (got.id, got.name, got.machine["gpuTypeId"]) == (created.id, "trainer", created.gpu["id"])

    updated = pods.update_pod(created.id, PodUpdateInput(name="trainer-2", env={"A": "2"}))
    assert (updated.name, updated.env) == ("trainer-2", {"A": "2"})

    assert pods.stop_pod(created.id) is None
    assert pods.get_pod(created.id).desired_status == "EXITED"
    assert pods.start_pod(created.id) is None
    assert pods.get_pod(created.id).desired_status == "RUNNING"
    assert pods.restart_pod(created.id) is None
    assert pods.get_pod(created.id).desired_status == "RUNNING"

    assert pods.delete_pod(created.id) is None
    with pytest.raises(RunPodNotFoundError):
        pods.get_pod(created.id)


def test_cpu_pod_without_flavors_as_the_client_builds_it(pods):
    """The client sends computeType CPU and leaves cpuFlavorIds out: v1 chose the flavor, and so does the proxy."""
    created = pods.create_pod(PodCreateInput(image_name="ubuntu:22.04", name="cpu", compute_type="CPU"))
    assert created.cpu_flavor_id in ("cpu3c", "cpu3g", "cpu3m", "cpu5c", "cpu5g", "cpu5m")
    assert (created.vcpu_count, created.gpu) == (2, None)
    pods.delete_pod(created.id)


def test_invalid_input_reaches_the_client_as_its_validation_error_in_v1_words(pods):
    with pytest.raises(RunPodValidationError) as caught:
        pods.create_pod(PodCreateInput(image_name="img", name="x", gpu_type_ids=["NVIDIA A40"],
                                       container_disk_in_gb=310000000000000000000))
    assert str(caught.value) == ("Invalid request: invalid input: containerDiskInGb: 3.1e+20 is greater than the "
                                 "maximum of 9223372036854775807")
    with pytest.raises(RunPodValidationError) as caught:
        pods.create_pod(PodCreateInput(image_name="img", name="x"))
    # the client always sends gpuCount: 1, so v2 would see gpu {count} without its id
    assert str(caught.value) == "Invalid request: invalid input: gpuTypeIds: required"


def test_registry_auth_through_every_operation(registries):
    created = registries.create(ContainerRegistryAuthCreateInput(name="ghcr", username="bot", password="s3cret"))
    assert created.name == "ghcr"
    assert [(r.id, r.name) for r in registries.list()] == [(created.id, "ghcr")]
    assert registries.get(created.id).name == "ghcr"
    assert registries.delete(created.id) is None
    with pytest.raises(RunPodNotFoundError):
        registries.get(created.id)


def test_a_wrong_key_is_the_clients_authentication_error(base_url):
    with PodClient(RunPodConfig(api_key="not-a-key", base_url=base_url)) as client:
        with pytest.raises(RunPodAuthenticationError):
            client.list_pods()
