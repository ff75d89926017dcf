"""Start a GPU dev pod and print the ssh command once its TCP port is mapped."""
import argparse
import os
import sys
import time

import requests

import v1bridge_compat

RUNPOD_REST_API_URL = os.getenv("RUNPOD_REST_API_URL", "https://api.runpod.io/v2")


def _req(method, path, **kw):
    headers = {"Authorization": "Bearer " + os.environ["RUNPOD_API_KEY"]}
    r = requests.request(method, RUNPOD_REST_API_URL + path, headers=headers, timeout=60, **kw)
    if r.status_code >= 400:
        raise SystemExit(f"{method} {path}: {r.json()['detail']}")
    return r.json() if r.content else None


def launch(name, gpu):
    return _req("POST", "/pods", json={
        "name": name,
        "image": "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04",
        "gpu": {"id": gpu, "count": 1, "minRamPerGpu": 8, "minVcpuCountPerGpu": 2},
        "ports": ["22/tcp", "8888/http"],
        "disk": 20,
        "mounts": {"persistent": {"size": 20, "path": "/workspace"}},
    })


def wait_ssh(pod_id, timeout_s=600, every=10):
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        pod = v1bridge_compat.v1_view("pod", _req("GET", f"/pods/{pod_id}"))
        if pod.get("desiredStatus") == "RUNNING" and pod.get("publicIp") and pod.get("portMappings"):
            return pod["publicIp"], pod["portMappings"]["22"]
        time.sleep(every)
    raise TimeoutError(pod_id)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", default="devgpu")
    ap.add_argument("--gpu", default="NVIDIA RTX A5000")
    args = ap.parse_args(argv)
    pod = launch(args.name, args.gpu)
    ip, port = wait_ssh(pod["id"])
    print(f"ssh root@{ip} -p {port} -i ~/.ssh/id_ed25519")
    print(f"cost: ${pod['cost']}/h")
    return 0


def scenario(base_url, api_key, ids):
    pod = launch("devgpu", "NVIDIA RTX A5000")
    got = v1bridge_compat.v1_view("pod", _req("GET", f"/pods/{pod['id']}"))
    _req("DELETE", f"/pods/{pod['id']}")
    return {"status": got["desiredStatus"], "has_ports": isinstance(got.get("portMappings"), dict)}


if __name__ == "__main__":
    sys.exit(main())
