"""Serverless endpoints: CRUD, synthetic workers, releases."""
from __future__ import annotations

import hashlib
import uuid
from typing import Any

from aiohttp import web

from . import catalog, command
from .common import BODY, OWNER, QUERY, SANDBOX, json_response, no_content
from .pods import check_registry, resolve_template
from .paging import newest_first
from .problems import Problem
from .service import DISK_RATE, Sandbox, check_cpu, check_cuda, iso, new_id, parse_ports, public

_CONTAINER = ("image", "args", "disk", "ports", "env", "registry")


def _request_urls(sb: Sandbox, doc: dict[str, Any]) -> dict[str, str]:
    base = f"{sb.config.serverless_base}/v2/{doc['id']}"
    if doc["type"] == "LOAD_BALANCER":
        lb = f"https://{doc['id']}.api.runpod.ai"
        return {"base": lb, "health": f"{lb}/ping"}
    return {
        "run": f"{base}/run",
        "runSync": f"{base}/runsync",
        "status": f"{base}/status",
        "stream": f"{base}/stream",
        "cancel": f"{base}/cancel",
        "retry": f"{base}/retry",
        "purgeQueue": f"{base}/purge-queue",
        "health": f"{base}/health",
    }


def _idle_timeout_forbidden(doc_type: str, scaling: dict[str, Any]) -> bool:
    return doc_type == "QUEUE" and scaling["type"] == "REQUEST_COUNT"


def view(sb: Sandbox, doc: dict[str, Any]) -> dict[str, Any]:
    out = public(doc)
    out.update(command.view(doc["args"]))
    out["requestUrls"] = _request_urls(sb, doc)
    workers = dict(doc["workers"])
    if _idle_timeout_forbidden(doc["type"], doc["scaling"]):
        workers.pop("idleTimeout", None)
    out["workers"] = workers
    return out


def _check_gpu(gpu: dict[str, Any]) -> None:
    check_cuda(gpu.get("allowedCudaVersions"), gpu.get("minCudaVersion"))
    pools = gpu.get("pools", [])
    for pool in pools:
        if pool not in catalog.POOLS:
            raise Problem(400, f"gpu.pools: unknown GPU pool '{pool}'; valid pools: {', '.join(catalog.POOLS)}")
    members = {t for p in pools for t in catalog.POOLS[p]}
    excluded = [t.strip() for t in gpu.get("excludedTypes", [])]
    for gtype in excluded:
        if gtype not in members:
            raise Problem(400, f"gpu.excludedTypes: '{gtype}' is not a GPU type in the selected pools")
    if pools and members <= set(excluded):
        raise Problem(400, "gpu.excludedTypes removes every GPU type of the selected pools")


