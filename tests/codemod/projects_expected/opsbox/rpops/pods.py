from urllib.parse import quote

import v1bridge_compat

from .http import get


def find_pod(name):
    pods = v1bridge_compat.call_v1(v1bridge_compat.by_method(get=get), "GET", "/pods", params={"name": name})
    return pods[0] if pods else None


def get_pod(pod_id):
    return v1bridge_compat.v1_view("pod", get(f"/pods/{quote(pod_id)}"))
