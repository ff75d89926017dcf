"""Pod commands."""
import time

from .client import RunPodClient


def list_pods(client: RunPodClient):
    return client.get("/pods")


def wait_running(client: RunPodClient, pod_id, every=5):
    while True:
        pod = client.get(f"/pods/{pod_id}")
        if pod["desiredStatus"] == "RUNNING":
            return pod
        time.sleep(every)


def stop(client, pod_id):
    client.post(f"/pods/{pod_id}/stop")
