import requests

from .settings import REST_API, headers


def list_volumes():
    r = requests.get(REST_API + "/networkvolumes", headers=headers(), timeout=30)
    r.raise_for_status()
    return r.json()


def create_volume(name, size, data_center):
    r = requests.post(REST_API + "/networkvolumes", headers=headers(),
                      json={"name": name, "size": size, "dataCenterId": data_center}, timeout=30)
    r.raise_for_status()
    return r.json()


def delete_volume(volume_id):
    requests.delete(f"{REST_API}/networkvolumes/{volume_id}", headers=headers(), timeout=30).raise_for_status()
