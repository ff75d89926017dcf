"""Serverless templates: one per model, named <model>-tpl."""
import v1bridge_compat

from .client import RunPod


async def find(rp: RunPod, name):
    for tpl in await v1bridge_compat.acall_v1(v1bridge_compat.by_method(delete=rp.delete, get=rp.get, patch=rp.patch, post=rp.post), "GET", "/templates"):
        if tpl["name"] == name:
            return tpl
    return None


async def create(rp: RunPod, name, image, env=None, disk_gb=20):
    body = {
        "name": name,
        "imageName": image,
        "isServerless": True,
        "containerDiskInGb": disk_gb,
        "volumeInGb": 0,
        "env": env or {},
        "readme": f"# {name}\nManaged by modelhub, do not edit in the console.",
    }
    return await v1bridge_compat.acall_v1(v1bridge_compat.by_method(delete=rp.delete, get=rp.get, patch=rp.patch, post=rp.post), "POST", "/templates", json=body)


async def ensure(rp: RunPod, name, image, env=None):
    """The template for `name` with `image`: created, or its image bumped if it exists."""
    tpl = await find(rp, name)
    if tpl is None:
        return await create(rp, name, image, env)
    if tpl["imageName"] != image:
        tpl = await v1bridge_compat.acall_v1(v1bridge_compat.by_method(delete=rp.delete, get=rp.get, patch=rp.patch, post=rp.post), "PATCH", f"/templates/{tpl['id']}", json={"imageName": image})
    return tpl


async def remove(rp: RunPod, template_id):
    await rp.delete(f"/templates/{template_id}")
