#!/usr/bin/env python3
"""Nightly: stop CI pods that are still running, delete the ones that are stopped, report."""
import sys

import rp


def ci_pods(only_running=False):
    query = {}
    if only_running:
        query["desiredStatus"] = "RUNNING"
    return [p for p in rp.call("GET", "/pods", query=query) if p["name"].startswith("ci-")]


def main(argv=None):
    dry = "--dry-run" in (argv or [])
    for pod in ci_pods(only_running=True):
        print("stopping", pod["name"], pod["desiredStatus"])
        if not dry:
            rp.call("POST", "/pods/" + pod["id"] + "/stop")
    for pod in ci_pods():
        if pod["desiredStatus"] == "EXITED":
            print("deleting", pod["name"])
            if not dry:
                rp.call("DELETE", "/pods/" + pod["id"])
    left = sorted(p["name"] for p in rp.call("GET", "/pods"))
    print("left:", " ".join(left))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
