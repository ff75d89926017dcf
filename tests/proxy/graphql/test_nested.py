"""Nested object fields are resolvers of their own (graphql.yaml views: `view`, or `view` + `fetch`): a record v2
holds only by id (an endpoint's network volume) is read by its own v2 call, once per id and request, and only when a
selected field needs more than the id. Exact `data` and exactly the v2 calls made."""
from __future__ import annotations

import pytest

from tests.proxy.graphql.conftest import graphql_app

AUTH = {"Authorization": "Bearer key-alice"}


@pytest.fixture
async def client(aiohttp_client, proxy_config):
    return await aiohttp_client(graphql_app(proxy_config))


async def gql(client, query: str):
    resp = await client.post("/graphql", json={"query": query}, headers=AUTH)
    assert resp.status == 200
    return await resp.json()


def calls(recorder) -> list[tuple[str, str]]:
    return [(s.method, s.path) for s in recorder]


async def setup(client) -> tuple[str, list[str]]:
    """A network volume, two endpoints on it and one without."""
    body = await gql(client, 'mutation { createNetworkVolume(input: {name: "data", size: 50, dataCenterId: "EU-RO-1"}) '
                             '{ id } }')
    volume = body["data"]["createNetworkVolume"]["id"]
    body = await gql(client, 'mutation { saveTemplate(input: {name: "t", imageName: "me/api:1", isServerless: true}) '
                             '{ id } }')
    template = body["data"]["saveTemplate"]["id"]
    endpoints = []
    for name, extra in (("a", f', networkVolumeId: "{volume}"'), ("b", f', networkVolumeId: "{volume}"'), ("c", "")):
        body = await gql(client, 'mutation { saveEndpoint(input: {name: "%s", templateId: "%s", gpuIds: "AMPERE_16", '
                                 'scalerType: "QUEUE_DELAY", scalerValue: 4%s}) '
                                 '{ id } }' % (name, template, extra))
        assert "errors" not in body, body["errors"][0]["message"]
        endpoints.append(body["data"]["saveEndpoint"]["id"])
    return volume, endpoints


async def test_a_nested_record_is_fetched_only_when_a_field_beyond_its_id_is_selected(client, recorder):
    volume, endpoints = await setup(client)
    recorder.clear()
    body = await gql(client, "{ myself { endpoints { id networkVolume { id __typename } } } }")
    assert list(body) == ["data"]
    assert sorted(body["data"]["myself"]["endpoints"], key=lambda e: endpoints.index(e["id"])) == [
        {"id": endpoints[0], "networkVolume": {"id": volume, "__typename": "NetworkVolume"}},
        {"id": endpoints[1], "networkVolume": {"id": volume, "__typename": "NetworkVolume"}},
        {"id": endpoints[2], "networkVolume": None}]
    assert calls(recorder) == [("GET", "/v2/serverless")]  # the id is in the endpoint: nothing else is read

    recorder.clear()
    body = await gql(client, "{ myself { endpoints { name networkVolume { id name size dataCenterId } } } }")
    vol = {"id": volume, "name": "data", "size": 50, "dataCenterId": "EU-RO-1"}
    assert list(body) == ["data"]
    assert sorted(body["data"]["myself"]["endpoints"], key=lambda e: e["name"]) == [
        {"name": "a", "networkVolume": vol}, {"name": "b", "networkVolume": vol}, {"name": "c", "networkVolume": None}]
    # one read of the volume for the two endpoints on it, none for the endpoint without one
    assert calls(recorder) == [("GET", "/v2/serverless"), ("GET", f"/v2/network-volumes/{volume}")]


async def test_a_mutation_answer_fetches_its_nested_record_too(client, recorder):
    volume, endpoints = await setup(client)
    recorder.clear()
    body = await gql(client, 'mutation { saveEndpoint(input: {id: "%s", workersMax: 4}) '
                             '{ id workersMax networkVolume { dataCenterId } } }' % endpoints[0])
    assert body == {"data": {"saveEndpoint": {"id": endpoints[0], "workersMax": 4,
                                              "networkVolume": {"dataCenterId": "EU-RO-1"}}}}
    assert calls(recorder) == [("PATCH", f"/v2/serverless/{endpoints[0]}"), ("GET", f"/v2/network-volumes/{volume}")]
    assert recorder[0].body == {"workers": {"max": 4}}  # an update sends what was given, not a create's constants


