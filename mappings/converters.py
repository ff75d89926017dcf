"""Named conversions that the mapping data refers to.

The data says *which* conversion applies to a field; this module says *how*.
Each function is pure and synchronous so that the proxy (per request) and the
rewrite (on literals in source code) run the very same code. Lookups that need
the network (current state of a resource, the GPU catalog) are requested by
raising `NeedsLookup`; the caller fetches and translates again.
"""
from __future__ import annotations

import functools
import ipaddress
import json
import shlex
from dataclasses import dataclass, field
from typing import Any, Callable

from mappings.errors import InvalidValue, NeedsLookup


@dataclass
class Catalog:
    """The slice of /v2/catalog/gpus that translations need."""

    pool_of_type: dict[str, str | None] = field(default_factory=dict)

    @property
    def types_of_pool(self) -> dict[str, list[str]]:
        pools: dict[str, list[str]] = {}
        for type_id, pool in self.pool_of_type.items():
            if pool:
                pools.setdefault(pool, []).append(type_id)
        return pools

    @classmethod
    def from_v2(cls, listing: dict[str, Any]) -> "Catalog":
        return cls({gpu["id"]: gpu.get("pool") for gpu in listing.get("gpus", [])})


@dataclass
class ComposeContext:
    """What a composer may read and report while building a v2 body."""

    mode: str
    family: str | None
    explicit: set[str]
    current: dict[str, Any] | None = None
    catalog: Catalog | None = None
    templated: bool = False  # the request references a template (the map's template_field)
    template: dict[str, Any] | None = None  # that template as v2 serves it, when a composer asked for it
    engaged: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def engage(self, policy: str) -> None:
        if policy not in self.engaged:
            self.engaged.append(policy)


@dataclass
class ResponseContext:
    """What a response converter may read: v1 include flags and data fetched for them."""

    includes: frozenset[str] = frozenset()
    lookups: dict[str, Any] = field(default_factory=dict)


def get_path(obj: Any, path: str) -> Any:
    """Follow a dotted path through dicts and list indexes; None when any step is missing."""
    for part in path.split("."):
        if isinstance(obj, dict):
            obj = obj.get(part)
        elif isinstance(obj, list) and part.isdigit():
            index = int(part)
            obj = obj[index] if index < len(obj) else None
        else:
            return None
        if obj is None:
            return None
    return obj


def set_path(obj: dict[str, Any], path: str, value: Any) -> None:
    """Create the nested dicts (and single-entry lists for numeric steps) a dotted path needs."""
    parts = path.split(".")
    target: Any = obj
    for index, part in enumerate(parts[:-1]):
        following = parts[index + 1]
        if isinstance(target, list):
            slot = int(part)
            while len(target) <= slot:
                target.append({})
            target = target[slot]
            continue
        if part not in target or target[part] is None:
            target[part] = [] if following.isdigit() else {}
        target = target[part]
    last = parts[-1]
    if isinstance(target, list):
        slot = int(last)
        while len(target) <= slot:
            target.append(None)
        target[slot] = value
    else:
        target[last] = value


# ----------------------------------------------------------- request converters


def first_item(value: Any) -> Any:
    """v1 lists of preferred types -> the single v2 choice (the proxy walks the rest)."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InvalidValue("must be a list of type ids (strings)")
    if not value:
        raise InvalidValue("an empty list of types cannot be translated; name at least one")
    return value[0]


def ports_list(value: Any) -> list[str]:
    """v1 documented its default as a comma string; accept that spelling too."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list):
        return value
    raise InvalidValue("ports must be a list of 'port/protocol' strings")


def bool_to_flashboot(value: Any) -> Any:
    if isinstance(value, bool):
        return "FLASHBOOT" if value else "OFF"
    return value


REQUEST_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    "first_item": first_item,
    "ports_list": ports_list,
    "bool_to_flashboot": bool_to_flashboot,
}


def _non_trivial(value: Any) -> bool:
    return value not in (None, False, "", [], {})


# When does a field's value engage its policy? Non-trivial by default; a
# one-element list needs no fallback walk.
ENGAGES: dict[str, Callable[[Any], bool]] = {
    "first_item": lambda value: isinstance(value, list) and len(value) > 1,
    "bool_to_flashboot": lambda value: isinstance(value, bool),
}


