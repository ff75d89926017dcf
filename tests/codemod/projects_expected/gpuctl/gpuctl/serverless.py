import asyncio

import httpx

from . import config
from . import v1bridge_compat
from .http import jobs, rest


def create_endpoint(name, template_id, gpu_ids=("NVIDIA GeForce RTX 4090",), max_workers=3, flashboot=True):
    r = rest().post("/serverless", json={
        "name": name,
        "templateId": template_id,
        "gpu": {"count": 1, **v1bridge_compat.gpu_pools(lambda method, url, **kw: rest().request(method, url, **kw), list(gpu_ids))},
        "workers": {"min": 0, "max": max_workers, "idleTimeout": 10},
        "timeout": 600000,
        "scaling": {"type": "QUEUE_DELAY", "queueDelay": 4},
        "type": "QUEUE",
        "flashboot": "FLASHBOOT" if flashboot else "OFF",
    })
    if r.status_code >= 400:
        raise RuntimeError(r.json()["detail"])
    return r.json()


def describe(endpoint_id):
    # already on the new API
    r = httpx.get(f"{config.V2_URL}/serverless/{endpoint_id}", headers=config.HEADERS, timeout=20)
    r.raise_for_status()
    ep = r.json()
    return {"name": ep["name"], "max": ep["workers"]["max"], "idle": ep["workers"]["idleTimeout"]}


def run_sync(endpoint_id, payload):
    with jobs(endpoint_id) as c:
        r = c.post("/runsync", json={"input": payload})
        r.raise_for_status()
        return r.json()["output"]


async def health(endpoint_id):
    async with httpx.AsyncClient(headers=config.HEADERS, timeout=20) as c:
        h, ep = await asyncio.gather(
            c.get(f"{config.JOBS_URL}/{endpoint_id}/health"),
            c.get(f"{config.REST_URL}/serverless/{endpoint_id}"),
        )
    return h.json()["workers"]["idle"], ep.json()["workers"]["max"]


def delete_endpoint(endpoint_id):
    r = rest().delete(f"/serverless/{endpoint_id}")
    r.raise_for_status()
