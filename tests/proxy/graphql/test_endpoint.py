"""POST /graphql over the recording sandbox: exactly the selected fields and exactly the v2 calls they need,
GraphQL's error shape, the key from the header or ?api_key=, the strict/emulate policies, headers."""
from __future__ import annotations

import dataclasses

import pytest

from tests.proxy.graphql.conftest import graphql_app

KEY = "key-alice"  # the recording sandbox's first key (tests/conftest.py SANDBOX_KEYS)
AUTH = {"Authorization": f"Bearer {KEY}"}


@pytest.fixture
async def client(aiohttp_client, proxy_config):
    return await aiohttp_client(graphql_app(proxy_config))


@pytest.fixture
def strict_client(aiohttp_client, proxy_config):
    async def make(*policies: str):
        return await aiohttp_client(graphql_app(dataclasses.replace(proxy_config, strict=frozenset(policies))))
    return make


async def gql(client, query: str, variables=None, headers=AUTH, **extra):
    resp = await client.post("/graphql", json={"query": query, **({"variables": variables} if variables else {}),
                                               **extra}, headers=headers)
    return resp, await resp.json()


async def make_pod(client, name="p1", extra=""):
    _, body = await gql(client, 'mutation { podFindAndDeployOnDemand(input: {name: "%s", imageName: "img:1", '
                                'gpuTypeId: "NVIDIA A40", cloudType: SECURE%s}) { id } }' % (name, extra))
    return body["data"]["podFindAndDeployOnDemand"]["id"]


async def test_a_field_is_fetched_only_when_selected(client, recorder):
    await make_pod(client)
    recorder.clear()
    resp, body = await gql(client, "{ myself { pods { id } } }")
    assert resp.status == 200 and [set(p) for p in body["data"]["myself"]["pods"]] == [{"id"}]
    assert [(s.method, s.path) for s in recorder] == [("GET", "/v2/pods")]
    recorder.clear()
    _, body = await gql(client, "{ myself { id email clientBalance } }")
    assert body == {"data": {"myself": {"id": None, "email": None, "clientBalance": None}}}
    # v2 has none of them: nothing is read, only the key is checked (graphql.yaml endpoint.key_check)
    assert [(s.method, s.path) for s in recorder] == [("GET", "/v2/account/ssh-keys")]


@pytest.mark.parametrize("query", ["{ myself { id } }", "{ __typename }", "{ __schema { queryType { name } } }",
                                   'mutation { updateRegistryAuth(input: {id: "r", username: "u", password: "p"}) '
                                   '{ id } }'])
async def test_a_document_that_calls_nothing_in_v2_still_has_its_key_checked(client, recorder, query):
    resp, body = await gql(client, query, headers={"Authorization": "Bearer wrong"})
    assert resp.status == 401 and list(body) == ["errors"]
    [error] = body["errors"]
    assert error["extensions"] == {"code": "UNAUTHENTICATED"}
    assert [(s.method, s.path, s.headers["Authorization"]) for s in recorder] == [
        ("GET", "/v2/account/ssh-keys", "Bearer wrong")]
    recorder.clear()
    resp, body = await gql(client, query)
    assert resp.status == 200 and "data" in body
    assert [(s.method, s.path) for s in recorder] == [("GET", "/v2/account/ssh-keys")]


async def test_exactly_the_selected_fields_with_aliases_fragments_and_directives(client):
    pod_id = await make_pod(client, "shape")
    query = """
      query Q($id: String!, $withRuntime: Boolean!) {
        first: pod(input: {podId: $id}) { ...Basics status: desiredStatus runtime @include(if: $withRuntime) { uptimeInSeconds } }
        second: pod(input: {podId: $id}) { __typename id gpus: gpuCount runtime @skip(if: true) { uptimeInSeconds } }
      }
      fragment Basics on Pod { id name imageName }
    """
    resp, body = await gql(client, query, {"id": pod_id, "withRuntime": False})
    assert resp.status == 200 and "errors" not in body
    assert body["data"] == {"first": {"id": pod_id, "name": "shape", "imageName": "img:1", "status": "RUNNING"},
                            "second": {"__typename": "Pod", "id": pod_id, "gpus": 1}}


async def test_string_escapes_per_the_spec_reach_v2(client, recorder):
    resp, body = await gql(client, r'mutation { podFindAndDeployOnDemand(input: {name: "say \"hi\"\t\u00e9\n", '
                                   r'imageName: "img", gpuTypeId: "NVIDIA A40", cloudType: SECURE, '
                                   r'dockerArgs: "bash -c \"echo a\\b\""}) { id name dockerArgs } }')
    assert resp.status == 200, body
    assert body["data"]["podFindAndDeployOnDemand"]["name"] == 'say "hi"\t\u00e9\n'
    assert body["data"]["podFindAndDeployOnDemand"]["dockerArgs"] == 'bash -c "echo a\\b"'
    create = [s for s in recorder if s.method == "POST" and s.path == "/v2/pods"][-1]
    assert create.body["name"] == 'say "hi"\t\u00e9\n' and create.body["args"] == 'bash -c "echo a\\b"'