def engages(converter: str | None, value: Any) -> bool:
    return ENGAGES.get(converter or "", _non_trivial)(value)


# ----------------------------------------------------------------- composers


def _mount_path(values: dict[str, Any], ctx: ComposeContext | None = None) -> str:
    """The client's path, else the referenced template's (a template's values stand in for v1's), else v1's."""
    if values.get("volumeMountPath"):
        return values["volumeMountPath"]
    if ctx is not None and ctx.templated:
        return str(get_path(ctx.template or {}, "mounts.persistent.path") or "/workspace")
    return "/workspace"


def _template_mount(values: dict[str, Any], ctx: ComposeContext) -> dict[str, Any] | None:
    """Half a volume given with a template: the other half is the template's, so the template is needed."""
    given = {"volumeInGb", "volumeMountPath"} & ctx.explicit
    if not ctx.templated or not given or given == {"volumeInGb", "volumeMountPath"}:
        return None
    if ctx.template is None:
        raise NeedsLookup("template", "a volume given in part takes the rest from the referenced template")
    persistent = dict(get_path(ctx.template, "mounts.persistent") or {})
    if "volumeInGb" in given:
        persistent["size"] = values["volumeInGb"]
    if "volumeMountPath" in given:
        persistent["path"] = values["volumeMountPath"]
    if not persistent.get("size"):
        return None  # the template has no volume and the client named only a path: v1 made none either
    persistent.setdefault("path", "/workspace")
    return persistent


def pod_mounts(values: dict[str, Any], out: dict[str, Any], ctx: ComposeContext) -> None:
    """volumeInGb, volumeMountPath, networkVolumeId -> mounts (Q06, Q07, L05, Q17).

    In v1 a network volume replaced the pod volume, CPU pods had none, and a
    size of 0 meant no volume. On update v2 wants complete entries, so a half
    given by the client is completed from the pod's current mounts.
    """
    if ctx.mode == "update":
        if not ({"volumeInGb", "volumeMountPath"} & ctx.explicit):
            return
        current = ((ctx.current or {}).get("mounts") or {}) if ctx.current is not None else None
        if current is None and not {"volumeInGb", "volumeMountPath"} <= ctx.explicit:
            raise NeedsLookup("current", "a mount entry must be complete on update")
        current = current or {}
        if current.get("network"):
            if "volumeInGb" in ctx.explicit:
                raise InvalidValue("volumeInGb cannot be changed on a pod with a network volume")
            entry = dict(current["network"][0])
            entry["path"] = values["volumeMountPath"]
            out["mounts"] = {"network": [entry]}
            return
        persistent = dict(current.get("persistent") or {})
        if "volumeInGb" in ctx.explicit:
            persistent["size"] = values["volumeInGb"]
        if "volumeMountPath" in ctx.explicit:
            persistent["path"] = values["volumeMountPath"]
        persistent.setdefault("path", "/workspace")
        if persistent.get("size") in (None, 0):
            raise InvalidValue("a pod volume cannot be removed in place; v2 keeps the mount kind fixed")
        out["mounts"] = {"persistent": persistent}
        return
    if values.get("networkVolumeId"):
        out["mounts"] = {"network": [{"volumeId": values["networkVolumeId"], "path": _mount_path(values, ctx)}]}
        if "volumeMountPath" not in ctx.explicit and not ctx.templated:
            ctx.engage("v1-defaults")
        return
    size = values.get("volumeInGb")
    if ctx.family == "CPU":
        if "volumeInGb" in ctx.explicit and size:
            ctx.notes.append("volumeInGb dropped: v2 CPU pods take no persistent volume (L05)")
        return
    from_template = _template_mount(values, ctx)
    if from_template is not None:
        out["mounts"] = {"persistent": from_template}
        return
    if not size:
        return
    out["mounts"] = {"persistent": {"size": size, "path": _mount_path(values, ctx)}}
    if "volumeInGb" not in ctx.explicit:
        ctx.engage("v1-defaults")


