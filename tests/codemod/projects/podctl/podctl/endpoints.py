"""Serverless endpoints are made from a template we create first (the console does the same)."""
from . import api


def create_template(name, image, env=None, disk=10):
    return api._post("/templates", {
        "name": name,
        "imageName": image,
        "isServerless": True,
        "containerDiskInGb": disk,
        "env": env or {},
        "readme": "",
    })


def create_endpoint(name, template_id, gpus=("NVIDIA A40",), workers=(0, 2), idle=5):
    lo, hi = workers
    body = {
        "name": name,
        "templateId": template_id,
        "gpuTypeIds": list(gpus),
        "workersMin": lo,
        "workersMax": hi,
        "idleTimeout": idle,
        "scalerType": "QUEUE_DELAY",
        "scalerValue": 4,
    }
    return api._post("/endpoints", body)


def deploy(name, image, **kw):
    tpl = create_template(name + "-tpl", image)
    return create_endpoint(name, tpl["id"], **kw)


def find_endpoint(name):
    for ep in api._get("/endpoints"):
        if ep["name"] == name:
            return ep
    return None


def scale(endpoint_id, max_workers):
    return api._patch(f"/endpoints/{endpoint_id}", {"workersMax": max_workers})
