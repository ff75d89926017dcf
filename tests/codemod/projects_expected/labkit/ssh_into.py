#!/usr/bin/env python3
"""Wait for an experiment pod to come up and print the ssh line (the launcher pipes it into tmux)."""
import sys

from labkit import RunPodSession
from labkit import pods


def ssh_line(pod):
    ip = pod.get("publicIp")
    port = (pod.get("portMappings") or {}).get("22")
    if not ip or not port:
        return None
    return f"ssh -p {port} root@{ip}"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    name, every = argv[0], float(argv[1]) if len(argv) > 1 else 10.0
    with RunPodSession() as s:
        pod = pods.find(s, name)
        if pod is None:
            print("no such pod:", name)
            return 2
        pod = pods.wait_until(s, pod["id"], "RUNNING", every=every)
        print(pod["name"], pod["desiredStatus"], f"{pod['costPerHr']:.3f}", pod["gpu"]["id"])
        print(ssh_line(pod) or "no public ip yet")
    return 0


if __name__ == "__main__":
    sys.exit(main())