def template_mounts(values: dict[str, Any], out: dict[str, Any], ctx: ComposeContext) -> None:
    """Template volumes: persistent only (templates take no network mount)."""
    if ctx.mode == "update":
        if not ({"volumeInGb", "volumeMountPath"} & ctx.explicit):
            return
        if not {"volumeInGb", "volumeMountPath"} <= ctx.explicit and ctx.current is None:
            raise NeedsLookup("current", "a mount entry must be complete on update")
        persistent = dict((((ctx.current or {}).get("mounts") or {}).get("persistent")) or {})
        for v1_name, v2_name in (("volumeInGb", "size"), ("volumeMountPath", "path")):
            if v1_name in ctx.explicit:
                persistent[v2_name] = values[v1_name]
        persistent.setdefault("path", "/workspace")
        if not persistent.get("size"):
            raise InvalidValue("a template volume cannot be removed in place")
        out["mounts"] = {"persistent": persistent}
        return
    size = values.get("volumeInGb")
    if not size:
        return
    out["mounts"] = {"persistent": {"size": size, "path": _mount_path(values)}}
    if "volumeInGb" not in ctx.explicit:
        ctx.engage("v1-defaults")


def endpoint_gpu_pools(values: dict[str, Any], out: dict[str, Any], ctx: ComposeContext) -> None:
    """GPU type ids -> pool ids, excluding the pools' other types to keep exactly the v1 set (Q18)."""
    types = values.get("gpuTypeIds")
    if not types:
        return
    # checked before any catalog lookup: a wrong type is the client's 400, never an unhashable-key crash
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
        raise InvalidValue("gpuTypeIds must be a list of GPU type id strings")
    if ctx.catalog is None:
        raise NeedsLookup("catalog", "GPU types map to pools through /v2/catalog/gpus")
    pools: list[str] = []
    for type_id in types:
        pool = ctx.catalog.pool_of_type.get(type_id)
        if type_id not in ctx.catalog.pool_of_type:
            raise InvalidValue(f"unknown GPU type {type_id!r}")
        if pool is None:
            raise InvalidValue(f"GPU type {type_id!r} is not offered for serverless")
        if pool not in pools:
            pools.append(pool)
    wanted = set(types)
    excluded = sorted(
        other for pool in pools for other in ctx.catalog.types_of_pool.get(pool, []) if other not in wanted
    )
    gpu = out.setdefault("gpu", {})
    gpu["pools"] = pools
    if excluded or ctx.mode == "update":
        gpu["excludedTypes"] = excluded
    ctx.engage("endpoint-gpu-pools")


def endpoint_cpu(values: dict[str, Any], out: dict[str, Any], ctx: ComposeContext) -> None:
    """cpuFlavorIds + vcpuCount -> one cpu entry per flavor with the same vCPU count."""
    flavors = values.get("cpuFlavorIds")
    if not flavors:
        if ctx.mode == "update" and "vcpuCount" in ctx.explicit:
            if ctx.current is None:
                raise NeedsLookup("current", "a cpu entry needs its flavor on update")
            current = ctx.current.get("cpu")
            if not isinstance(current, list) or not current:
                raise InvalidValue("vcpuCount applies to an endpoint's CPU flavors and this endpoint has none "
                                   "(a GPU endpoint); give cpuFlavorIds with it")
            out["cpu"] = [{"id": entry["id"], "vcpuCount": values["vcpuCount"]} for entry in current]
        return
    vcpus = values.get("vcpuCount") or 2
    out["cpu"] = [{"id": flavor, "vcpuCount": vcpus} for flavor in dict.fromkeys(flavors)]


def endpoint_network_volumes(values: dict[str, Any], out: dict[str, Any], ctx: ComposeContext) -> None:
    """v1 had networkVolumeId and networkVolumeIds; v2 one list."""
    volumes: list[str] = []
    if values.get("networkVolumeId"):
        volumes.append(values["networkVolumeId"])
    for volume in values.get("networkVolumeIds") or []:
        if volume not in volumes:
            volumes.append(volume)
    if volumes or {"networkVolumeId", "networkVolumeIds"} & ctx.explicit:
        out["networkVolumes"] = volumes


