from .http import API_BASE, call, get


def create(name, size_gb, dc="EU-RO-1"):
    return call("POST", API_BASE + "/network-volumes", {"name": name, "size": size_gb, "dataCenter": dc})


def grow(volume_id, size_gb):
    return call("PATCH", f"{API_BASE}/network-volumes/{volume_id}", {"size": size_gb})


def all_volumes():
    return get(API_BASE + "/network-volumes")["networkVolumes"]