def _cpu_view(cpu: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for i, entry in enumerate(cpu):
        flavor = check_cpu(entry, f"cpu[{i}]")
        out.append({"id": flavor.id, "vcpuCount": entry["vcpuCount"],
                    "memory": max(1, int(entry["vcpuCount"] * flavor.ram_per_vcpu))})
    return out


def _check_volumes(sb: Sandbox, ids: list[str], owner: str) -> None:
    for vid in ids:
        vol = sb.store.get("volume", vid)
        if vol is None or vol.get("_deleted") or vol["_owner"] != owner:
            raise Problem(404, f"network volume '{vid}' not found")


def _check_dcs(ids: list[str]) -> None:
    for dc in ids:
        if dc not in catalog.DATA_CENTER_BY_ID:
            raise Problem(400, f"dataCenterIds: unknown data center '{dc}'")


def _rates(doc: dict[str, Any]) -> dict[str, float]:
    n = doc["workers"]["min"]
    gpu = cpu = 0.0
    if doc.get("gpu"):
        prices = [catalog.GPU_BY_ID[t].serverless_price or 0.0 for t in _eligible_types(doc)]
        gpu = n * doc["gpu"]["count"] * (min(prices) if prices else 0.0)
    else:
        first = doc["cpu"][0]
        cpu = n * first["vcpuCount"] * catalog.CPU_BY_ID[first["id"]].serverless_per_vcpu
    return {"gpu": gpu, "cpu": cpu, "disk": n * doc["disk"] * DISK_RATE, "fee": 0.0}


def _eligible_types(doc: dict[str, Any]) -> list[str]:
    excluded = {t.strip() for t in doc["gpu"].get("excludedTypes", [])}
    return [t for p in doc["gpu"]["pools"] for t in catalog.POOLS[p] if t not in excluded]


def _release(doc: dict[str, Any], now: float, diff: list[dict[str, Any]]) -> None:
    version = doc.get("_version", 0) + 1
    doc["_version"] = version
    doc.setdefault("_releases", []).insert(0, {
        "id": str(uuid.uuid4()), "version": version, "source": "MANUAL", "buildId": None,
        "createdByUserId": doc["_owner"], "createdAt": iso(now), "diff": diff,
    })
    doc["_rolloutAt"] = now


async def create_endpoint(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    owner = request[OWNER]
    body = dict(request[BODY])
    if ("gpu" in body) == ("cpu" in body):
        raise Problem(400, "exactly one of gpu or cpu must be set")
    gpu = dict(body["gpu"]) if "gpu" in body else None
    base_args = ""
    if "templateId" in body:
        tpl = resolve_template(sb, body["templateId"], owner, for_serverless=True)
        for field in ("image", "disk", "ports", "registry"):
            if field not in body and tpl.get(field) is not None:
                body[field] = tpl[field]
        base_args = tpl.get("args") or ""
        body["env"] = {**tpl.get("env", {}), **body.get("env", {})}
        if gpu is not None and "allowedCudaVersions" not in gpu and "minCudaVersion" not in gpu and tpl.get("allowedCudaVersions"):
            gpu["allowedCudaVersions"] = list(tpl["allowedCudaVersions"])
    args = command.resolve(body, base_args)
    body["args"] = base_args if args is None else args
    workers = {"min": 0, "max": 3, "idleTimeout": 10, **body.get("workers", {})}
    scaling = body["scaling"]
    if _idle_timeout_forbidden(body["type"], scaling) and "idleTimeout" in body.get("workers", {}):
        raise Problem(422, "workers.idleTimeout does not apply to a QUEUE endpoint scaling on REQUEST_COUNT",
                      ["$.workers.idleTimeout: not allowed with type QUEUE and scaling.type REQUEST_COUNT"])
    if workers["min"] > workers["max"]:
        raise Problem(400, f"workers.min ({workers['min']}) must not exceed workers.max ({workers['max']})")
    if gpu is not None:
        _check_gpu(gpu)
    cpu = _cpu_view(body["cpu"]) if "cpu" in body else None
    check_registry(sb, body.get("registry"), owner)
    parse_ports(body.get("ports", []))
    _check_volumes(sb, body.get("networkVolumes", []), owner)
    _check_dcs(body.get("dataCenterIds", []))
    now = sb.clock()
    doc: dict[str, Any] = {
        "id": new_id(14),
        "_owner": owner,
        "name": body["name"],
        "type": body["type"],
        "image": body["image"],
        "args": body.get("args", ""),
        "disk": body.get("disk", 20),
        "env": body.get("env", {}),
        "ports": body.get("ports", []),
        "registry": body.get("registry"),
    }
    if gpu is not None:
        doc["gpu"] = {
            "pools": gpu["pools"],
            "excludedTypes": gpu.get("excludedTypes", []),
            "count": gpu.get("count", 1),
            "allowedCudaVersions": gpu.get("allowedCudaVersions", []),
            "minCudaVersion": gpu.get("minCudaVersion"),
        }
    else:
        doc["gpu"] = None
        doc["cpu"] = cpu
    doc.update({
        "workers": workers,
        "scaling": scaling,
        "dataCenterIds": body.get("dataCenterIds", []),
        "networkVolumes": body.get("networkVolumes", []),
        # v2.json documents 300000, the live service answers 0 when it is omitted (v1-to-v2 Q10)
        "timeout": body.get("timeout", 0),
        "flashboot": body.get("flashboot", "OFF"),
        "createdAt": iso(now),
    })
    _release(doc, now, [])
    sb.meter(doc, _rates(doc))
    sb.store.put("endpoint", doc)
    return json_response(view(sb, doc), status=201)


async def list_endpoints(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    page, pagination = sb.pager.page("listEndpoints", request[QUERY], newest_first(sb.live("endpoint", request[OWNER])),
                                     default_limit=1000)
    return json_response({"endpoints": [view(sb, d) for d in page], "pagination": pagination})


async def get_endpoint(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    return json_response(view(sb, sb.fetch("endpoint", request.match_info["id"], request[OWNER], "endpoint")))


async def update_endpoint(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    owner = request[OWNER]
    doc = sb.fetch("endpoint", request.match_info["id"], owner, "endpoint")
    body = dict(request[BODY])
    is_gpu = doc.get("gpu") is not None
    if "gpu" in body and "cpu" in body:
        raise Problem(400, "send gpu or cpu, not both")
    if ("gpu" in body and not is_gpu) or ("cpu" in body and is_gpu):
        raise Problem(400, "the compute family of an endpoint cannot change: "
                           f"this is a {'GPU' if is_gpu else 'CPU'} endpoint")
    base_args = doc["args"]
    if "templateId" in body:
        tpl = resolve_template(sb, body.pop("templateId"), owner, for_serverless=True)
        for field in ("image", "disk", "ports", "registry"):
            if field not in body and tpl.get(field) is not None:
                body[field] = tpl[field]
        base_args = tpl.get("args") or base_args
        body["env"] = {**tpl.get("env", {}), **body.get("env", {})}
    args = command.resolve(body, base_args)
    if args is None and base_args != doc["args"]:
        args = base_args
    if args is not None:
        body["args"] = args
    updated = dict(doc)
    if "gpu" in body:
        gpu = dict(doc["gpu"])
        patch = body["gpu"]
        if "pools" in patch:
            gpu["pools"] = patch["pools"]
            gpu["excludedTypes"] = patch.get("excludedTypes", [])
        for field in ("count", "allowedCudaVersions"):
            if field in patch:
                gpu[field] = patch[field]
        if "minCudaVersion" in patch:
            gpu["minCudaVersion"] = patch["minCudaVersion"] or None
        _check_gpu(gpu)
        updated["gpu"] = gpu
    if "cpu" in body:
        updated["cpu"] = _cpu_view(body["cpu"])
    scaling = body.get("scaling", doc["scaling"])
    if doc["type"] == "LOAD_BALANCER" and scaling["type"] != "REQUEST_COUNT":
        raise Problem(422, "a LOAD_BALANCER endpoint scales on REQUEST_COUNT only",
                      ["$.scaling.type: must be REQUEST_COUNT for a LOAD_BALANCER endpoint"])
    workers = {**doc["workers"], **body.get("workers", {})}
    if _idle_timeout_forbidden(doc["type"], scaling):
        if "idleTimeout" in body.get("workers", {}):
            raise Problem(422, "workers.idleTimeout does not apply to a QUEUE endpoint scaling on REQUEST_COUNT",
                          ["$.workers.idleTimeout: not allowed with type QUEUE and scaling.type REQUEST_COUNT"])
    else:
        workers.setdefault("idleTimeout", 10)
    if workers["min"] > workers["max"]:
        raise Problem(400, f"workers.min ({workers['min']}) must not exceed workers.max ({workers['max']})")
    if "registry" in body:
        check_registry(sb, body["registry"], owner)
    if "ports" in body:
        parse_ports(body["ports"])
    _check_volumes(sb, body.get("networkVolumes", []), owner)
    _check_dcs(body.get("dataCenterIds", []))
    updated["scaling"] = scaling
    updated["workers"] = workers
    for field in ("name", "dataCenterIds", "networkVolumes", "timeout", "flashboot"):
        if field in body:
            updated[field] = body[field]
    diff = []
    for field in _CONTAINER:
        if field in body and body[field] != doc.get(field):
            diff.append({"field": f"template.{'imageName' if field == 'image' else field}",
                         "old": doc.get(field), "new": body[field]})
            updated[field] = body[field]
    if "gpu" in body and updated["gpu"] != doc["gpu"]:
        diff.append({"field": "gpu", "old": doc["gpu"], "new": updated["gpu"]})
    if "cpu" in body and updated.get("cpu") != doc.get("cpu"):
        diff.append({"field": "cpu", "old": doc.get("cpu"), "new": updated["cpu"]})
    now = sb.clock()
    if diff:
        updated["_releases"] = list(doc["_releases"])
        _release(updated, now, diff)
    sb.meter(updated, _rates(updated))
    sb.store.put("endpoint", updated)
    return json_response(view(sb, updated))


async def delete_endpoint(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    doc = dict(sb.fetch("endpoint", request.match_info["id"], request[OWNER], "endpoint"))
    sb.meter(doc, None)
    doc["_deleted"] = sb.clock()
    sb.store.put("endpoint", doc)
    # the template the endpoint was created from is the user's own resource: the endpoint took a copy of its
    # container settings at create (v2 resolves templateId once), so deleting the endpoint leaves it alone
    return no_content()


def workers_of(sb: Sandbox, doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Active workers: workers.min warm workers, placed on the first eligible type with stock."""
    now = sb.clock()
    count = doc["workers"]["min"]
    if doc.get("gpu"):
        placed = None
        for gtype in _eligible_types(doc):
            g = catalog.GPU_BY_ID[gtype]
            dcs = [dc for dc, lvl in g.placements if sb.gpu_available(gtype, dc, lvl)
                   and (not doc["dataCenterIds"] or dc in doc["dataCenterIds"])]
            if dcs:
                placed = (gtype, dcs[0])
                break
        gpu_count = doc["gpu"]["count"]
    else:
        flavor = catalog.CPU_BY_ID[doc["cpu"][0]["id"]]
        dcs = [dc for dc, _ in flavor.placements if not doc["dataCenterIds"] or dc in doc["dataCenterIds"]]
        placed = (None, dcs[0]) if dcs else None
        gpu_count = 0
    started = doc["_rolloutAt"]
    warm = now - started >= sb.config.transition_seconds
    out = []
    for i in range(count):
        wid = hashlib.sha1(f"{doc['id']}:{i}".encode()).hexdigest()[:14]
        if placed is None:
            out.append({"id": wid, "status": "THROTTLED", "isStale": False, "version": doc["_version"],
                        "gpuCount": gpu_count, "image": doc["image"], "uptimeSeconds": None,
                        "gpuTypeId": None, "dataCenterId": None, "startedAt": None})
            continue
        out.append({
            "id": wid,
            "status": "IDLE" if warm else "INITIALIZING",
            "isStale": False,
            "version": doc["_version"],
            "gpuCount": gpu_count,
            "image": doc["image"],
            "uptimeSeconds": max(0, int(now - started)),
            "gpuTypeId": placed[0],
            "dataCenterId": placed[1],
            "startedAt": iso(started),
        })
    return out


async def list_workers(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    doc = sb.fetch("endpoint", request.match_info["id"], request[OWNER], "endpoint")
    workers = workers_of(sb, doc)
    summary = {k: 0 for k in ("running", "idle", "initializing", "throttled", "unhealthy")}
    for w in workers:
        summary[w["status"].lower()] += 1
    summary["total"] = len(workers)
    return json_response({"workers": workers, "summary": summary, "endpointVersion": doc["_version"]})


async def list_releases(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    doc = sb.fetch("endpoint", request.match_info["id"], request[OWNER], "endpoint")
    total = len(workers_of(sb, doc))
    # rollout and endpointVersion describe the whole endpoint, on every page
    page, pagination = sb.pager.page("listEndpointReleases", request[QUERY], doc["_releases"], default_limit=1000,
                                     path_params={"id": doc["id"]}, seq=lambda rel: rel["version"])
    releases = [{**rel, "workerCount": total if rel["version"] == doc["_version"] else 0} for rel in page]
    rollout = {"inProgress": False, "workersOnLatest": total, "workersTotal": total, "percentOnLatest": 100}
    return json_response({"endpointVersion": doc["_version"], "rollout": rollout, "releases": releases,
                          "pagination": pagination})


# ---- builds (GitHub integration history; the sandbox has no builder, so only seeded builds exist) -----------
def builds_of(sb: Sandbox, endpoint: dict[str, Any]) -> list[dict[str, Any]]:
    return newest_first(b for b in sb.store.all("build") if b["_endpoint"] == endpoint["id"])


async def list_builds(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    doc = sb.fetch("endpoint", request.match_info["id"], request[OWNER], "endpoint")
    page, pagination = sb.pager.page("listEndpointBuilds", request[QUERY], builds_of(sb, doc), default_limit=100,
                                     path_params={"id": doc["id"]})
    return json_response({"builds": [public(b) for b in page], "pagination": pagination})


async def get_build(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    doc = sb.fetch("endpoint", request.match_info["id"], request[OWNER], "endpoint")
    build = sb.store.get("build", request.match_info["buildId"])
    if build is None or build["_endpoint"] != doc["id"]:
        raise Problem(404, f"build '{request.match_info['buildId']}' not found on endpoint '{doc['id']}'")
    return json_response(public(build))