def endpoint_scaling(values: dict[str, Any], out: dict[str, Any], ctx: ComposeContext) -> None:
    """scalerType + scalerValue -> the discriminated scaling object (Q19)."""
    given = {"scalerType", "scalerValue"} & ctx.explicit
    if ctx.mode == "update":
        if not given:
            return
        if given != {"scalerType", "scalerValue"}:
            if ctx.current is None:
                raise NeedsLookup("current", "scaling must be sent whole on update")
            current = ctx.current.get("scaling") or {}
            values = dict(values)
            if "scalerType" not in given:
                values["scalerType"] = current.get("type")
            if "scalerValue" not in given:
                values["scalerValue"] = current.get("queueDelay", current.get("requestCount"))
    scaler_type = values.get("scalerType") or "QUEUE_DELAY"
    scaler_value = values.get("scalerValue") or 4
    if scaler_type == "REQUEST_COUNT":
        out["scaling"] = {"type": "REQUEST_COUNT", "requestCount": int(scaler_value)}
    else:
        out["scaling"] = {"type": "QUEUE_DELAY", "queueDelay": scaler_value}
    if ctx.mode == "create" and not given:
        ctx.engage("v1-defaults")


COMPOSERS: dict[str, Callable[[dict[str, Any], dict[str, Any], ComposeContext], None]] = {
    "pod_mounts": pod_mounts,
    "template_mounts": template_mounts,
    "endpoint_gpu_pools": endpoint_gpu_pools,
    "endpoint_cpu": endpoint_cpu,
    "endpoint_network_volumes": endpoint_network_volumes,
    "endpoint_scaling": endpoint_scaling,
}


def idle_timeout_with_request_count(v1: dict[str, Any], out: dict[str, Any], ctx: ComposeContext) -> None:
    """v2 refuses workers.idleTimeout on a QUEUE endpoint scaled by REQUEST_COUNT (Q11)."""
    scaling = out.get("scaling") or {}
    endpoint_type = out.get("type") or (ctx.current or {}).get("type") or "QUEUE"
    if scaling.get("type") == "REQUEST_COUNT" and endpoint_type == "QUEUE":
        workers = out.get("workers")
        if workers and "idleTimeout" in workers:
            del workers["idleTimeout"]
            if not workers:
                del out["workers"]
            if "idleTimeout" in ctx.explicit:
                ctx.notes.append("idleTimeout dropped: v2 refuses it with REQUEST_COUNT scaling (Q11)")


FINALIZERS: dict[str, Callable[[dict[str, Any], dict[str, Any], ComposeContext], None]] = {
    "idle_timeout_with_request_count": idle_timeout_with_request_count,
}


def endpoint_name(v1: dict[str, Any], catalog: Catalog | None) -> str:
    """v2 requires an endpoint name; v1 did not. Derive a stable one from the template."""
    template = v1.get("templateId")
    return f"endpoint-{template}" if template else "my endpoint"


def serverless_gpu_types(v1: dict[str, Any], catalog: Catalog | None) -> list[str]:
    """v1 placed an endpoint given no GPU types on any serverless GPU: every type the catalog pools."""
    if catalog is None:
        raise NeedsLookup("catalog", "an endpoint without gpuTypeIds runs on any serverless GPU of the catalog")
    return sorted(type_id for type_id, pool in catalog.pool_of_type.items() if pool)


DEFAULT_FACTORIES: dict[str, Callable[[dict[str, Any], Catalog | None], Any]] = {
    "endpoint_name": endpoint_name,
    "serverless_gpu_types": serverless_gpu_types,
}


# --------------------------------------------------------- response converters


