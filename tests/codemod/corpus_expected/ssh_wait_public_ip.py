"""Start a GPU dev pod and print the ssh command once its TCP port is mapped."""
import argparse
import os
import sys
import time

import requests

RUNPOD_REST_API_URL = os.getenv("RUNPOD_REST_API_URL", "https://rest.runpod.io/v1")


def _req(method, path, **kw):
    headers = {"Authorization": "Bearer " + os.environ["RUNPOD_API_KEY"]}
    # v1bridge: Q28 read runtime.ports[] {private, public, ip}; take the public IP from a tcp port
    r = requests.request(method, RUNPOD_REST_API_URL + path, headers=headers, timeout=60, **kw)
    if r.status_code >= 400:
        # v1bridge: Q29 read detail (and errors[]) from the problem body
        raise SystemExit(f"{method} {path}: {r.json()['message']}")
    return r.json() if r.content else None


def launch(name, gpu):
    # v1bridge: R05 choose dataCenterIds from /v2/catalog/gpus availability instead
    return _req("POST", "/pods", json={
        "name": name,
        "imageName": "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04",
        "gpuTypeIds": [gpu],
        "gpuCount": 1,
        "supportPublicIp": True,
        "ports": ["22/tcp", "8888/http"],
        "volumeInGb": 20,
        "containerDiskInGb": 20,
    })


def wait_ssh(pod_id, timeout_s=600, every=10):
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        # v1bridge: Q28 read runtime.ports[] {private, public, ip}; take the public IP from a tcp port
        pod = _req("GET", f"/pods/{pod_id}")
        # v1bridge: Q28 read runtime.ports[] {private, public, ip}; take the public IP from a tcp port
        if pod.get("desiredStatus") == "RUNNING" and pod.get("publicIp") and pod.get("portMappings"):
            # v1bridge: Q28 read runtime.ports[] {private, public, ip}; take the public IP from a tcp port
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
    print(f"cost: ${pod['costPerHr']}/h")
    return 0


def scenario(base_url, api_key, ids):
    pod = launch("devgpu", "NVIDIA RTX A5000")
    # v1bridge: Q28 read runtime.ports[] {private, public, ip}; take the public IP from a tcp port
    got = _req("GET", f"/pods/{pod['id']}")
    # v1bridge: L01 use /v2/serverless, /v2/network-volumes, /v2/registries (and /v2 before every path)
    _req("DELETE", f"/pods/{pod['id']}")
    # v1bridge: Q28 read runtime.ports[] {private, public, ip}; take the public IP from a tcp port
    return {"status": got["desiredStatus"], "has_ports": isinstance(got.get("portMappings"), dict)}


if __name__ == "__main__":
    sys.exit(main())
