from .client import RunPodClient


def endpoint(client: RunPodClient, endpoint_id):
    return client.get(f"endpoints/{endpoint_id}")


def set_workers(client: RunPodClient, endpoint_id, lo=None, hi=None):
    changes = {}
    if lo is not None:
        changes["workersMin"] = lo
    if hi is not None:
        changes["workersMax"] = hi
    return client.post(f"endpoints/{endpoint_id}/update", changes)