@functools.lru_cache(maxsize=4096)
def _decode_args(value: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(entrypoint, cmd) of a stored v2 `args`: a JSON object {"entrypoint", "cmd"} or a plain command line.

    Cached: shlex is slow (~8 us) and the same args string comes back on every list of the same pods.
    """
    text = value.strip()
    if text.startswith("{"):
        try:
            decoded = json.loads(text)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict) and set(decoded) <= {"entrypoint", "cmd"}:
            return tuple(decoded.get("entrypoint") or ()), tuple(decoded.get("cmd") or ())
    try:
        return (), tuple(shlex.split(value))
    except ValueError:
        return (), (value,)


def args_cmd(value: Any, obj: dict[str, Any], ctx: ResponseContext) -> list[str]:
    """v2 `cmd` -> dockerStartCmd; a server that sent no `cmd` is read from `args` (never shell-split JSON, Q09)."""
    if isinstance(value, list):
        return list(value)
    args = obj.get("args")
    return list(_decode_args(args)[1]) if args else []


def args_entrypoint(value: Any, obj: dict[str, Any], ctx: ResponseContext) -> list[str]:
    """v2 `entrypoint` -> dockerEntrypoint; without it, the `entrypoint` key of a JSON-object `args` (R06)."""
    if isinstance(value, list):
        return list(value)
    args = obj.get("args")
    return list(_decode_args(args)[0]) if args else []


def pod_mount_path(value: Any, obj: dict[str, Any], ctx: ResponseContext) -> str | None:
    mounts = obj.get("mounts") or {}
    if mounts.get("persistent"):
        return mounts["persistent"].get("path")
    network = mounts.get("network") or []
    return network[0].get("path") if network else None


def pod_network_volume(value: Any, obj: dict[str, Any], ctx: ResponseContext) -> dict[str, Any] | None:
    """v1 networkVolume{id,name,size,dataCenterId}, rebuilt from a fetched v2 volume."""
    volume_id = get_path(obj, "mounts.network.0.volumeId")
    if not volume_id:
        return None
    volume = ctx.lookups.get("network_volumes", {}).get(volume_id)
    if volume is None:
        return {"id": volume_id}
    return {"id": volume["id"], "name": volume["name"], "size": volume["size"], "dataCenterId": volume["dataCenter"]}


def pod_gpu(value: Any, obj: dict[str, Any], ctx: ResponseContext) -> dict[str, Any] | None:
    gpu = obj.get("gpu")
    if not gpu:
        return None
    return {"id": gpu.get("id"), "count": gpu.get("count")}


def runtime_port_mappings(value: Any, obj: dict[str, Any], ctx: ResponseContext) -> dict[str, int] | None:
    runtime = obj.get("runtime") or {}
    ports = runtime.get("ports") or []
    mapping = {str(p["private"]): p["public"] for p in ports if p.get("public") is not None}
    return mapping or None


# The edge's proxy addresses (RFC 6598 shared space): the `ip` of an `http` port in runtime.ports is one of
# these, not the pod's public IP (v1-to-v2.md Q28, runpodctl internal/api/pods_v2.go).
_PROXY_NETWORK = ipaddress.ip_network("100.64.0.0/10")


@functools.lru_cache(maxsize=65536)
def _public_address(ip: str) -> bool:
    """Outside the edge proxy range (cached: ipaddress parsing costs ~5 us and the same pods come back)."""
    try:
        return ipaddress.ip_address(ip) not in _PROXY_NETWORK
    except ValueError:
        return False


def runtime_public_ip(value: Any, obj: dict[str, Any], ctx: ResponseContext) -> str | None:
    """v1 publicIp: the ip of the first `tcp` port outside the proxy range; http ports never count (Q28)."""
    runtime = obj.get("runtime")
    if not runtime:
        return None
    for port in runtime.get("ports") or ():
        ip = port.get("ip")
        if ip and port.get("type") == "tcp" and _public_address(ip):
            return ip
    return None


def pod_machine(value: Any, obj: dict[str, Any], ctx: ResponseContext) -> dict[str, Any]:
    """Only the data center is left of v1's machine{} (R07)."""
    machine: dict[str, Any] = {}
    if obj.get("dataCenterId"):
        machine["dataCenterId"] = obj["dataCenterId"]
    if obj.get("gpu"):
        machine["gpuTypeId"] = obj["gpu"].get("id")
    if obj.get("cloud"):
        machine["secureCloud"] = obj["cloud"] == "SECURE"
    return machine


def endpoint_compute_type(value: Any, obj: dict[str, Any], ctx: ResponseContext) -> str:
    return "CPU" if obj.get("cpu") and not obj.get("gpu") else "GPU"


def endpoint_gpu_types(value: Any, obj: dict[str, Any], ctx: ResponseContext) -> list[str] | None:
    """gpu.pools minus gpu.excludedTypes, expanded to type ids through the catalog."""
    gpu = obj.get("gpu")
    if not gpu:
        return None
    catalog: Catalog | None = ctx.lookups.get("catalog")
    pools = gpu.get("pools") or []
    if catalog is None:
        return None
    excluded = set(gpu.get("excludedTypes") or [])
    by_pool = catalog.types_of_pool
    return [t for pool in pools for t in sorted(by_pool.get(pool, [])) if t not in excluded]


def endpoint_instance_ids(value: Any, obj: dict[str, Any], ctx: ResponseContext) -> list[str] | None:
    cpus = obj.get("cpu")
    if not cpus:
        return None
    return [f"{c['id']}-{c.get('vcpuCount')}-{c.get('memory', 0)}" for c in cpus]


def endpoint_scaler_value(value: Any, obj: dict[str, Any], ctx: ResponseContext) -> int | None:
    scaling = obj.get("scaling") or {}
    raw = scaling.get("queueDelay", scaling.get("requestCount"))
    return None if raw is None else int(round(raw))


def endpoint_workers(value: Any, obj: dict[str, Any], ctx: ResponseContext) -> list[dict[str, Any]]:
    """v1 listed workers as pods; v2 workers are their own objects (R11)."""
    workers = ctx.lookups.get("workers", {}).get(obj.get("id"), [])
    status = {"RUNNING": "RUNNING", "IDLE": "RUNNING", "INITIALIZING": "RUNNING", "THROTTLED": "RUNNING",
              "UNHEALTHY": "RUNNING"}
    return [
        {"id": w["id"], "desiredStatus": status.get(w.get("status"), "RUNNING"), "image": w.get("image"),
         "gpu": {"id": w.get("gpuTypeId"), "count": w.get("gpuCount")}, "machine": {"dataCenterId": w.get("dataCenterId")},
         "lastStartedAt": w.get("startedAt")}
        for w in workers
    ]


def template_is_platform(value: Any, obj: dict[str, Any], ctx: ResponseContext) -> bool:
    """Official catalog templates are the provider's own; owned templates never are."""
    return obj.get("id") in ctx.lookups.get("official_templates", ())


def billing_gpu_type(value: Any, obj: dict[str, Any], ctx: ResponseContext) -> str | None:
    return ctx.lookups.get("pod_gpu", {}).get(obj.get("podId"))


# What each response converter reads of the v2 object besides its `from` (dotted paths, `.0.` = any list item):
# `v1bridge mappings check` compares these in a new v2 document with the one the mapping was built on.
RESPONSE_READS: dict[str, tuple[str, ...]] = {
    "args_cmd": ("args",),
    "args_entrypoint": ("args",),
    "pod_mount_path": ("mounts.persistent.path", "mounts.network.0.path"),
    "pod_network_volume": ("mounts.network.0.volumeId",),
    "pod_gpu": ("gpu.id", "gpu.count"),
    "runtime_port_mappings": ("runtime.ports.0.private", "runtime.ports.0.public"),
    "runtime_public_ip": ("runtime.ports.0.ip", "runtime.ports.0.type"),
    "pod_machine": ("dataCenterId", "gpu.id", "cloud"),
    "endpoint_compute_type": ("gpu", "cpu"),
    "endpoint_gpu_types": ("gpu.pools", "gpu.excludedTypes"),
    "endpoint_instance_ids": ("cpu.0.id", "cpu.0.vcpuCount", "cpu.0.memory"),
    "endpoint_scaler_value": ("scaling",),
    "endpoint_workers": ("id",),
    "template_is_platform": ("id",),
    "billing_gpu_type": ("podId",),
}

RESPONSE_CONVERTERS: dict[str, Callable[[Any, dict[str, Any], ResponseContext], Any]] = {
    "args_cmd": args_cmd,
    "args_entrypoint": args_entrypoint,
    "pod_mount_path": pod_mount_path,
    "pod_network_volume": pod_network_volume,
    "pod_gpu": pod_gpu,
    "runtime_port_mappings": runtime_port_mappings,
    "runtime_public_ip": runtime_public_ip,
    "pod_machine": pod_machine,
    "endpoint_compute_type": endpoint_compute_type,
    "endpoint_gpu_types": endpoint_gpu_types,
    "endpoint_instance_ids": endpoint_instance_ids,
    "endpoint_scaler_value": endpoint_scaler_value,
    "endpoint_workers": endpoint_workers,
    "template_is_platform": template_is_platform,
    "billing_gpu_type": billing_gpu_type,
}
