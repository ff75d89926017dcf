#!/usr/bin/env python3
"""Provision a GPU box for an on-call investigation; tries the GPU types in order until one has capacity."""
import argparse
import sys
import time

import rpops as rp

GPUS = ["NVIDIA H100 NVL", "NVIDIA H100 80GB HBM3", "NVIDIA A100 80GB PCIe"]
IMAGE = "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04"


def launch(name, gpus=GPUS, disk=50):
    last = None
    for gpu in gpus:
        try:
            return rp.post("/pods", {
                "name": name,
                "image": IMAGE,
                "gpu": {"id": gpu, "count": 1, "minRamPerGpu": 8, "minVcpuCountPerGpu": 2},
                "cloud": "SECURE",
                "disk": disk,
                "ports": ["8888/http", "22/tcp"],
                "env": {"JUPYTER_PASSWORD": "oncall"},
                "mounts": {"persistent": {"size": 100, "path": "/workspace"}},
            })
        except rp.ApiError as e:
            if e.status == 400 and "no instances" in e.message.lower():
                print("no capacity:", gpu)
                last = e
                continue
            raise
    raise SystemExit(f"nothing available: {last}")


def wait_running(pod_id, every):
    for _ in range(120):
        pod = rp.get_pod(pod_id)
        if pod["desiredStatus"] == "RUNNING" and pod.get("publicIp"):
            return pod
        time.sleep(every)
    raise TimeoutError(pod_id)


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("name")
    p.add_argument("--gpu", action="append")
    p.add_argument("--poll", type=float, default=5.0)
    a = p.parse_args(argv)
    if rp.find_pod(a.name):
        print("exists:", a.name)
        return 1
    pod = launch(a.name, a.gpu or GPUS)
    pod = wait_running(pod["id"], a.poll)
    print(pod["name"], pod["gpu"]["id"], f"${pod['costPerHr']}/h")
    print(f"ssh root@{pod['publicIp']} -p {pod['portMappings']['22']}")
    print(f"jupyter: https://{pod['id']}-8888.proxy.runpod.net")
    return 0


if __name__ == "__main__":
    sys.exit(main())
