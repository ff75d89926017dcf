#!/usr/bin/env python3
"""Stop and remove a dev box and its volume: teardown.py NAME"""
import sys

from rpdash import pods, volumes


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    name = argv[0]
    for pod in pods.list_pods():
        if pod["name"] != name:
            continue
        if pod["desiredStatus"] == "RUNNING":
            pods.stop_pod(pod["id"])
            print("stopped", pod["id"])
        pods.terminate_pod(pod["id"])
        print("terminated", pod["id"])
    for vol in volumes.list_volumes():
        if vol["name"] == f"{name}-data":
            volumes.delete_volume(vol["id"])
            print("deleted volume", vol["id"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
