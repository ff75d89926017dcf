"""The named converters of graphql.yaml: GraphQL arguments -> v1/v2 body values (`args` convert, called with the
value and the whole input object) and v2 record values -> GraphQL field values (`views` convert, called with the
value). v1-era GraphQL spelled lists as comma-separated strings (ports "8888/http,22/tcp", gpuIds
"AMPERE_16,ADA_24") and env as [{key, value}]; v2 uses JSON arrays and objects."""
from __future__ import annotations

import ipaddress
import math
from functools import lru_cache
from typing import Any, Callable

from mappings.errors import InvalidValue


# ------------------------------------------------------------------ arguments (GraphQL -> v1 / v2)


def listed(value: Any, given: dict[str, Any]) -> list[Any]:
    """One value -> a one-entry list (gpuTypeId -> gpuTypeIds, dataCenterId -> dataCenterIds)."""
    return value if isinstance(value, list) else [value]


def comma_list(value: Any, given: dict[str, Any]) -> list[str]:
    """"8888/http, 22/tcp" -> ["8888/http", "22/tcp"]; "" -> []."""
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    return [part.strip() for part in str(value).split(",") if part.strip()]


def env_object(value: Any, given: dict[str, Any]) -> dict[str, str]:
    """[{key, value}] -> {key: value} (a later key wins, as a container's environment would have it)."""
    return {str(item["key"]): "" if item.get("value") is None else str(item["value"])
            for item in value or [] if isinstance(item, dict) and item.get("key")}


def per_gpu(value: Any, given: dict[str, Any]) -> int:
    """A pod-wide floor (minVcpuCount, minMemoryInGb) -> v1's per-GPU floor: divided by gpuCount, rounded up."""
    count = given.get("gpuCount") or 1
    return max(1, math.ceil(int(value) / max(1, int(count))))


def cpu_instance(value: Any, given: dict[str, Any]) -> dict[str, Any]:
    """instanceId "cpu3c-2-4" (flavor-vCPUs-GB) -> v1's cpuFlavorIds [cpu3c] and vcpuCount 2."""
    parts = str(value).split("-")
    if len(parts) < 2 or not parts[1].isdigit():
        raise InvalidValue(f"instanceId {value!r} is not <flavor>-<vCPUs>-<memory GB> (e.g. cpu3c-2-4)")
    return {"cpuFlavorIds": [parts[0]], "vcpuCount": int(parts[1])}


def cpu_instances(value: Any, given: dict[str, Any]) -> list[dict[str, Any]]:
    """instanceIds ["cpu3c-2-4"] -> v2 endpoint cpu [{id: cpu3c, vcpuCount: 2}]."""
    out = []
    for one in value or []:
        fields = cpu_instance(one, given)
        out.append({"id": fields["cpuFlavorIds"][0], "vcpuCount": fields["vcpuCount"]})
    return out


def key_lines(value: Any, given: dict[str, Any]) -> list[str]:
    """pubKey (the account's keys, one per line) -> v2's keys list."""
    return [line.strip() for line in str(value or "").splitlines() if line.strip()]


def endpoint_scaling(body: dict[str, Any]) -> None:
    """v1-era scalerType/scalerValue (set at scaling.type / scaling.value) -> v2's scaling object. A create has
    v1's defaults for both; an update replaces v2's whole scaling object, so scalerValue alone (whose meaning
    depends on the type) is refused rather than sent under a guessed type."""
    scaling = body.get("scaling")
    if not isinstance(scaling, dict):
        return
    kind = scaling.get("type")
    if kind is None:
        raise InvalidValue("scalerValue without scalerType: v2 replaces the endpoint's whole scaling object "
                           "(PATCH /v2/serverless/{id} scaling {type, queueDelay | requestCount}); send scalerType too")
    value = scaling.pop("value", None)
    if kind not in ("QUEUE_DELAY", "REQUEST_COUNT"):
        raise InvalidValue(f"scalerType {kind!r} is not QUEUE_DELAY or REQUEST_COUNT")
    scaling["type"] = kind
    if value is not None:
        scaling["queueDelay" if kind == "QUEUE_DELAY" else "requestCount"] = value


ARGUMENTS: dict[str, Callable[[Any, dict[str, Any]], Any]] = {
    f.__name__: f for f in (listed, comma_list, env_object, per_gpu, cpu_instance, cpu_instances, key_lines)}
FINALIZERS: dict[str, Callable[[dict[str, Any]], None]] = {"endpoint_scaling": endpoint_scaling}


# ------------------------------------------------------------------ views (v2 -> GraphQL)


def comma_joined(value: Any) -> str | None:
    return ",".join(map(str, value)) if isinstance(value, list) else value


def env_strings(value: Any) -> list[str]:
    """{K: V} -> ["K=V"] (the GraphQL Pod's env)."""
    return [f"{k}={v}" for k, v in value.items()] if isinstance(value, dict) else []


def env_pairs(value: Any) -> list[dict[str, Any]]:
    """{K: V} -> [{key: K, value: V}] (templates and endpoints)."""
    return [{"key": k, "value": v} for k, v in value.items()] if isinstance(value, dict) else []


_PROXY_NETWORK = ipaddress.ip_network("100.64.0.0/10")


@lru_cache(maxsize=65536)
def public_address(value: Any) -> bool | None:
    """isIpPublic: an address outside 100.64.0.0/10 (v2 gives http ports the provider's proxy address there)."""
    if not value:
        return None
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return None
    return not (address in _PROXY_NETWORK or address.is_private)


def joined_lines(value: Any) -> str | None:
    return "\n".join(value) if isinstance(value, list) else None


def largest(value: Any) -> int | None:
    numbers = [v for v in value.values() if isinstance(v, (int, float))] if isinstance(value, dict) else []
    return max(numbers) if numbers else None


def lowest_price(value: Any) -> float | None:
    """A GPU type's lowest on-demand price per GPU: the cheaper of the clouds that offer it."""
    if not isinstance(value, dict):
        return None
    price = value.get("price") or {}
    offered = [price.get(cloud) for cloud in ("secure", "community") if value.get(cloud) and price.get(cloud) is not None]
    return min(offered) if offered else None


def non_empty(value: Any) -> bool:
    return bool(value)


def id_only(value: Any) -> dict[str, Any] | None:
    """A record v2 keeps by id, as far as the id tells it ({id}; the rest is read by the view's `fetch`)."""
    return {"id": value} if value else None


VIEWS: dict[str, Callable[[Any], Any]] = {
    f.__name__: f for f in (comma_joined, env_strings, env_pairs, public_address, joined_lines, largest,
                            lowest_price, non_empty, id_only)}