async def test_block_strings_and_unicode_escapes_per_the_spec(client, recorder):
    query = ('mutation { podFindAndDeployOnDemand(input: {name: "\\u0041\\/\\\\b", imageName: "img", '
             'gpuTypeId: "NVIDIA A40", cloudType: SECURE, dockerArgs: """\n    bash -c "echo \\"q\\""\n      two\n  """}) '
             '{ name dockerArgs } }')
    resp, body = await gql(client, query)
    assert resp.status == 200, body
    # \u0041 is A, \/ is /, \\ is one backslash; a block string keeps its escapes raw, drops its common
    # indentation and its blank first and last lines
    assert body["data"]["podFindAndDeployOnDemand"] == {"name": "A/\\b", "dockerArgs": 'bash -c "echo \\"q\\""\n  two'}
    create = [s for s in recorder if s.method == "POST" and s.path == "/v2/pods"][-1]
    assert create.body["name"] == "A/\\b" and create.body["args"] == 'bash -c "echo \\"q\\""\n  two'


async def test_errors_in_graphql_shape(client):
    resp, body = await gql(client, "{ myself { pods { id nonsense } } }")
    assert resp.status == 400 and "data" not in body
    [error] = body["errors"]
    assert "nonsense" in error["message"] and error["locations"] == [{"line": 1, "column": 22}]
    assert error["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"

    resp, body = await gql(client, "{ myself { pods { id } ")
    assert resp.status == 400 and body["errors"][0]["extensions"]["code"] == "GRAPHQL_PARSE_FAILED"
    assert body["errors"][0]["locations"][0]["line"] == 1

    resp, body = await gql(client, '{ pod(input: {podId: "nope"}) { id } gpuTypes(input: {id: "NVIDIA A40"}) { id } }')
    assert resp.status == 200
    assert body["data"] == {"pod": None, "gpuTypes": [{"id": "NVIDIA A40"}]}
    [error] = body["errors"]
    assert error["path"] == ["pod"] and error["locations"] == [{"line": 1, "column": 3}]
    assert error["extensions"]["code"] == "NOT_FOUND" and error["extensions"]["status"] == 404
    assert "nope" in error["message"]

    resp, body = await gql(client, "query($id: String!) { pod(input: {podId: $id}) { id } }", {"id": 5})
    assert resp.status == 400 and body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


async def test_the_key_from_the_header_or_the_query_string_and_401(client):
    resp, body = await gql(client, "{ myself { pods { id } } }", headers={"Authorization": "Bearer wrong"})
    assert resp.status == 401 and body["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    resp, body = await gql(client, "{ myself { pods { id } } }", headers={})
    assert resp.status == 401 and "API key" in body["errors"][0]["message"]
    resp = await client.post(f"/graphql?api_key={KEY}", json={"query": "{ myself { pods { id } } }"})
    assert resp.status == 200 and (await resp.json())["data"] == {"myself": {"pods": []}}
    resp = await client.post("/graphql?api_key=wrong", json={"query": "{ myself { pods { id } } }"})
    assert resp.status == 401


async def test_headers_name_the_retirement_the_successor_and_what_was_emulated(client):
    resp, _ = await gql(client, 'mutation { podFindAndDeployOnDemand(input: {name: "h", imageName: "i", '
                                'gpuTypeId: "NVIDIA A40", cloudType: ALL, countryCode: "SE"}) { id } }')
    assert resp.headers["Deprecation"] == "@1789603200"
    assert resp.headers["Link"] == '</v2/pods>; rel="successor-version"'
    emulated = resp.headers["X-V1bridge-Emulation"].split(", ")
    assert "cloud-all" in emulated and "placement-dropped" in emulated
    assert resp.headers["X-V1bridge-Rules"].startswith("G02")


async def test_cloud_all_walks_secure_then_community(client, recorder):
    recorder.fail(lambda s: s.method == "POST" and s.path == "/v2/pods" and s.body.get("cloud") == "SECURE", 400,
                  "no instances currently available")
    resp, body = await gql(client, 'mutation { podFindAndDeployOnDemand(input: {name: "w", imageName: "i", '
                                   'gpuTypeId: "NVIDIA L4", cloudType: ALL}) { id } }')
    assert resp.status == 200 and body["data"]["podFindAndDeployOnDemand"]["id"], body
    creates = [s.body["cloud"] for s in recorder if s.method == "POST" and s.path == "/v2/pods"]
    assert creates == ["SECURE", "COMMUNITY"]


async def test_strict_policies_answer_errors_naming_the_gap(strict_client, recorder):
    client = await strict_client("cloud-all", "interruptible")
    resp, body = await gql(client, 'mutation { podFindAndDeployOnDemand(input: {name: "s", imageName: "i", '
                                   'gpuTypeId: "NVIDIA A40", cloudType: ALL}) { id } }')
    assert resp.status == 200 and body["data"] == {"podFindAndDeployOnDemand": None}
    [error] = body["errors"]
    assert error["extensions"]["code"] == "NOT_SUPPORTED_BY_V2" and error["extensions"]["policy"] == "cloud-all"
    assert "SECURE or COMMUNITY" in error["message"]
    resp, body = await gql(client, 'mutation { podRentInterruptable(input: {bidPerGpu: 0.2, name: "s", '
                                   'imageName: "i", gpuTypeId: "NVIDIA A40", cloudType: SECURE}) { id } }')
    assert body["errors"][0]["extensions"]["policy"] == "interruptible"
    assert "spot" in body["errors"][0]["message"]
    assert not [s for s in recorder if s.method == "POST"]  # nothing was created


async def test_spot_pods_are_refused_by_default_and_on_demand_only_when_emulated(client, aiohttp_client, proxy_config,
                                                                               recorder):
    """interruptible is strict by default (policies.yaml: an on-demand pod is another price, never chosen unasked)."""
    resp, body = await gql(client, 'mutation { podRentInterruptable(input: {bidPerGpu: 0.2, name: "spot", '
                                   'imageName: "i", gpuTypeId: "NVIDIA A40", cloudType: SECURE}) { id podType } }')
    assert body["data"] == {"podRentInterruptable": None}
    assert body["errors"][0]["extensions"]["policy"] == "interruptible"
    assert not [s for s in recorder if s.method == "POST"]  # nothing was created
    client = await aiohttp_client(graphql_app(dataclasses.replace(proxy_config, emulate=frozenset({"interruptible"}))))
    resp, body = await gql(client, 'mutation { podRentInterruptable(input: {bidPerGpu: 0.2, name: "spot", '
                                   'imageName: "i", gpuTypeId: "NVIDIA A40", cloudType: SECURE}) { id podType } }')
    assert resp.status == 200 and body["data"]["podRentInterruptable"]["podType"] == "RESERVED"
    assert "interruptible-on-demand" in resp.headers["X-V1bridge-Emulation"]
    assert "G03" in resp.headers["X-V1bridge-Rules"]


async def test_mutations_run_in_order_and_queries_together(client, recorder):
    pod_id = await make_pod(client, "order")
    recorder.clear()
    resp, body = await gql(client, 'mutation { a: podStop(input: {podId: "%s"}) { desiredStatus } '
                                   'b: podResume(input: {podId: "%s"}) { desiredStatus } }' % (pod_id, pod_id))
    assert body["data"] == {"a": {"desiredStatus": "EXITED"}, "b": {"desiredStatus": "RUNNING"}}
    actions = [s.body["action"] for s in recorder if s.path.endswith("/action")]
    assert actions == ["stop", "start"]


async def test_delete_template_by_name_and_update_registry_gap(client, recorder):
    resp, body = await gql(client, 'mutation { saveTemplate(input: {name: "t1", imageName: "i:1"}) { id } }')
    tid = body["data"]["saveTemplate"]["id"]
    resp, body = await gql(client, 'mutation { deleteTemplate(templateName: "t1") }')
    assert resp.status == 200 and body == {"data": {"deleteTemplate": None}}
    assert ("DELETE", f"/v2/templates/{tid}") in [(s.method, s.path) for s in recorder]
    resp, body = await gql(client, 'mutation { deleteTemplate(templateName: "t1") }')
    assert body["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    resp, body = await gql(client, 'mutation { updateRegistryAuth(input: {id: "r1", username: "u", password: "p"}) '
                                   '{ id } }')
    assert body["data"] == {"updateRegistryAuth": None}
    error = body["errors"][0]
    assert error["extensions"] == {"code": "NOT_SUPPORTED_BY_V2", "status": 501, "operation": "updateRegistryAuth",
                                   "rule": "G33"}
    assert "POST /v2/registries" in error["message"]


async def test_current_spend_is_the_sum_of_the_running_pods(client):
    await make_pod(client, "a")
    await make_pod(client, "b")
    _, body = await gql(client, "{ myself { currentSpendPerHr pods { costPerHr desiredStatus } } }")
    pods = body["data"]["myself"]["pods"]
    assert body["data"]["myself"]["currentSpendPerHr"] == pytest.approx(
        sum(p["costPerHr"] for p in pods if p["desiredStatus"] == "RUNNING"))


async def test_introspection_is_answered_by_graphql_core(client, recorder):
    resp, body = await gql(client, "{ __schema { queryType { name } mutationType { name } } }")
    assert resp.status == 200 and body == {"data": {"__schema": {"queryType": {"name": "Query"},
                                                                 "mutationType": {"name": "Mutation"}}}}
    resp, body = await gql(client, '{ __type(name: "CloudTypeEnum") { enumValues { name } } }')
    assert [v["name"] for v in body["data"]["__type"]["enumValues"]] == ["ALL", "SECURE", "COMMUNITY"]
    assert [(s.method, s.path) for s in recorder] == [("GET", "/v2/account/ssh-keys")] * 2  # the key, nothing else
