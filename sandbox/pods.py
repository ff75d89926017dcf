"""Pods: create, read, patch, actions and the status clock."""
from __future__ import annotations

import hashlib
import secrets
from functools import lru_cache
from typing import Any

from aiohttp import web

import orjson

from . import catalog, command
from .common import BODY, OWNER, QUERY, SANDBOX, json_response, no_content
from .paging import newest_first
from .problems import NO_CAPACITY, Problem
from .service import (
    DISK_RATE,
    IDLE_VOLUME_RATE,
    Sandbox,
    check_cpu,
    check_cuda,
    iso,
    new_id,
    parse_ports,
    pick_cuda,
    public,
)

LEGAL_ACTIONS = {
    "RUNNING": ["stop", "restart", "terminate"],
    "EXITED": ["start", "terminate"],
    "ERROR": ["start", "terminate"],
    "PROVISIONING": ["stop", "terminate"],
    "STARTING": ["stop", "terminate"],
    "TERMINATED": [],
}
_CONTAINER_FIELDS = ("image", "disk", "ports", "registry")
#: POST /v2/pods: a body, or the deployment request assembled from it and its template, above this many bytes -> 413
MAX_CREATE_BYTES = 102_400


def status_of(sb: Sandbox, doc: dict[str, Any], now: float) -> str:
    phases = doc["_phases"]
    step = sb.config.transition_seconds
    if step <= 0 or len(phases) == 1:
        return phases[-1]
    idx = int((now - doc["_t0"]) / step)
    return phases[min(idx, len(phases) - 1)]


@lru_cache(maxsize=65536)
def _ip_for(pod_id: str) -> str:
    """A pod's own public address: never in 100.64.0.0/10, the edge proxy's range (`_proxy_ip_for`), which
    clients (and v1's publicIp) read as "not the pod's" -- about 1 pod in 700 landed there and lost its v1
    publicIp."""
    h = hashlib.sha256(pod_id.encode()).digest()
    first, second = 38 + h[0] % 180, h[1]
    if first == 100 and 64 <= second < 128:
        second -= 64
    return f"{first}.{second}.{h[2]}.{1 + h[3] % 250}"


@lru_cache(maxsize=65536)
def _proxy_ip_for(pod_id: str) -> str:
    h = hashlib.sha256(("proxy:" + pod_id).encode()).digest()
    return f"100.{64 + h[0] % 64}.{h[1]}.{1 + h[2] % 250}"


def _public_ip(doc: dict[str, Any]) -> str:
    return _ip_for(doc["id"])


@lru_cache(maxsize=65536)
def _port_for(pod_id: str, private: int) -> int:
    h = hashlib.sha256(f"{pod_id}:{private}".encode()).digest()
    return 10000 + int.from_bytes(h[:2], "big") % 50000


def _public_port(doc: dict[str, Any], private: int) -> int:
    return _port_for(doc["id"], private)


@lru_cache(maxsize=4096)
def _parsed_ports(ports: tuple[str, ...]) -> list[tuple[int, str]]:
    return parse_ports(list(ports))


def compute_rate(doc: dict[str, Any]) -> float:
    if "gpu" in doc:
        gpu = catalog.GPU_BY_ID[doc["gpu"]["id"]]
        price = gpu.secure_price if doc["cloud"] == "SECURE" else (gpu.community_price or gpu.secure_price)
        return price * doc["gpu"]["count"]
    flavor = catalog.CPU_BY_ID[doc["cpu"]["id"]]
    return flavor.secure_per_vcpu * doc["cpu"]["vcpuCount"]


def _volume_size(doc: dict[str, Any]) -> int:
    persistent = doc["mounts"].get("persistent")
    return persistent["size"] if persistent else 0


def running_rates(doc: dict[str, Any]) -> dict[str, float]:
    compute = compute_rate(doc)
    return {
        "gpu": compute if "gpu" in doc else 0.0,
        "cpu": compute if "cpu" in doc else 0.0,
        "disk": (doc["disk"] + _volume_size(doc)) * DISK_RATE,
    }


