import requests

from .settings import REST_API, headers


def list_volumes():
    r = requests.get(REST_API + "/network-volumes", headers=headers(), timeout=30)
    r.raise_for_status()
    return r.json()["networkVolumes"]


def create_volume(name, size, data_center):
    r = requests.post(REST_API + "/network-volumes", headers=headers(),
                      json={"name": name, "size": size, "dataCenter": data_center}, timeout=30)
    r.raise_for_status()
    return r.json()


def delete_volume(volume_id):
    requests.delete(f"{REST_API}/network-volumes/{volume_id}", headers=headers(), timeout=30).raise_for_status()
