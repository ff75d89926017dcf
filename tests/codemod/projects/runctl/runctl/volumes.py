from .http import API_BASE, call, get


def create(name, size_gb, dc="EU-RO-1"):
    return call("POST", API_BASE + "/networkvolumes", {"name": name, "size": size_gb, "dataCenterId": dc})


def grow(volume_id, size_gb):
    return call("PATCH", f"{API_BASE}/networkvolumes/{volume_id}", {"size": size_gb})


def all_volumes():
    return get(API_BASE + "/networkvolumes")
