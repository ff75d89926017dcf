"""Request bodies shared by the sandbox tests."""
from __future__ import annotations

GPU = "NVIDIA GeForce RTX 4090"


def gpu_pod(**extra):
    return {"name": "trainer", "image": "runpod/pytorch:2.4.0", "gpu": {"id": GPU, "count": 1}, **extra}


def cpu_pod(**extra):
    return {"name": "cruncher", "image": "python:3.12-slim", "cpu": {"id": "cpu3c", "vcpuCount": 4}, **extra}


def queue_endpoint(**extra):
    return {
        "name": "worker",
        "type": "QUEUE",
        "image": "runpod/worker:1.0",
        "gpu": {"pools": ["ADA_24"]},
        "scaling": {"type": "QUEUE_DELAY", "queueDelay": 4},
        **extra,
    }


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}