async def test_a_nested_record_v2_cannot_give_is_null_with_an_error_at_its_path(client, recorder):
    volume, endpoints = await setup(client)
    recorder.fail(lambda s: s.path == f"/v2/network-volumes/{volume}", 404, "no such volume")
    recorder.clear()
    body = await gql(client, "{ myself { endpoints { name networkVolume { name } } } }")
    listed = body["data"]["myself"]["endpoints"]
    assert sorted(listed, key=lambda e: e["name"]) == [{"name": "a", "networkVolume": None},
                                                       {"name": "b", "networkVolume": None},
                                                       {"name": "c", "networkVolume": None}]
    on_volume = sorted(n for n, e in enumerate(listed) if e["name"] in ("a", "b"))
    assert sorted((e["path"], e["extensions"]["code"], e["locations"]) for e in body["errors"]) == [
        (["myself", "endpoints", n, "networkVolume"], "NOT_FOUND", [{"line": 1, "column": 29}]) for n in on_volume]
    assert f"GET /v2/network-volumes/{volume}" in body["errors"][0]["message"]
    assert calls(recorder) == [("GET", "/v2/serverless"), ("GET", f"/v2/network-volumes/{volume}")]


async def test_every_object_field_is_a_nested_resolver_in_the_mapping():
    from mappings import default_mappings
    from proxy.graphql.schema import schema
    from proxy.graphql.views import Views

    views = Views(default_mappings(), schema())
    assert {key: (fetch.path, fetch.needs) for key, fetch in views.fetches.items()} == {
        ("Endpoint", "networkVolume"): ("/v2/network-volumes/{id}", {"name", "size", "dataCenterId"}),
        ("GpuType", "lowestPrice"): ("/v2/catalog/gpus/{id}", {"stockStatus"})}


async def test_a_gpus_stock_for_a_gpu_count_is_read_only_when_selected(client, recorder):
    query = '{ gpuTypes(input: {id: "NVIDIA A40"}) { id lowestPrice(input: {gpuCount: %d}) { uninterruptablePrice%s } } }'
    body = await gql(client, query % (2, ""))
    price = body["data"]["gpuTypes"][0]["lowestPrice"]["uninterruptablePrice"]
    assert calls(recorder) == [("GET", "/v2/catalog/gpus")]  # the prices are the catalog record's own
    for count in (1, 2, 8):
        resp = await client.get("/v2/catalog/gpus/NVIDIA%20A40", headers=AUTH,
                                params={"include": "AVAILABILITY", "product": "POD", "count": str(count)})
        stock = (await resp.json())["availability"]
        recorder.clear()
        body = await gql(client, query % (count, " stockStatus"))
        assert body == {"data": {"gpuTypes": [{"id": "NVIDIA A40", "lowestPrice": {
            "uninterruptablePrice": price, "stockStatus": stock}}]}}
        assert [(s.method, s.path, s.query) for s in recorder] == [
            ("GET", "/v2/catalog/gpus", []),
            ("GET", "/v2/catalog/gpus/NVIDIA A40", [("include", "AVAILABILITY"), ("product", "POD"),
                                                    ("count", str(count))])]


async def test_an_endpoint_created_without_a_scaler_has_v1s_defaults_and_an_update_never_guesses_the_type(client,
                                                                                                      recorder):
    body = await gql(client, 'mutation { saveTemplate(input: {name: "t", imageName: "me/api:1", isServerless: true}) '
                             '{ id } }')
    template = body["data"]["saveTemplate"]["id"]
    recorder.clear()
    body = await gql(client, 'mutation { saveEndpoint(input: {name: "d", templateId: "%s", gpuIds: "AMPERE_16"}) '
                             '{ id scalerType scalerValue } }' % template)
    endpoint = body["data"]["saveEndpoint"]
    assert (endpoint["scalerType"], endpoint["scalerValue"]) == ("QUEUE_DELAY", 4)
    [create] = [s for s in recorder if s.method == "POST"]
    assert create.body["scaling"] == {"type": "QUEUE_DELAY", "queueDelay": 4}
    recorder.clear()
    body = await gql(client, 'mutation { saveEndpoint(input: {id: "%s", scalerValue: 9}) { id } }' % endpoint["id"])
    assert body["data"] == {"saveEndpoint": None}
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT" and "scalerType" in body["errors"][0]["message"]
    assert calls(recorder) == [("GET", "/v2/account/ssh-keys")]  # nothing sent, only the key checked
    body = await gql(client, 'mutation { saveEndpoint(input: {id: "%s", scalerType: "REQUEST_COUNT", scalerValue: 9}) '
                             '{ scalerType scalerValue } }' % endpoint["id"])
    assert body == {"data": {"saveEndpoint": {"scalerType": "REQUEST_COUNT", "scalerValue": 9}}}
    assert [s.body for s in recorder if s.method == "PATCH"] == [{"scaling": {"type": "REQUEST_COUNT",
                                                                               "requestCount": 9}}]
