"""Endpoints: one per model, made from its template."""
import v1bridge_compat

from . import constants
from .client import RunPod


async def create(rp: RunPod, name, template_id, gpus=None, max_workers=3, idle=5, flashboot=True):
    body = {
        "name": name,
        "templateId": template_id,
        "gpu": {"count": 1, **(await v1bridge_compat.agpu_pools(v1bridge_compat.by_method(delete=rp.delete, get=rp.get, patch=rp.patch, post=rp.post), list(gpus or constants.DEFAULT_GPUS)))},
        "workers": {"min": 0, "max": max_workers, "idleTimeout": idle},
        "timeout": 300000,
        "scaling": {"type": "QUEUE_DELAY", "queueDelay": 4},
        "type": "QUEUE",
        "flashboot": "FLASHBOOT" if flashboot else "OFF",
    }
    return await v1bridge_compat.av1_view("endpoint", await rp.post("/serverless", body), send=v1bridge_compat.by_method(delete=rp.delete, get=rp.get, patch=rp.patch, post=rp.post))


async def all_endpoints(rp: RunPod, with_workers=False):
    params = {}
    if with_workers:
        params["includeWorkers"] = "true"
    return await v1bridge_compat.av1_view("endpoint", await v1bridge_compat.aall_pages(v1bridge_compat.by_method(delete=rp.delete, get=rp.get, patch=rp.patch, post=rp.post), "/serverless", params, op="endpoints.list"), send=v1bridge_compat.by_method(delete=rp.delete, get=rp.get, patch=rp.patch, post=rp.post), includes=params)


async def by_name(rp: RunPod, name):
    return next((ep for ep in await all_endpoints(rp) if ep["name"] == name), None)


async def get(rp: RunPod, endpoint_id):
    return await v1bridge_compat.av1_view("endpoint", await rp.get(f"/serverless/{endpoint_id}"), send=v1bridge_compat.by_method(delete=rp.delete, get=rp.get, patch=rp.patch, post=rp.post))


async def scale(rp: RunPod, endpoint_id, lo=None, hi=None, idle=None):
    changes = {}
    if lo is not None:
        changes["workersMin"] = lo
    if hi is not None:
        changes["workersMax"] = hi
    if idle is not None:
        changes["idleTimeout"] = idle
    return await v1bridge_compat.awith_v1_body(lambda v2_body: rp.patch(f"/serverless/{endpoint_id}", v2_body), "endpoints.update_alias", changes, send=v1bridge_compat.by_method(delete=rp.delete, get=rp.get, patch=rp.patch, post=rp.post), ids={"id": endpoint_id})


async def workers(rp: RunPod, endpoint_id):
    # already on the new API: v1 had no way to list an endpoint's workers on their own
    resp = await rp._http.get(f"{constants.RUNPOD_V2_URL}/serverless/{endpoint_id}/workers")
    resp.raise_for_status()
    return resp.json()["workers"]


async def delete(rp: RunPod, endpoint_id):
    await rp.delete(f"/serverless/{endpoint_id}")
