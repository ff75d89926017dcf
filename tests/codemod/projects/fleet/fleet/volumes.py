from . import client as rp


def create(c: rp.RunPodClient, name, size_gb=50, dc="EU-RO-1"):
    return c.post("/networkvolumes", {"name": name, "size": size_gb, "dataCenterId": dc})


def grow(c: rp.RunPodClient, volume_id, size_gb):
    return c.patch(f"/networkvolumes/{volume_id}", {"size": size_gb})


def all_volumes(c: rp.RunPodClient):
    return c.get("/networkvolumes")


def drop(c: rp.RunPodClient, volume_id):
    c.delete(f"/networkvolumes/{volume_id}")
