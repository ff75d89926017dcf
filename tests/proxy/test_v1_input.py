"""Every v1 request is checked against v1.json first (issue 15, item 5): what v1 refused is v1's 400 naming the
v1 field, before any mapping or policy decision; integers beyond what v2 stores never reach it as floats.

The requests are the ones a schemathesis run over v1.json found answered with 5xx or stored as floats.
"""
from __future__ import annotations

import pytest

from mappings.errors import (
    ClientInputError,
    InvalidValue,
    MappingError,
    NeedsLookup,
    PolicyRefused,
    TranslationError,
    Unsupported,
    UpstreamError,
    V1bridgeError,
)
from sandbox.problems import Problem


async def test_entrypoint_of_objects_is_a_400_not_the_strict_entrypoint_501(proxy, auth, recorder):
    r = await proxy.post("/v1/pods", json={"imageName": "i", "gpuTypeIds": ["NVIDIA A40"], "dockerEntrypoint": [{}]},
                         headers=auth)
    assert r.status == 400
    assert await r.json() == {"message": 'invalid input: dockerEntrypoint.0: {} is not of type "string"'}
    assert recorder == []


async def test_billing_grouping_outside_v1_enum_is_a_400_not_a_501(proxy, auth, recorder):
    r = await proxy.get("/v1/billing/pods?grouping=AAA", headers=auth)
    assert r.status == 400
    assert await r.json() == {"message": 'invalid input: grouping: "AAA" is not one of "podId" or "gpuTypeId"'}
    assert recorder == []


async def test_scaler_value_beyond_64_bits_is_a_400_not_a_500(proxy, auth, recorder):
    r = await proxy.post("/v1/endpoints", json={"templateId": "t1", "scalerValue": 2.4e20}, headers=auth)
    assert r.status == 400
    assert await r.json() == {
        "message": "invalid input: scalerValue: 2.4e+20 is greater than the maximum of 9223372036854775807"}
    assert recorder == []


@pytest.mark.parametrize("field", ["volumeInGb", "containerDiskInGb"])
async def test_sizes_beyond_64_bits_are_refused_never_stored_as_floats(proxy, auth, recorder, field):
    raw = b'{"imageName": "i", "gpuTypeIds": ["NVIDIA A40"], "%s": 310000000000000000000}' % field.encode()
    r = await proxy.post("/v1/pods", data=raw, headers={**auth, "Content-Type": "application/json"})
    assert r.status == 400
    assert await r.json() == {
        "message": f"invalid input: {field}: 3.1e+20 is greater than the maximum of 9223372036854775807"}
    assert recorder == []


async def test_largest_stored_integer_is_still_v1_valid(proxy, auth):
    """The bound is the stored range itself: 2**63-1 passes the v1 check (and v2 then judges it)."""
    r = await proxy.post("/v1/pods", json={"imageName": "i", "gpuTypeIds": ["NVIDIA A40"],
                                           "containerDiskInGb": 2**63 - 1}, headers=auth)
    assert r.status != 400 or "greater than the maximum of 9223372036854775807" not in (await r.json())["message"]


async def test_v1_check_runs_before_a_strict_policy(aiohttp_client, proxy_config):
    """Only a valid v1 request may meet a 501: an invalid one is answered 400 even where a policy is strict."""
    from dataclasses import replace

    from proxy.app import create_proxy_app

    client = await aiohttp_client(create_proxy_app(replace(proxy_config, strict=frozenset({"reset"}))))
    r = await client.post("/v1/pods", json={"gpuTypeIds": ["NVIDIA A40", "NVIDIA L4"], "gpuCount": 0},
                          headers={"Authorization": "Bearer key-alice"})
    assert r.status == 400
    assert await r.json() == {"message": "invalid input: gpuCount: 0 is less than the minimum of 1"}


async def test_query_boolean_that_is_not_one_is_a_400(proxy, auth, recorder):
    r = await proxy.get("/v1/pods?includeMachine=maybe", headers=auth)
    assert r.status == 400
    assert await r.json() == {"message": "invalid input: includeMachine: 'maybe' is not true or false"}
    assert recorder == []


async def test_sandbox_refuses_integers_beyond_what_it_stores_with_422(sandbox_client, auth):
    raw = b'{"name": "p", "image": "i", "gpu": {"id": "NVIDIA A40", "count": 1}, "disk": 310000000000000000000}'
    r = await sandbox_client.post("/v2/pods", data=raw, headers={**auth, "Content-Type": "application/json"})
    assert r.status == 422
    body = await r.json()
    assert body["errors"][0] == "$.disk: 3.1e+20 is greater than the maximum of 9223372036854775807"


def test_every_error_has_one_root_and_the_status_of_its_family():
    assert [cls.status for cls in (ClientInputError, InvalidValue, PolicyRefused, Unsupported, UpstreamError)] == [
        400, 400, 501, 501, 502]
    for cls in (MappingError, TranslationError, NeedsLookup, ClientInputError, UpstreamError, Problem):
        assert issubclass(cls, V1bridgeError)
    err = UpstreamError("pod 'x' not found", status=404, upstream_status=404).within("created x, but locking failed")
    assert (err.status, str(err)) == (404, "created x, but locking failed: pod 'x' not found")
