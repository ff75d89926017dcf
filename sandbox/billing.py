"""GET /v2/billing*: time-bucketed spend computed from the usage intervals the resources recorded."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from aiohttp import web

from .common import OWNER, QUERY, SANDBOX, json_response
from .problems import Problem
from .service import Sandbox, iso, parse_iso

MAX_BUCKETS = 5000
UTC = timezone.utc


def _floor(dt: datetime, size: str) -> datetime:
    if size == "hour":
        return dt.replace(minute=0, second=0, microsecond=0)
    day = dt.replace(hour=0, minute=0, second=0, microsecond=0)
    if size == "day":
        return day
    if size == "week":
        return day - timedelta(days=day.weekday())
    if size == "month":
        return day.replace(day=1)
    return day.replace(month=1, day=1)


def _next(dt: datetime, size: str) -> datetime:
    if size == "hour":
        return dt + timedelta(hours=1)
    if size == "day":
        return dt + timedelta(days=1)
    if size == "week":
        return dt + timedelta(weeks=1)
    if size == "month":
        return dt.replace(year=dt.year + dt.month // 12, month=dt.month % 12 + 1)
    return dt.replace(year=dt.year + 1)


def _prev(dt: datetime, size: str) -> datetime:
    if size == "hour":
        return dt - timedelta(hours=1)
    if size == "day":
        return dt - timedelta(days=1)
    if size == "week":
        return dt - timedelta(weeks=1)
    if size == "month":
        return dt.replace(year=dt.year - (dt.month == 1), month=(dt.month - 2) % 12 + 1)
    return dt.replace(year=dt.year - 1)


def _parse(value: str, name: str) -> datetime:
    try:
        return datetime.fromtimestamp(parse_iso(value), UTC)
    except (ValueError, OverflowError, OSError):
        raise Problem(400, f"{name} '{value}' is not a valid RFC 3339 time") from None


def buckets(sb: Sandbox, q: dict[str, Any]) -> tuple[str, list[tuple[float, float]]]:
    """Resolve the query window (defaults, snapping, lastN) into half-open bucket edges."""
    size = q.get("bucketSize", "day")
    now = datetime.fromtimestamp(sb.clock(), UTC)
    try:
        if "lastN" in q:
            if "startTime" in q or "endTime" in q:
                raise Problem(400, "lastN is mutually exclusive with startTime/endTime; send one or the other")
            if q["lastN"] > MAX_BUCKETS:
                raise Problem(400, f"lastN must not exceed {MAX_BUCKETS}")
            end = _next(_floor(now, size), size)
            start = end
            for _ in range(q["lastN"]):
                start = _prev(start, size)
        else:
            end_raw = _parse(q["endTime"], "endTime") if "endTime" in q else now
            start_raw = _parse(q["startTime"], "startTime") if "startTime" in q else now - timedelta(days=30)
            if start_raw >= end_raw:
                raise Problem(400, "startTime must be before endTime")
            start = _floor(start_raw, size)
            end = _floor(end_raw, size)
            if end != end_raw:
                end = _next(end, size)
    except (OverflowError, ValueError):
        raise Problem(400, "the requested billing window is out of range") from None
    edges: list[tuple[float, float]] = []
    cur = start
    while cur < end:
        nxt = _next(cur, size)
        edges.append((cur.timestamp(), nxt.timestamp()))
        if len(edges) > MAX_BUCKETS:
            raise Problem(400, f"the requested window spans more than {MAX_BUCKETS} {size} buckets")
        cur = nxt
    return size, edges


def _amounts(doc: dict[str, Any], lo: float, hi: float, now: float) -> dict[str, float]:
    out: dict[str, float] = {}
    for start, end, rates in doc.get("_usage", []):
        end = now if end is None else end
        overlap = min(end, hi) - max(start, lo)
        if overlap <= 0:
            continue
        hours = overlap / 3600.0
        for comp, rate in rates.items():
            out[comp] = out.get(comp, 0.0) + rate * hours
    return out


def _touches(doc: dict[str, Any], lo: float, hi: float, now: float) -> bool:
    return any(s < hi and (now if e is None else e) > lo for s, e, _ in doc.get("_usage", []))


def _r(x: float) -> float:
    return round(x, 6)


def _per_resource(
    request: web.Request,
    kind: str,
    id_field: str,
    filter_name: str,
    unique_name: str,
    shape: Callable[[dict[str, float]], dict[str, float]],
) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    q = request[QUERY]
    size, edges = buckets(sb, q)
    now = sb.clock()
    lo, hi = (edges[0][0], edges[-1][1]) if edges else (0.0, 0.0)
    docs = [d for d in sb.store.owned(kind, request[OWNER]) if edges and _touches(d, lo, hi, now)]
    wanted = q.get(filter_name)
    if wanted is not None:
        docs = [d for d in docs if d["id"] == wanted]
    records = []
    totals: dict[str, float] = {}
    for doc in docs:
        for b_lo, b_hi in edges:
            amounts = shape(_amounts(doc, b_lo, b_hi, now))
            for k, v in amounts.items():
                totals[k] = totals.get(k, 0.0) + v
            records.append({"startTime": iso(b_lo), "endTime": iso(b_hi), **{k: _r(v) for k, v in amounts.items()},
                            id_field: doc["id"]})
    query = {"startTime": iso(lo), "endTime": iso(hi), "bucketSize": size, filter_name: wanted}
    empty = shape({})
    metadata = {
        "query": query,
        "recordCount": len(records),
        unique_name: len(docs),
        "totals": {k: _r(totals.get(k, 0.0)) for k in empty},
    }
    return json_response({"records": records, "metadata": metadata})


def _pod_shape(a: dict[str, float]) -> dict[str, float]:
    gpu, cpu, disk = a.get("gpu", 0.0), a.get("cpu", 0.0), a.get("disk", 0.0)
    return {"totalAmount": gpu + cpu + disk, "gpuAmount": gpu, "cpuAmount": cpu, "diskAmount": disk}


def _serverless_shape(a: dict[str, float]) -> dict[str, float]:
    gpu, cpu, disk, fee = a.get("gpu", 0.0), a.get("cpu", 0.0), a.get("disk", 0.0), a.get("fee", 0.0)
    return {"totalAmount": gpu + cpu + disk + fee, "gpuAmount": gpu, "cpuAmount": cpu, "diskAmount": disk,
            "feeAmount": fee}


def _volume_shape(a: dict[str, float]) -> dict[str, float]:
    std, hp = a.get("STANDARD", 0.0), a.get("HIGH_PERFORMANCE", 0.0)
    return {"totalAmount": std + hp, "standardAmount": std, "highPerformanceAmount": hp}


def _cluster_shape(a: dict[str, float]) -> dict[str, float]:
    gpu, disk, net = a.get("gpu", 0.0), a.get("disk", 0.0), a.get("networking", 0.0)
    return {"totalAmount": gpu + disk + net, "gpuAmount": gpu, "diskAmount": disk, "networkingAmount": net}


async def pod_billing(request: web.Request) -> web.Response:
    return _per_resource(request, "pod", "podId", "podId", "uniquePodCount", _pod_shape)


async def serverless_billing(request: web.Request) -> web.Response:
    return _per_resource(request, "endpoint", "serverlessId", "serverlessId", "uniqueServerlessCount", _serverless_shape)


async def network_volume_billing(request: web.Request) -> web.Response:
    return _per_resource(request, "volume", "networkVolumeId", "networkVolumeId", "uniqueNetworkVolumeCount", _volume_shape)


async def cluster_billing(request: web.Request) -> web.Response:
    return _per_resource(request, "cluster", "clusterId", "clusterId", "uniqueClusterCount", _cluster_shape)


async def endpoint_billing(request: web.Request) -> web.Response:
    """Public-endpoint spend: the sandbox runs no public endpoints, so every bucket is zero."""
    sb: Sandbox = request.app[SANDBOX]
    size, edges = buckets(sb, request[QUERY])
    records = [{"startTime": iso(lo), "endTime": iso(hi), "totalAmount": 0.0} for lo, hi in edges]
    lo, hi = (edges[0][0], edges[-1][1]) if edges else (0.0, 0.0)
    metadata = {"query": {"startTime": iso(lo), "endTime": iso(hi), "bucketSize": size},
                "recordCount": len(records), "totals": {"totalAmount": 0.0}}
    return json_response({"records": records, "metadata": metadata})


_AGG_FIELDS = ("totalAmount", "podGpuAmount", "podCpuAmount", "podDiskAmount", "serverlessGpuAmount",
               "serverlessCpuAmount", "serverlessDiskAmount", "serverlessFeeAmount", "storageStandardAmount",
               "storageHighPerformanceAmount", "endpointAmount", "clusterGpuAmount", "clusterDiskAmount",
               "clusterNetworkingAmount")
_AGG_MAP = {
    "pod": {"gpu": "podGpuAmount", "cpu": "podCpuAmount", "disk": "podDiskAmount"},
    "endpoint": {"gpu": "serverlessGpuAmount", "cpu": "serverlessCpuAmount", "disk": "serverlessDiskAmount",
                 "fee": "serverlessFeeAmount"},
    "volume": {"STANDARD": "storageStandardAmount", "HIGH_PERFORMANCE": "storageHighPerformanceAmount"},
    "cluster": {"gpu": "clusterGpuAmount", "disk": "clusterDiskAmount", "networking": "clusterNetworkingAmount"},
}


async def aggregate_billing(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    size, edges = buckets(sb, request[QUERY])
    now = sb.clock()
    owner = request[OWNER]
    docs = {kind: list(sb.store.owned(kind, owner)) for kind in _AGG_MAP}
    records = []
    totals = dict.fromkeys(_AGG_FIELDS, 0.0)
    for lo, hi in edges:
        amounts = dict.fromkeys(_AGG_FIELDS, 0.0)
        for kind, mapping in _AGG_MAP.items():
            for doc in docs[kind]:
                for comp, value in _amounts(doc, lo, hi, now).items():
                    amounts[mapping[comp]] += value
        amounts["totalAmount"] = sum(v for k, v in amounts.items() if k != "totalAmount")
        for k, v in amounts.items():
            totals[k] += v
        records.append({"startTime": iso(lo), "endTime": iso(hi), **{k: _r(v) for k, v in amounts.items()}})
    lo, hi = (edges[0][0], edges[-1][1]) if edges else (0.0, 0.0)
    metadata = {"query": {"startTime": iso(lo), "endTime": iso(hi), "bucketSize": size},
                "recordCount": len(records), "totals": {k: _r(v) for k, v in totals.items()}}
    return json_response({"records": records, "metadata": metadata})
