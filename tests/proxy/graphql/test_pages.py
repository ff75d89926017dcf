"""Every page of a paginated v2 list is read: a list field is all the records or an error, never a part."""
from __future__ import annotations

import dataclasses

import pytest

from proxy.app import create_proxy_app

AUTH = {"Authorization": "Bearer key-alice"}


@pytest.fixture
def sandbox_config(sandbox_config):
    return dataclasses.replace(sandbox_config, max_page_size=2)  # 5 pods: 3 pages


async def test_every_page_is_read(aiohttp_client, proxy_config, recorder):
    client = await aiohttp_client(create_proxy_app(proxy_config))
    made = []
    for n in range(5):
        resp = await client.post("/graphql", headers=AUTH, json={"query": 'mutation { podFindAndDeployOnDemand(input: '
                                 '{name: "p%d", imageName: "i", gpuTypeId: "NVIDIA A40", cloudType: SECURE}) { id } }' % n})
        made.append((await resp.json())["data"]["podFindAndDeployOnDemand"]["id"])
    recorder.clear()
    resp = await client.post("/graphql", headers=AUTH, json={"query": "{ myself { pods { id } } }"})
    body = await resp.json()
    assert sorted(p["id"] for p in body["data"]["myself"]["pods"]) == sorted(made)
    pages = [s for s in recorder if s.method == "GET" and s.path == "/v2/pods"]
    assert len(pages) == 3 and [dict(s.query).get("cursor") is None for s in pages] == [True, False, False]


async def test_a_failed_page_is_an_error_not_a_short_list(aiohttp_client, proxy_config, recorder):
    client = await aiohttp_client(create_proxy_app(proxy_config))
    for n in range(3):
        await client.post("/graphql", headers=AUTH, json={"query": 'mutation { podFindAndDeployOnDemand(input: '
                          '{name: "p%d", imageName: "i", gpuTypeId: "NVIDIA A40", cloudType: SECURE}) { id } }' % n})
    recorder.fail(lambda s: s.path == "/v2/pods" and s.method == "GET" and dict(s.query).get("cursor"), 500, "boom")
    resp = await client.post("/graphql", headers=AUTH, json={"query": "{ myself { pods { id } } }"})
    body = await resp.json()
    assert resp.status == 200 and body["data"] == {"myself": {"pods": None}}
    assert body["errors"][0]["path"] == ["myself", "pods"] and "page 2" in body["errors"][0]["message"]


async def test_a_large_first_page_spooled_to_a_file_is_read_whole(aiohttp_client, proxy_config):
    client = await aiohttp_client(create_proxy_app(dataclasses.replace(proxy_config, large_answer=200)))
    made = []
    for n in range(2):
        resp = await client.post("/graphql", headers=AUTH, json={"query": 'mutation { podFindAndDeployOnDemand(input: '
                                 '{name: "big%d", imageName: "i", gpuTypeId: "NVIDIA A40", cloudType: SECURE}) { id } }' % n})
        made.append((await resp.json())["data"]["podFindAndDeployOnDemand"]["id"])
    resp = await client.post("/graphql", headers=AUTH, json={"query": "{ myself { pods { id } } }"})
    body = await resp.json()
    assert "errors" not in body and sorted(p["id"] for p in body["data"]["myself"]["pods"]) == sorted(made)
