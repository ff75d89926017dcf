from .client import RunPodClient


def volume(client: RunPodClient, volume_id: str) -> dict:
    return client.get(f"/networkvolumes/{volume_id}")


def resize(client: RunPodClient, volume_id: str, size: int) -> dict:
    return client.patch(f"networkvolumes/{volume_id}", {"size": size})
