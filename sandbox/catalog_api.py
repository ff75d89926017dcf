"""GET /v2/catalog/*: GPU types, CPU flavors, data centers and public templates."""
from __future__ import annotations

from typing import Any

from aiohttp import web

from . import catalog, command
from .common import QUERY, SANDBOX, json_response
from .problems import Problem
from .service import Sandbox, public

_AVAILABILITY_ONLY = ("count", "cloud", "countryCodes", "cudaVersions", "minCudaVersion")


def _gpu_params(request: web.Request) -> dict[str, Any]:
    q = dict(request[QUERY])
    if "count" not in request.query:  # the schema default is not a request for availability
        q.pop("count", None)
    with_availability = "AVAILABILITY" in q.get("include", [])
    if with_availability and not q.get("product"):
        raise Problem(400, "include=AVAILABILITY requires product (POD, CLUSTER or SERVERLESS)")
    if not with_availability:
        if "product" in q:
            raise Problem(400, "product is valid only with include=AVAILABILITY")
        for name in _AVAILABILITY_ONLY:
            if name in request.query:
                raise Problem(400, f"{name} is valid only with include=AVAILABILITY")
    if "cudaVersions" in q and "minCudaVersion" in q:
        raise Problem(400, "cudaVersions and minCudaVersion are mutually exclusive")
    return q


def _gpu_json(sb: Sandbox, g: catalog.GpuType, q: dict[str, Any]) -> dict[str, Any] | None:
    price: dict[str, float] = {"secure": g.secure_price, "community": g.community_price or 0.0}
    if g.serverless_price is not None:
        price["serverless"] = g.serverless_price
    out: dict[str, Any] = {
        "id": g.id, "name": g.name, "pool": g.pool, "manufacturer": g.manufacturer, "memory": g.memory,
        "secure": True, "community": g.community_price is not None, "price": price,
        "maxCount": {"secure": g.max_secure, "community": g.max_community},
    }
    if "AVAILABILITY" not in q.get("include", []):
        return out
    products = q["product"]
    cloud = q.get("cloud", "SECURE")
    count = q.get("count", 1)
    countries = set(q.get("countryCodes", []))
    fits = (
        (cloud == "SECURE" or g.community_price is not None)
        and count <= (g.max_secure if cloud == "SECURE" else g.max_community)
        and not (products == ["SERVERLESS"] and g.pool is None)
    )
    cudas = list(g.cuda)
    if q.get("cudaVersions"):
        cudas = [v for v in cudas if v in q["cudaVersions"]]
    if q.get("minCudaVersion"):
        floor = catalog.cuda_key(q["minCudaVersion"])
        cudas = [v for v in cudas if catalog.cuda_key(v) >= floor]
    dcs = []
    for dc_id, level in g.placements:
        dc = catalog.DATA_CENTER_BY_ID[dc_id]
        if countries and dc.country not in countries:
            continue
        ok = fits and bool(cudas) and sb.gpu_available(g.id, dc_id, level)
        dcs.append({"id": dc_id, "name": dc.name, "availability": level if ok else "NONE"})
    if countries and not dcs:
        return None
    overall = catalog.level_max([d["availability"] for d in dcs])
    out["availability"] = overall
    if overall != "NONE":
        out["dataCenters"] = dcs
    if g.cuda:
        out["cudaVersions"] = [{"version": v, "available": overall != "NONE"} for v in cudas]
    return out