def stopped_rates(doc: dict[str, Any]) -> dict[str, float]:
    return {"gpu": 0.0, "cpu": 0.0, "disk": _volume_size(doc) * IDLE_VOLUME_RATE}


def view(sb: Sandbox, doc: dict[str, Any], now: float | None = None) -> dict[str, Any]:
    """The Pod as v2 shows it at this instant (status, actions, cost, runtime, ssh)."""
    now = sb.clock() if now is None else now
    status = status_of(sb, doc, now)
    out = public(doc)
    out.update(command.view(doc["args"]))
    actions = list(LEGAL_ACTIONS[status])
    if doc["locked"] and "stop" in actions:
        actions.remove("stop")
    out["status"] = status
    out["actions"] = actions
    active = status not in ("EXITED", "TERMINATED", "ERROR")
    out["cost"] = round(compute_rate(doc) + (doc["disk"] + _volume_size(doc)) * DISK_RATE, 3) if active else 0.0
    ip = _public_ip(doc)
    username = f"{doc['id']}-{doc['_sshtag']}"
    proxy = {
        "host": "ssh.runpod.io",
        "port": 22,
        "username": username,
        "command": f"ssh {username}@ssh.runpod.io",
    }
    direct = None
    if status == "RUNNING":
        ports = []
        for private, proto in _parsed_ports(tuple(doc["ports"])):
            if proto == "http":  # served through the edge proxy: its address (100.64.0.0/10), not the pod's
                ports.append({"private": private, "public": None, "type": "http", "ip": _proxy_ip_for(doc["id"])})
            else:
                pub = _public_port(doc, private)
                ports.append({"private": private, "public": pub, "type": proto, "ip": ip})
                if private == 22 and proto == "tcp":
                    direct = {"host": ip, "port": pub, "username": "root", "command": f"ssh root@{ip} -p {pub}"}
        started = doc["_t0"] + (len(doc["_phases"]) - 1) * max(sb.config.transition_seconds, 0)
        runtime: dict[str, Any] = {
            "uptime": max(0, int(now - started)),
            "gpus": [{"util": 0, "memoryUtil": 0} for _ in range(doc["gpu"]["count"])] if "gpu" in doc else [],
            "cpu": {"util": 1},
            "memory": {"util": 3},
            "ports": ports,
        }
        out["runtime"] = runtime
    else:
        out["runtime"] = None
    out["ssh"] = {"proxy": proxy, "direct": direct}
    gn = doc["_globalNetworking"]
    out["globalNetworking"] = (
        {"enabled": True, "ip": doc["_gnip"], "internalDns": f"{doc['id']}.runpod.internal"}
        if gn
        else {"enabled": False}
    )
    if doc.get("_cluster"):
        out["cluster"] = dict(doc["_cluster"])
    return out


def resolve_template(sb: Sandbox, template_id: str, owner: str, for_serverless: bool) -> dict[str, Any]:
    """One of the caller's templates or a public one; 404 otherwise, 422 for the wrong kind."""
    tpl = sb.store.get("template", template_id)
    if tpl is None or tpl.get("_deleted") or (tpl["_owner"] != owner and not tpl["public"]):
        tpl = catalog.CATALOG_TEMPLATES.get(template_id)
    if tpl is None:
        raise Problem(404, f"template '{template_id}' not found")
    if tpl["serverless"] != for_serverless:
        kind = "a serverless" if tpl["serverless"] else "a pod"
        target = "an endpoint" if for_serverless else "a pod"
        raise Problem(422, f"template '{template_id}' is {kind} template and cannot be used for {target}",
                      [f"$.templateId: template '{template_id}' is {kind} template"])
    return tpl


def check_registry(sb: Sandbox, registry: str | None, owner: str, status: int = 404) -> None:
    if registry is None:
        return
    doc = sb.store.get("registry", registry)
    if doc is None or doc.get("_deleted") or doc["_owner"] != owner:
        raise Problem(status, f"registry '{registry}' not found")


