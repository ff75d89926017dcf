"""Instant Clusters: a named group of identical GPU pods in one data center."""
from __future__ import annotations

from typing import Any

from aiohttp import web

from . import catalog
from .common import BODY, OWNER, SANDBOX, json_response, no_content
from .pods import build_pod, parse_ports, status_of, terminate, view as pod_view
from .problems import Problem
from .service import DISK_RATE, Sandbox, iso, new_id

_TEMPLATE_EXCLUSIVE = ("image", "args", "entrypoint", "cmd", "disk", "env", "ports", "mounts")
_ROLES = {"SLURM": ("SLURM_CONTROLLER", "SLURM_COMPUTE"), "RAY": ("RAY_HEAD", "RAY_WORKER")}


def _members(sb: Sandbox, doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in sb.live("pod", doc["_owner"]) if (p.get("_cluster") or {}).get("id") == doc["id"]]


def view(sb: Sandbox, doc: dict[str, Any]) -> dict[str, Any]:
    now = sb.clock()
    members = _members(sb, doc)
    by_status: dict[str, int] = {}
    primary = None
    for pod in members:
        status = status_of(sb, pod, now)
        by_status[status] = by_status.get(status, 0) + 1
        if pod["_cluster"]["rank"] == 0:
            primary = {"podId": pod["id"], "status": status}
            if status == "RUNNING" and "22/tcp" in pod["ports"]:
                ssh = pod_view(sb, pod, now)["ssh"]["direct"]
                if ssh:
                    primary["sshEndpoint"] = f"{ssh['host']}:{ssh['port']}"
    out = {k: v for k, v in doc.items() if k[0] != "_"}
    out["pods"] = {"total": len(members), "byStatus": by_status}
    if primary:
        out["primary"] = primary
    return out


async def create_cluster(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    owner, body = request[OWNER], request[BODY]
    compute = body["compute"]
    gpu = catalog.GPU_BY_ID.get(compute["gpuTypeId"])
    if gpu is None:
        raise Problem(400, f"compute.gpuTypeId '{compute['gpuTypeId']}' is not a GPU type; see GET /v2/catalog/gpus")
    parse_ports(body.get("ports", []))
    cid = new_id(14)
    pod_body: dict[str, Any] = {"name": body["name"], "gpu": {"id": gpu.id, "count": compute["gpuCountPerPod"]}}
    if "templateId" in body:
        # every member is built from one pod template, which also brings the registry credential
        inline = [f for f in _TEMPLATE_EXCLUSIVE if f in body]
        if inline:
            raise Problem(400, f"templateId cannot be combined with {', '.join(inline)}; the template supplies "
                               "the container configuration")
        pod_body["templateId"] = body["templateId"]
    else:
        pod_body["image"] = body.get("image", "runpod/pytorch:1.0.2-cu1281-torch280-ubuntu2404")
    for field in ("args", "cmd", "entrypoint", "disk", "ports", "env", "mounts", "dataCenterIds", "startSsh",
                  "startJupyter"):
        if field in body:
            pod_body[field] = body[field]
    roles = _ROLES.get(body["type"])
    pods = []
    dc = None
    for rank in range(compute["podCount"]):
        member = {"id": cid, "rank": rank, "ip": f"10.65.0.{rank + 2}" if rank < 250 else f"10.65.1.{rank - 248}"}
        if roles:
            member["role"] = roles[0] if rank == 0 else roles[1]
        this_body = {**pod_body, "name": f"{body['name']}-{rank}"}
        if dc:
            this_body["dataCenterIds"] = [dc]
        pod = build_pod(sb, this_body, owner, cluster=member)
        dc = pod["dataCenterId"]
        pods.append(pod)
    now = sb.clock()
    doc = {
        "id": cid,
        "_owner": owner,
        "name": body["name"],
        "type": body["type"],
        "compute": dict(compute),
        "dataCenterId": dc,
        "network": {"cidr": "10.65.0.0/16", "vxlanId": 4000 + int(now) % 1000, "vxlanPort": 4789},
        "createdAt": iso(now),
    }
    if "templateId" in body:
        doc["template"] = body["templateId"]  # the cluster keeps the link
    n = compute["podCount"]
    sb.meter(doc, {
        "gpu": n * compute["gpuCountPerPod"] * gpu.secure_price,
        "disk": n * pods[0]["disk"] * DISK_RATE,
        "networking": n * 0.05,
    })
    for pod in pods:
        sb.store.put("pod", pod)
    sb.store.put("cluster", doc)
    return json_response(view(sb, doc), status=201)


async def list_clusters(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    return json_response({"clusters": [view(sb, d) for d in sb.live("cluster", request[OWNER])]})


async def get_cluster(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    return json_response(view(sb, sb.fetch("cluster", request.match_info["id"], request[OWNER], "cluster")))


async def update_cluster(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    doc = dict(sb.fetch("cluster", request.match_info["id"], request[OWNER], "cluster"))
    doc["name"] = request[BODY]["name"]
    sb.store.put("cluster", doc)
    return json_response(view(sb, doc))


async def delete_cluster(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    doc = dict(sb.fetch("cluster", request.match_info["id"], request[OWNER], "cluster"))
    for pod in _members(sb, doc):
        terminate(sb, dict(pod))
    sb.meter(doc, None)
    doc["_deleted"] = sb.clock()
    sb.store.put("cluster", doc)
    return no_content()


async def list_cluster_pods(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    doc = sb.fetch("cluster", request.match_info["id"], request[OWNER], "cluster")
    now = sb.clock()
    return json_response({"pods": [pod_view(sb, p, now) for p in _members(sb, doc)]})
