#!/usr/bin/env python3
"""launch.py NAME GPU: make a pod, print its id and name."""
import sys

from podsdk.client import RunPodClient


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    pod = RunPodClient().create_pod(argv[0], argv[1])
    print(pod["id"], pod["name"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