async def list_gpu_types(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    q = _gpu_params(request)
    gpus = [g for g in (_gpu_json(sb, t, q) for t in catalog.GPU_TYPES) if g is not None]
    return json_response({"gpus": gpus})


async def get_gpu_type(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    q = _gpu_params(request)
    gpu = catalog.GPU_BY_ID.get(request.match_info["id"])
    if gpu is None:
        raise Problem(404, f"GPU type '{request.match_info['id']}' not found")
    out = _gpu_json(sb, gpu, {**q, "countryCodes": []})
    return json_response(out)


def _cpu_params(request: web.Request) -> dict[str, Any]:
    q = request[QUERY]
    with_availability = "AVAILABILITY" in q.get("include", [])
    if with_availability and not q.get("product"):
        raise Problem(400, "include=AVAILABILITY requires product (POD or SERVERLESS)")
    if not with_availability:
        for name in ("product", "vcpuCount"):
            if name in q:
                raise Problem(400, f"{name} is valid only with include=AVAILABILITY")
    n = q.get("vcpuCount")
    if n is not None and n & (n - 1):
        raise Problem(400, f"vcpuCount {n} must be a power of two")
    return q


def _cpu_json(c: catalog.CpuFlavor, q: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": c.id, "name": c.name, "group": c.group, "vcpu": {"min": c.vcpu_min, "max": c.vcpu_max},
        "ramGbPerVcpu": c.ram_per_vcpu,
        "price": {"securePerVcpu": c.secure_per_vcpu, "serverlessPerVcpu": c.serverless_per_vcpu},
    }
    if "AVAILABILITY" in q.get("include", []):
        n = q.get("vcpuCount")
        fits = n is None or c.vcpu_min <= n <= c.vcpu_max
        dcs = [{"id": dc, "name": catalog.DATA_CENTER_BY_ID[dc].name, "availability": lvl if fits else "NONE"}
               for dc, lvl in c.placements]
        out["availability"] = catalog.level_max([d["availability"] for d in dcs])
        if out["availability"] != "NONE":
            out["dataCenters"] = dcs
    return out


async def list_cpu_types(request: web.Request) -> web.Response:
    q = _cpu_params(request)
    return json_response({"cpus": [_cpu_json(c, q) for c in catalog.CPU_FLAVORS]})


async def get_cpu_type(request: web.Request) -> web.Response:
    q = _cpu_params(request)
    flavor = catalog.CPU_BY_ID.get(request.match_info["id"])
    if flavor is None:
        raise Problem(404, f"CPU type '{request.match_info['id']}' not found")
    return json_response(_cpu_json(flavor, q))


def _dc_json(sb: Sandbox, dc: catalog.DataCenter, include: list[str]) -> dict[str, Any]:
    out = catalog.dc_json(dc)
    if "GPU_AVAILABILITY" in include:
        gpus = [{"id": g.id, "name": g.name,
                 "availability": lvl if sb.gpu_available(g.id, dc.id, lvl) else "NONE"}
                for g in catalog.GPU_TYPES for d, lvl in g.placements if d == dc.id]
        if gpus:
            out["gpuAvailability"] = gpus
    if "CPU_AVAILABILITY" in include:
        cpus = [{"id": c.id, "name": c.name, "availability": lvl}
                for c in catalog.CPU_FLAVORS for d, lvl in c.placements if d == dc.id]
        if cpus:
            out["cpuAvailability"] = cpus
    return out


async def list_data_centers(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    q = request[QUERY]
    out = []
    for dc in catalog.DATA_CENTERS:
        if q.get("regions") and dc.region not in q["regions"]:
            continue
        if q.get("networkVolumeTypes") and not set(q["networkVolumeTypes"]) & set(dc.volume_types):
            continue
        if q.get("compliance") and not set(q["compliance"]) <= set(dc.compliance):
            continue
        if "globalNetwork" in q and dc.global_network != q["globalNetwork"]:
            continue
        out.append(_dc_json(sb, dc, q.get("include", [])))
    return json_response({"dataCenters": out})


async def get_data_center(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    dc = catalog.DATA_CENTER_BY_ID.get(request.match_info["id"])
    if dc is None:
        raise Problem(404, f"data center '{request.match_info['id']}' not found")
    return json_response(_dc_json(sb, dc, request[QUERY].get("include", [])))


async def list_public_templates(request: web.Request) -> web.Response:
    source = request[QUERY].get("source", "official")
    templates = [{**public(t), **command.view(t["args"])} for t in catalog.CATALOG_TEMPLATES.values() if t["_source"] == source][:100]
    # not paginated (at most 100), but the body carries the exhausted marker, as the service's prose says
    return json_response({"templates": templates, "pagination": {"nextCursor": None, "hasNextPage": False}})
