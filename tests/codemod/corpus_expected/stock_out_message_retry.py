"""Grab a GPU pod of any acceptable type: try each type until one has stock.

Recognises the v1 "no instances" error text and moves on to the next type.
"""
import logging
import os

import requests

import v1bridge_compat

log = logging.getLogger("grab")

RUNPOD_API_BASE = os.environ.get("RUNPOD_API_BASE", "https://api.runpod.io/v2")
PREFERRED = ["NVIDIA H100 80GB HBM3", "NVIDIA A100 80GB PCIe", "NVIDIA RTX A6000"]
STOCK_OUT_MARKERS = ("no longer any instances available", "no instances available", "not enough free gpus")


def _is_stock_out(message):
    text = (message or "").lower()
    return any(marker in text for marker in STOCK_OUT_MARKERS)


def create_pod(api_key, name, gpu_type, image):
    resp = v1bridge_compat.v1_error(requests.post(
        f"{RUNPOD_API_BASE}/pods",
        headers={"Authorization": f"Bearer {api_key}"},
        json={
            "name": name,
            "image": image,
            "gpu": {"id": gpu_type, "count": 1, "minRamPerGpu": 8, "minVcpuCountPerGpu": 2},
            "cloud": "SECURE",
            "disk": 30,
            "ports": ["8888/http", "22/tcp"],
        },
        timeout=90,
    ), "pods.create")
    return resp


def grab(api_key, name, image, candidates=PREFERRED):
    last = None
    for gpu in candidates:
        resp = create_pod(api_key, name, gpu, image)
        if resp.ok:
            return resp.json()
        last = resp.json().get("message", resp.text)
        if _is_stock_out(last):
            log.warning("%s out of stock, trying next", gpu)
            continue
        raise RuntimeError(last)
    raise RuntimeError(f"no GPU available: {last}")


def release(api_key, pod_id):
    requests.delete(f"{RUNPOD_API_BASE}/pods/{pod_id}", headers={"Authorization": f"Bearer {api_key}"}, timeout=30)


def scenario(base_url, api_key, ids):
    # the first type is out of stock: the loop reads the refusal's words and tries the next one
    pod = grab(api_key, "trainer", "ghcr.io/acme/train:8", ["NVIDIA H200", "NVIDIA RTX A5000"])
    release(api_key, pod["id"])
    return {"image": pod["image"]}
