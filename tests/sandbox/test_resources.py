"""Templates, network volumes, registries, delegations."""
from __future__ import annotations

from .tools import auth, gpu_pod, queue_endpoint


async def call(client, method, path, headers, body=None, status=200):
    resp = await client.request(method, path, json=body, headers=headers)
    data = await resp.json() if resp.status != 204 else None
    assert resp.status == status, data
    return data


async def test_template_defaults_list_wrapper_and_unique_names(sandbox_client, sandbox_headers):
    h = sandbox_headers
    tpl = await call(sandbox_client, "POST", "/v2/templates", h, {"name": "t1", "image": "img:1"}, 201)
    assert tpl == {"id": tpl["id"], "name": "t1", "image": "img:1", "args": "", "cmd": [], "entrypoint": [], "disk": 50, "mounts": {}, "ports": [],
                   "env": {}, "registry": None, "serverless": False, "public": False, "category": "NVIDIA",
                   "startSsh": True, "startJupyter": True, "allowedCudaVersions": []}
    problem = await call(sandbox_client, "POST", "/v2/templates", h, {"name": "t1", "image": "img:2"}, 400)
    assert problem["detail"] == "template name 't1' is already in use; template names must be unique"
    other = await call(sandbox_client, "POST", "/v2/templates", h, {"name": "t2", "image": "img:2"}, 201)
    problem = await call(sandbox_client, "PATCH", f"/v2/templates/{other['id']}", h, {"name": "t1"}, 400)
    assert "already in use" in problem["detail"]
    listed = await call(sandbox_client, "GET", "/v2/templates", h)
    assert [t["name"] for t in listed["templates"]] == ["t1", "t2"]


async def test_template_network_mount_is_422(sandbox_client, sandbox_headers):
    problem = await call(sandbox_client, "POST", "/v2/templates", sandbox_headers,
                         {"name": "t", "image": "i", "mounts": {"network": [{"volumeId": "v", "path": "/d"}]}}, 422)
    assert "$.mounts: additional properties 'network' not allowed" in problem["errors"]


async def test_catalog_template_is_readable_but_not_editable(sandbox_client, sandbox_headers):
    h = sandbox_headers
    tpl = await call(sandbox_client, "GET", "/v2/templates/runpod-torch-v240", h)
    assert tpl["public"] is True and tpl["registry"] is None
    await call(sandbox_client, "PATCH", "/v2/templates/runpod-torch-v240", h, {"name": "mine"}, 404)
    await call(sandbox_client, "DELETE", "/v2/templates/runpod-torch-v240", h, None, 404)
    official = await call(sandbox_client, "GET", "/v2/catalog/templates", h)
    assert {t["id"] for t in official["templates"]} >= {"runpod-torch-v240", "runpod-ubuntu"}
    community = await call(sandbox_client, "GET", "/v2/catalog/templates?source=community", h)
    assert all(t["public"] for t in community["templates"]) and community["templates"]


async def test_pod_created_from_template_keeps_no_link_and_never_blocks_its_delete(sandbox_client, sandbox_headers):
    h = sandbox_headers
    tpl = await call(sandbox_client, "POST", "/v2/templates", h, {"name": "pt", "image": "i"}, 201)
    pod = await call(sandbox_client, "POST", "/v2/pods", h, {"name": "p", "templateId": tpl["id"],
                                                             "gpu": {"id": "NVIDIA RTX A5000"}}, 201)
    assert pod["template"] is None
    await call(sandbox_client, "DELETE", f"/v2/templates/{tpl['id']}", h, None, 204)
    assert (await call(sandbox_client, "GET", f"/v2/pods/{pod['id']}", h))["image"] == "i"


async def test_endpoint_from_template_keeps_its_own_copy_and_deleting_either_keeps_the_other(
        sandbox_client, sandbox_headers):
    h = sandbox_headers
    sls = await call(sandbox_client, "POST", "/v2/templates", h, {"name": "st", "image": "w", "serverless": True}, 201)
    body = queue_endpoint(templateId=sls["id"])
    del body["image"]
    first = await call(sandbox_client, "POST", "/v2/serverless", h, body, 201)
    assert first["image"] == "w"
    await call(sandbox_client, "DELETE", f"/v2/serverless/{first['id']}", h, None, 204)
    assert (await call(sandbox_client, "GET", f"/v2/templates/{sls['id']}", h))["image"] == "w"

    second = await call(sandbox_client, "POST", "/v2/serverless", h, body, 201)
    await call(sandbox_client, "PATCH", f"/v2/templates/{sls['id']}", h, {"image": "w:2"})
    assert (await call(sandbox_client, "GET", f"/v2/serverless/{second['id']}", h))["image"] == "w"
    await call(sandbox_client, "DELETE", f"/v2/templates/{sls['id']}", h, None, 204)
    assert (await call(sandbox_client, "GET", f"/v2/serverless/{second['id']}", h))["image"] == "w"
    templates = await call(sandbox_client, "GET", "/v2/templates", h)
    assert templates["templates"] == []