def check_mounts(body_mounts: dict[str, Any], is_cpu: bool) -> None:
    if body_mounts.get("persistent") and body_mounts.get("network"):
        raise Problem(400, "mounts.persistent and mounts.network are mutually exclusive; set at most one")
    if is_cpu and body_mounts.get("persistent"):
        raise Problem(400, "mounts.persistent is not supported on CPU pods; use a network volume")


def build_pod(sb: Sandbox, body: dict[str, Any], owner: str, cluster: dict | None = None) -> dict[str, Any]:
    """Validate the rules the schema cannot express and return a new pod document (not stored)."""
    has_gpu, has_cpu = "gpu" in body, "cpu" in body
    if has_gpu == has_cpu:
        raise Problem(400, "exactly one of gpu or cpu must be set")
    body = dict(body)
    start_ssh = body.pop("startSsh", None)
    start_jupyter = body.pop("startJupyter", None)
    gpu_req = dict(body["gpu"]) if has_gpu else None
    base_args = ""
    if "templateId" in body:
        tpl = resolve_template(sb, body["templateId"], owner, for_serverless=False)
        for field in _CONTAINER_FIELDS:
            if field not in body and tpl.get(field) is not None:
                body[field] = tpl[field]
        base_args = tpl.get("args") or ""
        body["env"] = {**tpl.get("env", {}), **body.get("env", {})}
        if "mounts" not in body and tpl["mounts"].get("persistent") and not has_cpu:
            body["mounts"] = {"persistent": dict(tpl["mounts"]["persistent"])}
        start_ssh = tpl["startSsh"] if start_ssh is None else start_ssh
        start_jupyter = tpl["startJupyter"] if start_jupyter is None else start_jupyter
        if gpu_req is not None and "allowedCudaVersions" not in gpu_req and "minCudaVersion" not in gpu_req:
            if tpl.get("allowedCudaVersions"):
                gpu_req["allowedCudaVersions"] = list(tpl["allowedCudaVersions"])
    args = command.resolve(body, base_args)
    body["args"] = base_args if args is None else args
    body.pop("cmd", None)
    body.pop("entrypoint", None)
    if "templateId" in body and len(orjson.dumps(body)) > MAX_CREATE_BYTES:
        raise Problem(413, f"the deployment request assembled from the body and template '{body['templateId']}' "
                           f"is larger than {MAX_CREATE_BYTES} bytes; shrink env or command values")
    mounts = body.get("mounts") or {}
    check_mounts(mounts, has_cpu)
    check_registry(sb, body.get("registry"), owner)
    ports = body.get("ports", [])
    parse_ports(ports)
    wanted = body.get("dataCenterIds") or None
    need_dc = None
    for mount in mounts.get("network", []):
        volume = sb.store.get("volume", mount["volumeId"])
        if volume is None or volume.get("_deleted") or volume["_owner"] != owner:
            raise Problem(404, f"network volume '{mount['volumeId']}' not found")
        need_dc = volume["dataCenter"]
    global_net = bool(body.get("globalNetworking"))
    cloud = body.get("cloud", "SECURE")
    cuda = None
    doc: dict[str, Any] = {"id": new_id(14), "_owner": owner, "name": body["name"]}
    if gpu_req is not None:
        check_cuda(gpu_req.get("allowedCudaVersions"), gpu_req.get("minCudaVersion"))
        gpu = catalog.GPU_BY_ID.get(gpu_req["id"])
        if gpu is None:
            raise Problem(400, f"gpu.id '{gpu_req['id']}' is not a GPU type; see GET /v2/catalog/gpus")
        if global_net and gpu.manufacturer != "NVIDIA":
            raise Problem(400, "globalNetworking requires an NVIDIA GPU")
        count = gpu_req.get("count", 1)
        vcpu_each, ram_each = catalog.host_share(gpu)
        if gpu_req.get("minVcpuCountPerGpu", 0) > vcpu_each or gpu_req.get("minRamPerGpu", 0) > ram_each:
            raise Problem(400, NO_CAPACITY)  # floors only narrow the machines that qualify
        dc = sb.place_gpu(gpu, count, cloud, wanted, need_dc, global_net)
        cuda = pick_cuda(gpu, gpu_req.get("allowedCudaVersions"), gpu_req.get("minCudaVersion"))
        compute = {"gpu": {"id": gpu.id, "count": count, "vcpuCount": vcpu_each * count, "memory": ram_each * count}}
    else:
        if global_net:
            raise Problem(400, "globalNetworking requires an NVIDIA GPU")
        flavor = check_cpu(body["cpu"])
        dc = sb.place_cpu(flavor, wanted, need_dc)
        vcpu = body["cpu"]["vcpuCount"]
        compute = {"cpu": {"id": flavor.id, "vcpuCount": vcpu, "memory": max(1, int(vcpu * flavor.ram_per_vcpu))}}
    env = dict(body.get("env", {}))
    if start_ssh and "PUBLIC_KEY" not in env:
        keys = sb.store.get_account(owner, "ssh_keys", [])
        if keys:
            env["PUBLIC_KEY"] = "\n".join(keys)
    if start_jupyter and "JUPYTER_PASSWORD" not in env:
        env["JUPYTER_PASSWORD"] = secrets.token_urlsafe(12)
    now = sb.clock()
    doc.update(
        {
            "image": body["image"],
            "args": body.get("args", ""),
            "disk": body.get("disk", 50),
            "mounts": mounts,
            "ports": list(ports),
            "env": env,
            "registry": body.get("registry"),
            "cloud": cloud,
            "dataCenterId": dc,
            "cudaVersion": cuda,
            "template": None,
            "locked": False,
            "createdAt": iso(now),
            "startedAt": iso(now),
            **compute,
            "_phases": ["PROVISIONING", "STARTING", "RUNNING"],
            "_t0": now,
            "_sshtag": secrets.token_hex(4),
            "_globalNetworking": global_net,
            "_gnip": f"10.{(now_int := int(now * 1000)) % 200}.{now_int % 250}.{1 + now_int % 250}" if global_net else None,
            "_cluster": cluster,
        }
    )
    if cluster is None:
        sb.meter(doc, running_rates(doc))
    return doc


