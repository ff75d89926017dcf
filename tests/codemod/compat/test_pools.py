"""gpu_pools (Q18): an endpoint's v1 GPU type ids as v2's pools, read from the catalog through the client's send.

The part it returns goes into an otherwise plain v2 endpoint body (`"gpu": {"count": 1, **gpu_pools(send, ids)}`):
checked against the proxy's own translation of the same v1 list, and by creating the endpoint on the sandbox.
"""
from __future__ import annotations

import asyncio

import pytest

from mappings.converters import Catalog
from mappings.translate import translators
from sandbox import catalog

from tests.codemod.compat.tools import Client


def _serverless_types() -> list[str]:
    """Two GPU types of one pool and one of another (the catalog's own seed)."""
    pools = [pool for pool, types in catalog.POOLS.items() if len(types) > 1]
    first = catalog.POOLS[pools[0]]
    other = next(types[0] for pool, types in catalog.POOLS.items() if pool != pools[0])
    return [first[0], other]


def test_gpu_pools_is_the_proxys_translation_of_the_same_list(cm, client):
    types = _serverless_types()
    part = cm.gpu_pools(client.send, types)
    assert [(method, path) for method, path, _body in client.calls] == [("GET", "/catalog/gpus")]  # one read
    listing = client.send("GET", "/catalog/gpus").json()
    want = translators().request("endpoint.create", {"templateId": "t", "gpuTypeIds": types},
                                 catalog=Catalog.from_v2(listing)).body["gpu"]
    assert part == want and part["pools"] and part["excludedTypes"]  # the pools' other types are excluded


def test_an_endpoint_made_with_the_part_runs_on_exactly_the_types_asked_for(cm, client):
    types = _serverless_types()
    template = client.send("POST", "/templates", json={"name": "tpl-pools", "image": "runpod/worker:1",
                                                       "serverless": True}).json()
    part = cm.gpu_pools(client.send, types)
    answer = client.send("POST", "/serverless", json={"name": "pools", "templateId": template["id"],
                                                      "gpu": {"count": 1, **part}, "type": "QUEUE",
                                                      "scaling": {"type": "QUEUE_DELAY", "queueDelay": 4}})
    assert answer.status_code == 201, answer.text
    runs_on = {t for pool in answer.json()["gpu"]["pools"] for t in catalog.POOLS[pool]} - set(
        answer.json()["gpu"].get("excludedTypes", ()))
    assert runs_on == set(types)


def test_a_type_the_catalog_does_not_offer_for_serverless_is_refused_before_any_create(cm, client):
    with pytest.raises(cm.InvalidValue, match="unknown GPU type 'NVIDIA Nonexistent'"):
        cm.gpu_pools(client.send, ["NVIDIA Nonexistent"])
    assert [method for method, _path, _body in client.calls] == ["GET"]


def test_the_async_twin_awaits_an_async_send(cm, client):
    async def send(method, path, **kw):
        return client.send(method, path, **kw)

    types = _serverless_types()
    assert asyncio.run(cm.agpu_pools(send, types)) == cm.gpu_pools(client.send, types)