async def test_network_volume_rules(sandbox_client, sandbox_headers):
    h = sandbox_headers
    vol = await call(sandbox_client, "POST", "/v2/network-volumes", h,
                     {"name": "data", "size": 100, "dataCenter": "US-TX-4"}, 201)
    assert vol == {"id": vol["id"], "name": "data", "size": 100, "dataCenter": "US-TX-4", "type": "HIGH_PERFORMANCE"}
    grown = await call(sandbox_client, "PATCH", f"/v2/network-volumes/{vol['id']}", h, {"size": 200})
    assert grown["size"] == 200
    problem = await call(sandbox_client, "PATCH", f"/v2/network-volumes/{vol['id']}", h, {"size": 150}, 400)
    assert problem["detail"] == "network volume size can only grow: 150 GB is below the current 200 GB"
    problem = await call(sandbox_client, "PATCH", f"/v2/network-volumes/{vol['id']}", h, {"type": "STANDARD"}, 422)
    assert problem["errors"] == ["$: additional properties 'type' not allowed"]
    problem = await call(sandbox_client, "PATCH", f"/v2/network-volumes/{vol['id']}", h, {}, 422)
    assert problem["errors"] and problem["errors"][0].startswith("$: ")
    problem = await call(sandbox_client, "POST", "/v2/network-volumes", h,
                         {"name": "d", "size": 10, "dataCenter": "EU-RO-1", "type": "FAST"}, 422)
    assert problem["errors"] == ['$.type: "FAST" is not one of "STANDARD", "HIGH_PERFORMANCE"']
    problem = await call(sandbox_client, "POST", "/v2/network-volumes", h,
                         {"name": "d", "size": 10, "dataCenter": "AP-JP-1"}, 400)
    assert problem["detail"].startswith("data center 'AP-JP-1' does not support network volumes; data centers that do: EU-RO-1")
    problem = await call(sandbox_client, "POST", "/v2/network-volumes", h,
                         {"name": "d", "size": 10, "dataCenter": "EU-RO-1", "type": "HIGH_PERFORMANCE"}, 400)
    assert problem["detail"] == "data center 'EU-RO-1' does not offer HIGH_PERFORMANCE network volumes; it offers STANDARD"
    problem = await call(sandbox_client, "POST", "/v2/network-volumes", h,
                         {"name": "d", "size": 5000, "dataCenter": "EU-RO-1", "dataCenterId": "EU-RO-1"}, 422)
    assert "$.size: 5000 is greater than the maximum of 4096" in problem["errors"]
    listed = await call(sandbox_client, "GET", "/v2/network-volumes", h)
    assert [v["id"] for v in listed["networkVolumes"]] == [vol["id"]]
    await call(sandbox_client, "DELETE", f"/v2/network-volumes/{vol['id']}", h, None, 204)
    await call(sandbox_client, "GET", f"/v2/network-volumes/{vol['id']}", h, None, 404)


async def test_registry_delete_rules(sandbox_client, sandbox_headers):
    h = sandbox_headers
    reg = await call(sandbox_client, "POST", "/v2/registries", h, {"name": "ghcr", "username": "u", "password": "p"}, 201)
    assert reg == {"id": reg["id"], "name": "ghcr"}
    tpl = await call(sandbox_client, "POST", "/v2/templates", h, {"name": "t", "image": "i", "registry": reg["id"]}, 201)
    pod = await call(sandbox_client, "POST", "/v2/pods", h, gpu_pod(registry=reg["id"]), 201)
    problem = await call(sandbox_client, "DELETE", f"/v2/registries/{reg['id']}", h, None, 400)
    assert problem["detail"] == f"registry '{reg['id']}' is in use by pod '{pod['id']}'; it cannot be deleted"
    await call(sandbox_client, "PATCH", f"/v2/pods/{pod['id']}", h, {"registry": None})
    await call(sandbox_client, "DELETE", f"/v2/registries/{reg['id']}", h, None, 204)
    assert (await call(sandbox_client, "GET", f"/v2/templates/{tpl['id']}", h))["registry"] is None
    assert await call(sandbox_client, "GET", "/v2/registries", h) == {"registries": []}
    problem = await call(sandbox_client, "POST", "/v2/registries", h, {"name": "x", "username": "u"}, 422)
    assert problem["errors"] == ["$: missing property 'password'"]


async def test_delegations(sandbox_client, sandbox_keys):
    alice, bob = auth(sandbox_keys[0]), auth(sandbox_keys[1])
    arn = "arn:aws:ecr:eu-west-1:123456789012:repository/team/app:v3"
    d = await call(sandbox_client, "POST", "/v2/registries/delegations", alice, {"resource": arn, "name": "app"}, 201)
    assert (d["repository"], d["tag"], d["awsRegion"], d["dockerRegistryUri"]) == (
        "team/app", "v3", "eu-west-1", "123456789012.dkr.ecr.eu-west-1.amazonaws.com")
    assert (await call(sandbox_client, "GET", "/v2/registries/delegations", bob)) == {"delegations": []}
    await call(sandbox_client, "DELETE", f"/v2/registries/delegations/{d['id']}", bob, None, 403)
    await call(sandbox_client, "POST", "/v2/registries/delegations", alice, {"resource": "not-an-arn"}, 400)
    await call(sandbox_client, "DELETE", f"/v2/registries/delegations/{d['id']}", alice, None, 204)
    await call(sandbox_client, "DELETE", f"/v2/registries/delegations/{d['id']}", alice, None, 404)


async def test_ssh_keys_are_validated_and_per_account(sandbox_client, sandbox_keys):
    alice, bob = auth(sandbox_keys[0]), auth(sandbox_keys[1])
    problem = await call(sandbox_client, "PUT", "/v2/account/ssh-keys", alice, {"keys": ["nope"]}, 422)
    assert problem["errors"][0].startswith("$.keys[0]: ")
    await call(sandbox_client, "PUT", "/v2/account/ssh-keys", alice, {"keys": ["ssh-rsa AAAA a@b"]})
    assert await call(sandbox_client, "GET", "/v2/account/ssh-keys", bob) == {"keys": []}
