"""The seeded catalog: GPU types (with serverless pools), CPU flavors, data centers, public templates.

IDs are the ones v1 clients already use (the v1 enums), so translated v1
requests find what they ask for. Figures are realistic list prices, not quotes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

LEVELS = ("NONE", "LOW", "MEDIUM", "HIGH")
CUDA_ALL = ("11.8", "12.0", "12.1", "12.2", "12.3", "12.4", "12.5", "12.6", "12.7", "12.8", "12.9", "13.0")


@dataclass(frozen=True)
class DataCenter:
    id: str
    name: str
    region: str
    country: str
    volume_types: tuple[str, ...]
    compliance: tuple[str, ...]
    global_network: bool


DATA_CENTERS: tuple[DataCenter, ...] = (
    DataCenter("EU-RO-1", "Bucharest, Romania", "EUROPE", "RO", ("STANDARD",), ("GDPR", "ISO_IEC_27001"), True),
    DataCenter("EU-SE-1", "Stockholm, Sweden", "EUROPE", "SE", ("STANDARD",), ("GDPR", "RENEWABLE"), True),
    DataCenter("EU-CZ-1", "Prague, Czechia", "EUROPE", "CZ", ("STANDARD",), ("GDPR",), False),
    DataCenter("EU-NL-1", "Amsterdam, Netherlands", "EUROPE", "NL", ("STANDARD", "HIGH_PERFORMANCE"), ("GDPR", "ISO_IEC_27001", "SOC_2_TYPE_2"), True),
    DataCenter("EU-FR-1", "Paris, France", "EUROPE", "FR", ("STANDARD",), ("GDPR", "ISO_IEC_27001"), False),
    DataCenter("EUR-IS-1", "Keflavik, Iceland", "EUROPE", "IS", ("STANDARD",), ("GDPR", "RENEWABLE"), True),
    DataCenter("EUR-NO-1", "Oslo, Norway", "EUROPE", "NO", (), ("GDPR", "RENEWABLE"), False),
    DataCenter("US-TX-3", "Dallas, Texas", "NORTH_AMERICA", "US", ("STANDARD", "HIGH_PERFORMANCE"), ("SOC_2_TYPE_2", "HIPAA"), True),
    DataCenter("US-TX-4", "Houston, Texas", "NORTH_AMERICA", "US", ("HIGH_PERFORMANCE", "STANDARD"), ("SOC_2_TYPE_2",), False),
    DataCenter("US-KS-2", "Kansas City, Kansas", "NORTH_AMERICA", "US", ("STANDARD",), ("SOC_2_TYPE_2", "ISO_IEC_27001"), True),
    DataCenter("US-GA-1", "Atlanta, Georgia", "NORTH_AMERICA", "US", ("STANDARD",), ("SOC_2_TYPE_2",), True),
    DataCenter("US-CA-2", "San Jose, California", "NORTH_AMERICA", "US", ("STANDARD",), ("SOC_2_TYPE_2", "PCI_DSS"), True),
    DataCenter("US-IL-1", "Chicago, Illinois", "NORTH_AMERICA", "US", ("STANDARD",), ("SOC_2_TYPE_2",), False),
    DataCenter("US-WA-1", "Seattle, Washington", "NORTH_AMERICA", "US", (), ("SOC_2_TYPE_2",), False),
    DataCenter("CA-MTL-1", "Montreal, Canada", "NORTH_AMERICA", "CA", ("STANDARD",), ("SOC_2_TYPE_2", "RENEWABLE"), True),
    DataCenter("AP-JP-1", "Tokyo, Japan", "ASIA", "JP", (), ("ISO_IEC_27001",), False),
    DataCenter("OC-AU-1", "Sydney, Australia", "OCEANIA", "AU", ("STANDARD",), ("ISO_IEC_27001",), False),
)
DATA_CENTER_BY_ID = {dc.id: dc for dc in DATA_CENTERS}


@dataclass(frozen=True)
class GpuType:
    id: str
    name: str
    pool: str | None
    manufacturer: str
    memory: int
    secure_price: float
    community_price: float | None  # None: not offered on community cloud
    serverless_price: float | None
    max_secure: int
    max_community: int
    cuda: tuple[str, ...]
    placements: tuple[tuple[str, str], ...]  # (data center id, seeded level)


def _p(*pairs: str) -> tuple[tuple[str, str], ...]:
    return tuple((pairs[i], pairs[i + 1]) for i in range(0, len(pairs), 2))


_NEW = CUDA_ALL[4:]  # 12.3 .. 13.0
_MID = CUDA_ALL[1:10]  # 12.0 .. 12.8

GPU_TYPES: tuple[GpuType, ...] = (
    GpuType("NVIDIA GeForce RTX 4090", "RTX 4090", "ADA_24", "NVIDIA", 24, 0.69, 0.34, 1.10, 8, 8, _NEW,
            _p("EU-RO-1", "HIGH", "EU-SE-1", "MEDIUM", "US-TX-3", "HIGH", "US-KS-2", "MEDIUM", "CA-MTL-1", "LOW", "EUR-IS-1", "MEDIUM")),
    GpuType("NVIDIA L4", "L4", "ADA_24", "NVIDIA", 24, 0.43, 0.28, 0.68, 8, 8, _NEW,
            _p("US-TX-3", "HIGH", "US-GA-1", "MEDIUM", "EU-NL-1", "LOW")),
    GpuType("NVIDIA RTX A5000", "RTX A5000", "AMPERE_24", "NVIDIA", 24, 0.27, 0.16, 0.68, 8, 10, _MID,
            _p("EU-CZ-1", "HIGH", "US-IL-1", "MEDIUM", "EU-RO-1", "MEDIUM", "OC-AU-1", "LOW")),
    GpuType("NVIDIA GeForce RTX 3090", "RTX 3090", "AMPERE_24", "NVIDIA", 24, 0.46, 0.22, 0.68, 4, 8, _MID,
            _p("EU-SE-1", "MEDIUM", "US-WA-1", "LOW", "CA-MTL-1", "MEDIUM")),
    GpuType("NVIDIA RTX A4000", "RTX A4000", "AMPERE_16", "NVIDIA", 16, 0.25, 0.17, 0.58, 8, 10, _MID,
            _p("EU-CZ-1", "HIGH", "US-KS-2", "HIGH", "EU-RO-1", "MEDIUM")),
    GpuType("NVIDIA RTX A4500", "RTX A4500", "AMPERE_16", "NVIDIA", 20, 0.34, 0.19, 0.58, 8, 8, _MID,
            _p("US-IL-1", "MEDIUM", "EU-FR-1", "LOW")),
    GpuType("NVIDIA RTX 4000 Ada Generation", "RTX 4000 Ada", "AMPERE_16", "NVIDIA", 20, 0.26, 0.20, 0.58, 8, 8, _NEW,
            _p("EU-RO-1", "HIGH", "US-CA-2", "MEDIUM")),
    GpuType("NVIDIA RTX A6000", "RTX A6000", "AMPERE_48", "NVIDIA", 48, 0.49, 0.33, 0.85, 8, 8, _MID,
            _p("US-KS-2", "HIGH", "CA-MTL-1", "MEDIUM", "EU-SE-1", "LOW")),
    GpuType("NVIDIA A40", "A40", "AMPERE_48", "NVIDIA", 48, 0.40, None, 0.85, 10, 0, _MID,
            _p("EU-SE-1", "HIGH", "US-TX-3", "MEDIUM", "EUR-IS-1", "MEDIUM")),
    GpuType("NVIDIA L40S", "L40S", "ADA_48_PRO", "NVIDIA", 48, 0.86, 0.79, 1.33, 8, 8, _NEW,
            _p("US-TX-4", "HIGH", "EU-RO-1", "MEDIUM", "US-GA-1", "LOW")),
    GpuType("NVIDIA RTX 6000 Ada Generation", "RTX 6000 Ada", "ADA_48_PRO", "NVIDIA", 48, 0.77, 0.74, 1.33, 8, 8, _NEW,
            _p("EU-NL-1", "MEDIUM", "US-CA-2", "MEDIUM")),
    GpuType("NVIDIA A100 80GB PCIe", "A100 PCIe", "AMPERE_80", "NVIDIA", 80, 1.64, 1.19, 2.17, 8, 8, _MID,
            _p("US-KS-2", "MEDIUM", "EU-RO-1", "LOW", "EUR-IS-1", "LOW")),
    GpuType("NVIDIA A100-SXM4-80GB", "A100 SXM", "AMPERE_80", "NVIDIA", 80, 1.74, 1.39, 2.17, 8, 8, _MID,
            _p("US-TX-3", "MEDIUM", "EU-NL-1", "LOW")),
    GpuType("NVIDIA H100 80GB HBM3", "H100 SXM", "ADA_80_PRO", "NVIDIA", 80, 2.69, 2.39, 3.35, 8, 8, _NEW,
            _p("US-TX-3", "MEDIUM", "US-KS-2", "LOW", "EU-RO-1", "LOW", "CA-MTL-1", "LOW")),
    GpuType("NVIDIA H100 PCIe", "H100 PCIe", "ADA_80_PRO", "NVIDIA", 80, 2.39, 1.99, 3.35, 8, 8, _NEW,
            _p("US-TX-4", "MEDIUM", "EU-CZ-1", "LOW")),
    GpuType("NVIDIA H100 NVL", "H100 NVL", "ADA_80_PRO", "NVIDIA", 94, 2.79, 2.59, 3.35, 8, 8, _NEW,
            _p("US-TX-3", "LOW")),
    GpuType("NVIDIA H200", "H200 SXM", "HOPPER_141", "NVIDIA", 141, 3.99, None, 4.46, 8, 0, _NEW[3:],
            _p("US-TX-3", "LOW", "EU-NL-1", "LOW")),
    GpuType("NVIDIA B200", "B200", "BLACKWELL_180", "NVIDIA", 180, 5.99, None, 6.84, 8, 0, CUDA_ALL[9:],
            _p("US-TX-4", "LOW")),
    GpuType("NVIDIA GeForce RTX 5090", "RTX 5090", "BLACKWELL_32", "NVIDIA", 32, 0.94, 0.69, 1.58, 8, 8, CUDA_ALL[9:],
            _p("EU-RO-1", "MEDIUM", "US-CA-2", "LOW", "EUR-IS-1", "MEDIUM")),
    GpuType("AMD Instinct MI300X OAM", "MI300X", None, "AMD", 192, 2.49, None, None, 8, 0, (),
            _p("EU-RO-1", "LOW", "US-TX-4", "LOW")),
)
GPU_BY_ID = {g.id: g for g in GPU_TYPES}


def host_share(gpu: GpuType) -> tuple[int, int]:
    """(vCPUs, GB of system RAM) a host gives each GPU of this type; the current v2 example has one
    RTX 4090 -> 16 vCPU, 64 GB. Placement floors (gpu.minVcpuCountPerGpu, gpu.minRamPerGpu) compare with it."""
    if gpu.memory <= 16:
        return 8, 32
    if gpu.memory <= 32:
        return 16, 64
    if gpu.memory <= 48:
        return 16, 96
    if gpu.memory <= 94:
        return 24, 188
    return 32, 256
POOLS: dict[str, list[str]] = {}
for _g in GPU_TYPES:
    if _g.pool:
        POOLS.setdefault(_g.pool, []).append(_g.id)


@dataclass(frozen=True)
class CpuFlavor:
    id: str
    name: str
    group: str
    vcpu_min: int
    vcpu_max: int
    ram_per_vcpu: float
    secure_per_vcpu: float
    serverless_per_vcpu: float
    placements: tuple[tuple[str, str], ...]


CPU_FLAVORS: tuple[CpuFlavor, ...] = (
    CpuFlavor("cpu3c", "Compute-Optimized", "cpu3", 2, 32, 2.0, 0.02, 0.028, _p("EU-RO-1", "HIGH", "US-KS-2", "HIGH", "EU-SE-1", "MEDIUM")),
    CpuFlavor("cpu3g", "General Purpose", "cpu3", 2, 32, 4.0, 0.03, 0.042, _p("EU-RO-1", "HIGH", "US-KS-2", "MEDIUM", "US-TX-3", "MEDIUM")),
    CpuFlavor("cpu3m", "Memory-Optimized", "cpu3", 2, 16, 8.0, 0.05, 0.07, _p("US-KS-2", "MEDIUM", "EU-CZ-1", "LOW")),
    CpuFlavor("cpu5c", "Compute-Optimized", "cpu5", 2, 64, 2.0, 0.025, 0.035, _p("EU-RO-1", "MEDIUM", "US-TX-3", "HIGH", "EU-NL-1", "MEDIUM")),
    CpuFlavor("cpu5g", "General Purpose", "cpu5", 2, 64, 4.0, 0.035, 0.049, _p("US-TX-3", "MEDIUM", "EU-NL-1", "LOW")),
    CpuFlavor("cpu5m", "Memory-Optimized", "cpu5", 2, 32, 8.0, 0.06, 0.084, _p("US-TX-3", "LOW", "US-CA-2", "LOW")),
)
CPU_BY_ID = {c.id: c for c in CPU_FLAVORS}


def catalog_templates() -> list[dict[str, Any]]:
    """Public templates served by /v2/catalog/templates and GET /v2/templates/{id}."""

    def t(tid, name, image, source, serverless=False, category="NVIDIA", ports=(), disk=20, vol=None, env=None, args=""):
        return {
            "id": tid,
            "name": name,
            "image": image,
            "args": args,
            "disk": disk,
            "mounts": {"persistent": {"size": vol, "path": "/workspace"}} if vol else {},
            "ports": list(ports),
            "env": dict(env or {}),
            "registry": None,
            "serverless": serverless,
            "public": True,
            "category": category,
            "startSsh": not serverless,
            "startJupyter": not serverless and "8888/http" in ports,
            "allowedCudaVersions": [],
            "_source": source,
        }

    return [
        t("runpod-torch-v240", "Runpod Pytorch 2.4.0", "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04", "official",
          ports=("8888/http", "22/tcp"), disk=50, vol=20),
        t("runpod-torch-v280", "Runpod Pytorch 2.8.0", "runpod/pytorch:1.0.2-cu1281-torch280-ubuntu2404", "official",
          ports=("8888/http", "22/tcp"), disk=50, vol=20),
        t("runpod-ubuntu", "Runpod Ubuntu", "runpod/base:0.6.3-cpu", "official", category="CPU", ports=("22/tcp",), disk=20),
        t("runpod-worker-vllm", "vLLM worker", "runpod/worker-v1-vllm:v2.7.0stable-cuda12.1.0", "official", serverless=True,
          disk=30, env={"MODEL_NAME": "meta-llama/Llama-3.1-8B-Instruct"}),
        t("runpod-worker-comfyui", "ComfyUI worker", "runpod/worker-comfyui:5.1.0-base", "verified", serverless=True, disk=40),
        t("ollama-webui-verified", "Ollama + Open WebUI", "ghcr.io/open-webui/open-webui:ollama", "verified",
          ports=("8080/http", "22/tcp"), disk=40, vol=50),
        t("a1b2c3d4e5", "Stable Diffusion WebUI Forge", "community/sd-forge:2.1", "community",
          ports=("7860/http", "22/tcp"), disk=40, vol=60),
        t("f6g7h8i9j0", "Jupyter Data Science", "community/jupyter-ds:2025.1", "community", category="CPU",
          ports=("8888/http",), disk=20),
    ]


CATALOG_TEMPLATES = {t["id"]: t for t in catalog_templates()}


def level_max(levels: list[str]) -> str:
    return max(levels, key=LEVELS.index) if levels else "NONE"


def cuda_key(version: str) -> tuple[int, int]:
    major, _, minor = version.partition(".")
    return int(major), int(minor or 0)


def dc_json(dc: DataCenter) -> dict[str, Any]:
    return {
        "id": dc.id,
        "name": dc.name,
        "region": dc.region,
        "globalNetwork": dc.global_network,
        "networkVolumeTypes": list(dc.volume_types),
        "compliance": list(dc.compliance),
    }
