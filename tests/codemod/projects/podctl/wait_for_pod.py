#!/usr/bin/env python3
"""Block until a pod is up (used by the training launcher), then print how to reach it."""
import sys
import time

from podctl import pods


def wait(pod_id, timeout=600, every=5.0):
    deadline = time.monotonic() + timeout
    while True:
        pod = pods.get_pod(pod_id)
        status = pod["desiredStatus"]
        if status == "RUNNING":
            return pod
        if status in ("EXITED", "TERMINATED"):
            raise RuntimeError(f"pod {pod_id} is {status}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"pod {pod_id} still {status} after {timeout}s")
        time.sleep(every)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    pod = wait(argv[0], every=float(argv[1]) if len(argv) > 1 else 5.0)
    print(pod["id"], pod["desiredStatus"], pod["costPerHr"], pod["gpu"]["id"])
    cmd = pods.ssh_command(pod["id"])
    print(cmd or "no public ip yet")
    return 0


if __name__ == "__main__":
    sys.exit(main())
