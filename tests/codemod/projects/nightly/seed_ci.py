#!/usr/bin/env python3
"""Start N throwaway CPU pods for the integration tests (CI calls this before the suite)."""
import sys

from rp import call

FLAVORS = ["cpu5c", "cpu3c"]


def start(n, prefix="ci-"):
    made = []
    for i in range(n):
        pod = call("POST", "/pods", {
            "name": f"{prefix}{i}",
            "imageName": "python:3.12-slim",
            "computeType": "CPU",
            "cpuFlavorIds": FLAVORS,
            "vcpuCount": 2,
            "containerDiskInGb": 5,
            "templateId": "",
            "networkVolumeId": "",
            "ports": [],
        })
        made.append(pod)
    return made


def main(argv=None):
    argv = argv or []
    for pod in start(int(argv[0]) if argv else 2):
        print(pod["name"], pod["cpuFlavorId"], pod["vcpuCount"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
