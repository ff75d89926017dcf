"""v2 client: must give zero findings."""
import os

import requests
from networkvolumes_helpers import networkvolumes_table  # a package name, not a call site

BASE = os.environ.get("RUNPOD_BASE", "https://api.runpod.io/v2")
RUNTIME = "https://api.runpod.ai/v2"


def pods(session: requests.Session):
    # was: GET /pods returned a bare list; was imageName
    return session.get(f"{BASE}/pods").json()["pods"]


def start(session: requests.Session, pod_id: str):
    return session.post(f"{BASE}/pods/{pod_id}/action", json={"action": "start"})


def run_job(endpoint_id: str, payload: dict):
    return requests.post(f"{RUNTIME}/{endpoint_id}/runsync", json={"input": payload}).json()


def table():
    networkvolumes = requests.get(f"{BASE}/network-volumes").json()["networkVolumes"]
    return networkvolumes_table(networkvolumes)
