#!/usr/bin/env python3
"""Start a dev box on the first GPU type that has capacity and wait for it: launch.py NAME [POLL_SECONDS]"""
import sys
import time

from rpdash import pods, volumes

# in order of preference; the H100 NVL is usually gone, the A40 is the fallback
GPU_TYPES = ["NVIDIA H100 NVL", "NVIDIA A40"]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    name = argv[0]
    poll = float(argv[1]) if len(argv) > 1 else 5.0
    vol = volumes.create_volume(f"{name}-data", 30, "US-KS-2")
    print("volume", vol["id"], vol["size"])
    pod = pods.create_pod(name, "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04", GPU_TYPES)
    print("pod", pod["id"], pod["gpu"]["id"])
    while True:
        pod = pods.get_pod(pod["id"])
        if pod["desiredStatus"] == "RUNNING":
            break
        time.sleep(poll)
    print("up", pod["name"], pod["costPerHr"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
