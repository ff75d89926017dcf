from urllib.parse import quote

from .http import get


def find_pod(name):
    pods = get("/pods", name=name)
    return pods[0] if pods else None


def get_pod(pod_id):
    return get(f"/pods/{quote(pod_id)}")
