from urllib.parse import quote

import v1bridge_compat

from .http import get


def find_pod(name):
    pods = v1bridge_compat.all_pages(v1bridge_compat.by_method(get=get), "/pods", {"name": name}, op="pods.list")
    return pods[0] if pods else None


def get_pod(pod_id):
    return v1bridge_compat.v1_view("pod", get(f"/pods/{quote(pod_id)}"))
