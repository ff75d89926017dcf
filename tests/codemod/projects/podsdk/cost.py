#!/usr/bin/env python3
"""cost.py ID: what the pod costs an hour, and its disk."""
import sys

from podsdk.client import RunPodClient


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    client = RunPodClient()
    pod = client.pod(argv[0])
    print(pod["name"], f"{pod['costPerHr']:.3f}", pod["containerDiskInGb"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