# ---- handlers -----------------------------------------------------------------
async def create_pod(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    doc = build_pod(sb, request[BODY], request[OWNER])
    sb.store.put("pod", doc)
    return json_response(view(sb, doc), status=201)


async def list_pods(request: web.Request) -> web.Response:
    """Newest first; cluster members are removed after the page is cut, so pages can be short."""
    sb: Sandbox = request.app[SANDBOX]
    query = request[QUERY]
    include_cluster = query.get("includeClusterPods", False)
    now = sb.clock()
    page, pagination = sb.pager.page(
        "listPods", query, newest_first(sb.live("pod", request[OWNER])), default_limit=1000,
        keep=None if include_cluster else (lambda d: not d.get("_cluster")),
    )
    return json_response({"pods": [view(sb, d, now) for d in page], "pagination": pagination})


async def get_pod(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    doc = sb.fetch("pod", request.match_info["id"], request[OWNER], "pod")
    return json_response(view(sb, doc))


def _refuse_cluster_member(doc: dict[str, Any]) -> None:
    if doc.get("_cluster"):
        cid = doc["_cluster"]["id"]
        raise Problem(409, f"pod '{doc['id']}' belongs to cluster '{cid}'; manage it through /v2/clusters/{cid}")


async def update_pod(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    owner = request[OWNER]
    doc = sb.fetch("pod", request.match_info["id"], owner, "pod")
    _refuse_cluster_member(doc)
    body = dict(request[BODY])
    base_args = doc["args"]
    if "templateId" in body:
        tpl = resolve_template(sb, body.pop("templateId"), owner, for_serverless=False)
        for field in _CONTAINER_FIELDS:
            if field not in body and tpl.get(field) is not None:
                body[field] = tpl[field]
        base_args = tpl.get("args") or base_args
        body["env"] = {**tpl.get("env", {}), **body.get("env", {})}
    args = command.resolve(body, base_args)
    if args is None and base_args != doc["args"]:
        args = base_args  # the template's command, as its other container fields
    if args is not None:
        body["args"] = args
    new_mounts = None
    if body.get("mounts"):
        mounts = body["mounts"]
        check_mounts(mounts, "cpu" in doc)
        if "network" in mounts and not mounts["network"]:
            raise Problem(400, "mounts.network cannot be cleared with []; mounts cannot be removed")
        current = doc["mounts"]
        for kind in mounts:
            if kind not in current:
                raise Problem(400, f"mounts.{kind} cannot be added: the mount kind is fixed when the pod is created")
        if "network" in mounts and mounts["network"][0]["volumeId"] != current["network"][0]["volumeId"]:
            raise Problem(400, "mounts.network[0].volumeId is immutable")
        new_mounts = {**current, **mounts}
    if "registry" in body:
        check_registry(sb, body["registry"], owner)
    if "ports" in body:
        parse_ports(body["ports"])
    if body.get("globalNetworking") and ("cpu" in doc or catalog.GPU_BY_ID[doc["gpu"]["id"]].manufacturer != "NVIDIA"):
        raise Problem(400, "globalNetworking requires an NVIDIA GPU")
    if body.get("globalNetworking") and not catalog.DATA_CENTER_BY_ID[doc["dataCenterId"]].global_network:
        raise Problem(400, f"data center {doc['dataCenterId']} does not support global networking")
    updated = dict(doc)
    for field in ("name", "image", "args", "disk", "ports", "env", "registry", "locked"):
        if field in body:
            updated[field] = body[field]
    if new_mounts is not None:
        updated["mounts"] = new_mounts
    if "globalNetworking" in body:
        # takes effect at the next start or restart
        updated["_pendingGlobalNetworking"] = body["globalNetworking"]
    status = status_of(sb, doc, sb.clock())
    if status not in ("EXITED", "ERROR"):
        sb.meter(updated, running_rates(updated))
    else:
        sb.meter(updated, stopped_rates(updated))
    sb.store.put("pod", updated)
    return json_response(view(sb, updated))


def terminate(sb: Sandbox, doc: dict[str, Any]) -> None:
    sb.meter(doc, None)
    doc["_deleted"] = sb.clock()
    doc["_phases"] = ["TERMINATED"]
    sb.store.put("pod", doc)


async def delete_pod(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    doc = sb.fetch("pod", request.match_info["id"], request[OWNER], "pod")
    _refuse_cluster_member(doc)
    terminate(sb, dict(doc))
    return no_content()


async def pod_action(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    doc = sb.fetch("pod", request.match_info["id"], request[OWNER], "pod")
    _refuse_cluster_member(doc)
    action = request[BODY]["action"]
    now = sb.clock()
    status = status_of(sb, doc, now)
    legal = LEGAL_ACTIONS[status]
    if action not in legal:
        raise Problem(
            409,
            f"cannot {action} pod '{doc['id']}' while it is {status}; allowed now: {', '.join(legal) or 'none'}",
        )
    if action == "stop" and doc["locked"]:
        raise Problem(409, f"pod '{doc['id']}' is locked; unlock it with PATCH {{\"locked\": false}} before stopping")
    updated = dict(doc)
    if action == "terminate":
        terminate(sb, updated)
        return no_content()
    if action == "stop":
        updated["_phases"] = ["EXITED"]
        updated["_t0"] = now
        sb.meter(updated, stopped_rates(updated))
    else:  # start, restart
        updated["_phases"] = ["STARTING", "RUNNING"]
        updated["_t0"] = now  # no PROVISIONING: a stopped pod keeps its host
        updated["startedAt"] = iso(now)
        if "_pendingGlobalNetworking" in updated:
            updated["_globalNetworking"] = updated.pop("_pendingGlobalNetworking")
            updated["_gnip"] = (updated.get("_gnip") or "10.64.0.2") if updated["_globalNetworking"] else None
        sb.meter(updated, running_rates(updated))
    sb.store.put("pod", updated)
    return json_response(view(sb, updated, now))
