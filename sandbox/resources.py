"""Templates, network volumes, registries, ECR delegations and account SSH keys."""
from __future__ import annotations

import re
import uuid
from typing import Any

from aiohttp import web

from . import catalog, command
from .common import BODY, OWNER, QUERY, SANDBOX, json_response, no_content
from .pods import check_registry
from .paging import oldest_first
from .problems import Problem
from .service import NV_RATES, Sandbox, iso, new_id, parse_ports, public

# ---- templates ------------------------------------------------------------------
_TEMPLATE_FIELDS = ("name", "image", "disk", "ports", "env", "registry", "serverless", "public",
                    "category", "startSsh", "startJupyter", "allowedCudaVersions")


def template_view(doc: dict[str, Any]) -> dict[str, Any]:
    out = public(doc)
    out.update(command.view(doc["args"]))
    return out


def _check_template_name(sb: Sandbox, owner: str, name: str, own_id: str | None = None) -> None:
    for other in sb.live("template", owner):
        if other["name"] == name and other["id"] != own_id:
            raise Problem(400, f"template name '{name}' is already in use; template names must be unique")


async def create_template(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    owner, body = request[OWNER], request[BODY]
    _check_template_name(sb, owner, body["name"])
    check_registry(sb, body.get("registry"), owner, status=400)
    parse_ports(body.get("ports", []))
    doc = {
        "id": new_id(10),
        "_owner": owner,
        "name": body["name"],
        "image": body["image"],
        "args": command.resolve(body) or "",
        "disk": body.get("disk", 50),
        "mounts": body.get("mounts") or {},
        "ports": body.get("ports", []),
        "env": body.get("env", {}),
        "registry": body.get("registry"),
        "serverless": body.get("serverless", False),
        "public": body.get("public", False),
        "category": body.get("category", "NVIDIA"),
        "startSsh": body.get("startSsh", True),
        "startJupyter": body.get("startJupyter", True),
        "allowedCudaVersions": body.get("allowedCudaVersions", []),
    }
    sb.store.put("template", doc)
    return json_response(template_view(doc), status=201)


async def list_templates(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    page, pagination = sb.pager.page("listTemplates", request[QUERY], oldest_first(sb.live("template", request[OWNER])),
                                     default_limit=1000, descending=False)
    return json_response({"templates": [template_view(d) for d in page], "pagination": pagination})


async def get_template(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    tid = request.match_info["id"]
    if tid in catalog.CATALOG_TEMPLATES and sb.store.get("template", tid) is None:
        return json_response(template_view(catalog.CATALOG_TEMPLATES[tid]))
    doc = sb.store.get("template", tid)
    if doc is not None and not doc.get("_deleted") and doc["public"]:
        return json_response(template_view(doc))
    return json_response(template_view(sb.fetch("template", tid, request[OWNER], "template")))


async def update_template(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    owner, body = request[OWNER], request[BODY]
    doc = sb.fetch("template", request.match_info["id"], owner, "template")
    if "name" in body:
        _check_template_name(sb, owner, body["name"], doc["id"])
    if "registry" in body:
        check_registry(sb, body["registry"], owner, status=400)
    if "ports" in body:
        parse_ports(body["ports"])
    updated = dict(doc)
    for field in _TEMPLATE_FIELDS:
        if field in body:
            updated[field] = body[field]
    args = command.resolve(body, doc["args"])
    if args is not None:
        updated["args"] = args
    if body.get("mounts"):
        updated["mounts"] = {**doc["mounts"], **body["mounts"]}
    sb.store.put("template", updated)
    return json_response(template_view(updated))


async def delete_template(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    owner = request[OWNER]
    doc = sb.fetch("template", request.match_info["id"], owner, "template")
    # v2 refuses the delete only while a pod's `template` field names the template. Pods and endpoints
    # created from a template took a copy of its settings and keep no link (pod `template` stays null as
    # observed, v1-to-v2 §2.1; an endpoint's configuration is its own), so nothing created from it blocks
    # the delete, and each keeps running on its copy.
    sb.store.delete("template", doc["id"])
    return no_content()


# ---- network volumes -------------------------------------------------------------
async def create_network_volume(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    owner, body = request[OWNER], request[BODY]
    supported = [dc.id for dc in catalog.DATA_CENTERS if dc.volume_types]
    dc = catalog.DATA_CENTER_BY_ID.get(body["dataCenter"])
    if dc is None or not dc.volume_types:
        raise Problem(
            400,
            f"data center '{body['dataCenter']}' does not support network volumes; "
            f"data centers that do: {', '.join(supported)}",
        )
    vtype = body.get("type", dc.volume_types[0])
    if vtype not in dc.volume_types:
        raise Problem(400, f"data center '{dc.id}' does not offer {vtype} network volumes; it offers {', '.join(dc.volume_types)}")
    doc = {
        "id": new_id(10),
        "_owner": owner,
        "name": body["name"],
        "size": body["size"],
        "dataCenter": dc.id,
        "type": vtype,
    }
    sb.meter(doc, {vtype: body["size"] * NV_RATES[vtype]})
    sb.store.put("volume", doc)
    return json_response(public(doc), status=201)


async def list_network_volumes(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    return json_response({"networkVolumes": [public(d) for d in sb.live("volume", request[OWNER])]})


async def get_network_volume(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    return json_response(public(sb.fetch("volume", request.match_info["id"], request[OWNER], "network volume")))


async def update_network_volume(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    body = request[BODY]
    doc = sb.fetch("volume", request.match_info["id"], request[OWNER], "network volume")
    if "size" in body and body["size"] < doc["size"]:
        raise Problem(400, f"network volume size can only grow: {body['size']} GB is below the current {doc['size']} GB")
    updated = dict(doc)
    updated.update({k: body[k] for k in ("name", "size") if k in body})
    if updated["size"] != doc["size"]:
        sb.meter(updated, {updated["type"]: updated["size"] * NV_RATES[updated["type"]]})
    sb.store.put("volume", updated)
    return json_response(public(updated))


async def delete_network_volume(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    doc = dict(sb.fetch("volume", request.match_info["id"], request[OWNER], "network volume"))
    sb.meter(doc, None)
    doc["_deleted"] = sb.clock()
    sb.store.put("volume", doc)
    return no_content()


# ---- registries ----------------------------------------------------------------------
async def create_registry(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    owner, body = request[OWNER], request[BODY]
    for other in sb.live("registry", owner):
        if other["name"] == body["name"]:
            raise Problem(400, f"registry name '{body['name']}' is already in use")
    # credentials are write-only: the password is never stored
    doc = {"id": new_id(25, "cl"), "_owner": owner, "name": body["name"], "_username": body["username"]}
    sb.store.put("registry", doc)
    return json_response(public(doc), status=201)


async def list_registries(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    return json_response({"registries": [public(d) for d in sb.live("registry", request[OWNER])]})


async def get_registry(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    return json_response(public(sb.fetch("registry", request.match_info["id"], request[OWNER], "registry")))


async def delete_registry(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    owner = request[OWNER]
    doc = sb.fetch("registry", request.match_info["id"], owner, "registry")
    for pod in sb.live("pod", owner):
        if pod.get("registry") == doc["id"]:
            raise Problem(400, f"registry '{doc['id']}' is in use by pod '{pod['id']}'; it cannot be deleted")
    for tpl in sb.live("template", owner):
        if tpl.get("registry") == doc["id"]:
            sb.store.put("template", {**tpl, "registry": None})
    sb.store.delete("registry", doc["id"])
    return no_content()


# ---- ECR delegations -------------------------------------------------------------
_ECR_ARN = re.compile(
    r"^arn:aws:ecr:(?P<region>[a-z]{2}(-[a-z]+)+-\d):(?P<account>\d{12}):repository/(?P<repo>[a-z0-9][a-z0-9._/-]*?)(:(?P<tag>[\w.-]+))?$"
)


async def list_delegations(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    return json_response({"delegations": [public(d) for d in sb.live("delegation", request[OWNER])]})


async def create_delegation(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    owner, body = request[OWNER], request[BODY]
    match = _ECR_ARN.match(body["resource"])
    if not match:
        raise Problem(
            400,
            "resource must be an ECR repository ARN such as arn:aws:ecr:us-east-1:123456789012:repository/my-repo[:tag]",
        )
    region, account = match["region"], match["account"]
    doc = {
        "id": str(uuid.uuid4()),
        "_owner": owner,
        "name": body.get("name"),
        "delegatorUserId": owner,
        "awsUser": f"arn:aws:iam::{account}:role/runpod-ecr-pull",
        "repository": match["repo"],
        "tag": match["tag"] or "latest",
        "awsRegion": region,
        "dockerRegistryUri": f"{account}.dkr.ecr.{region}.amazonaws.com",
        "createdAt": iso(sb.clock()),
    }
    sb.store.put("delegation", doc)
    return json_response(public(doc), status=201)


async def revoke_delegation(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    doc = sb.fetch("delegation", request.match_info["id"], request[OWNER], "delegation")
    sb.store.delete("delegation", doc["id"])
    return no_content()


# ---- account SSH keys ---------------------------------------------------------------
async def get_ssh_keys(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    return json_response({"keys": sb.store.get_account(request[OWNER], "ssh_keys", [])})


async def update_ssh_keys(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    keys = list(dict.fromkeys(request[BODY]["keys"]))
    sb.store.set_account(request[OWNER], "ssh_keys", keys)
    return json_response({"keys": keys})
