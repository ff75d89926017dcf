"""Shared machinery of the handlers: tenancy, ids, time, placement, usage metering."""
from __future__ import annotations

import hashlib
import secrets
import string
from datetime import datetime, timezone
from typing import Any

from . import catalog
from .config import SandboxConfig
from .paging import Pager
from .problems import NO_CAPACITY, Problem
from .store import Store

_ALNUM = string.ascii_lowercase + string.digits
HOURS_PER_MONTH = 730.0
DISK_RATE = 0.10 / HOURS_PER_MONTH  # USD per GB-hour of container disk / pod volume while running
IDLE_VOLUME_RATE = 0.20 / HOURS_PER_MONTH  # pod volume while stopped
NV_RATES = {"STANDARD": 0.07 / HOURS_PER_MONTH, "HIGH_PERFORMANCE": 0.14 / HOURS_PER_MONTH}


def new_id(length: int = 14, prefix: str = "") -> str:
    return prefix + "".join(secrets.choice(_ALNUM) for _ in range(length - len(prefix)))


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def owner_of(key: str) -> str:
    """A stable, non-secret account id derived from an API key."""
    return "user_" + hashlib.sha256(key.encode()).hexdigest()[:20]


def public(doc: dict[str, Any]) -> dict[str, Any]:
    """The document without the sandbox's private bookkeeping (keys starting with '_')."""
    return {k: v for k, v in doc.items() if k[0] != "_"}


class Sandbox:
    """The state behind one sandbox app."""

    def __init__(self, config: SandboxConfig) -> None:
        self.config = config
        self.store = Store(config.db_path)
        self.clock = config.clock
        self.owners = {key: owner_of(key) for key in config.keys}
        self.pager = Pager(secrets.token_bytes(16), config.max_page_size)

    # ---- tenancy -----------------------------------------------------------------
    def fetch(self, kind: str, rid: str, owner: str, label: str) -> dict[str, Any]:
        """The live document, or 404 naming it, or 403 when another key owns it."""
        doc = self.store.get(kind, rid)
        if doc is None or doc.get("_deleted"):
            raise Problem(404, f"{label} '{rid}' not found")
        if doc["_owner"] != owner:
            raise Problem(403, f"You do not have access to {label} '{rid}'")
        return doc

    def live(self, kind: str, owner: str) -> list[dict[str, Any]]:
        return [d for d in self.store.owned(kind, owner) if not d.get("_deleted")]

    # ---- usage metering ---------------------------------------------------------
    def meter(self, doc: dict[str, Any], rates: dict[str, float] | None) -> None:
        """Close the open usage interval and, unless rates is None, open one at these hourly rates."""
        now = self.clock()
        usage = doc.setdefault("_usage", [])
        if usage and usage[-1][1] is None:
            usage[-1][1] = now
        if rates is not None and any(rates.values()):
            usage.append([now, None, rates])

    # ---- placement --------------------------------------------------------------
    def gpu_available(self, gpu_id: str, dc_id: str, level: str) -> bool:
        return (
            level != "NONE"
            and gpu_id not in self.config.unavailable_gpu_types
            and (gpu_id, dc_id) not in self.config.unavailable_placements
        )

    def place_gpu(
        self,
        gpu: catalog.GpuType,
        count: int,
        cloud: str,
        wanted_dcs: list[str] | None,
        need_dc: str | None = None,
        need_global: bool = False,
    ) -> str:
        """Pick a data center with stock, the way the scheduler would, or answer the capacity 400."""
        max_count = gpu.max_secure if cloud == "SECURE" else gpu.max_community
        if cloud == "COMMUNITY" and gpu.community_price is None:
            raise Problem(400, NO_CAPACITY)
        if count > max_count:
            raise Problem(400, f"gpu.count {count} exceeds the maximum of {max_count} for {gpu.id} on {cloud} cloud")
        candidates = [
            (dc, lvl) for dc, lvl in gpu.placements if self.gpu_available(gpu.id, dc, lvl)
        ]
        if need_dc:
            candidates = [c for c in candidates if c[0] == need_dc]
        if need_global:
            candidates = [c for c in candidates if catalog.DATA_CENTER_BY_ID[c[0]].global_network]
        if wanted_dcs:
            order = {dc: i for i, dc in enumerate(wanted_dcs)}
            candidates = sorted((c for c in candidates if c[0] in order), key=lambda c: order[c[0]])
        else:
            candidates.sort(key=lambda c: -catalog.LEVELS.index(c[1]))
        if not candidates:
            raise Problem(400, NO_CAPACITY)
        return candidates[0][0]

    def place_cpu(self, flavor: catalog.CpuFlavor, wanted_dcs: list[str] | None, need_dc: str | None) -> str:
        candidates = [dc for dc, lvl in flavor.placements if lvl != "NONE"]
        if need_dc:
            candidates = [dc for dc in candidates if dc == need_dc]
        if wanted_dcs:
            candidates = [dc for dc in wanted_dcs if dc in candidates]
        if not candidates:
            raise Problem(400, NO_CAPACITY)
        return candidates[0]


def check_cuda(allowed: list[str] | None, minimum: str | None, where: str = "gpu") -> None:
    if allowed and minimum:
        raise Problem(
            400,
            f"{where}.allowedCudaVersions and {where}.minCudaVersion are mutually exclusive; send one or the other",
        )


def pick_cuda(gpu: catalog.GpuType, allowed: list[str] | None, minimum: str | None) -> str:
    versions = list(gpu.cuda)
    if allowed:
        versions = [v for v in versions if v in allowed]
    if minimum:
        versions = [v for v in versions if catalog.cuda_key(v) >= catalog.cuda_key(minimum)]
    if not versions:
        raise Problem(400, NO_CAPACITY)
    return max(versions, key=catalog.cuda_key)


def check_cpu(cpu: dict[str, Any], where: str = "cpu") -> catalog.CpuFlavor:
    flavor = catalog.CPU_BY_ID.get(cpu["id"])
    if flavor is None:
        valid = ", ".join(catalog.CPU_BY_ID)
        raise Problem(400, f"{where}.id '{cpu['id']}' is not a CPU flavor; valid flavors: {valid}")
    n = cpu["vcpuCount"]
    if n & (n - 1) or not flavor.vcpu_min <= n <= flavor.vcpu_max:
        raise Problem(
            400,
            f"{where}.vcpuCount {n} is not valid for {flavor.id}: it must be a power of two "
            f"between {flavor.vcpu_min} and {flavor.vcpu_max}",
        )
    return flavor


def parse_ports(ports: list[str]) -> list[tuple[int, str]]:
    out = []
    for p in ports:
        num, _, proto = p.partition("/")
        if not num.isdigit() or not 1 <= int(num) <= 65535 or proto not in ("http", "tcp", "udp"):
            raise Problem(400, f"invalid port '{p}': expected <port>/<http|tcp|udp>, e.g. 8888/http")
        out.append((int(num), proto))
    return out
