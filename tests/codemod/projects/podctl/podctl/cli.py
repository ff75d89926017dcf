"""podctl command line: podctl up NAME | ls [--status S] | stop ID | reset ID | rm ID | deploy NAME IMAGE | scale NAME N"""
import argparse
import sys

from . import endpoints, pods


def main(argv=None):
    p = argparse.ArgumentParser(prog="podctl")
    sub = p.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("up")
    up.add_argument("name")
    up.add_argument("--gpu", action="append")
    ls = sub.add_parser("ls")
    ls.add_argument("--status")
    ls.add_argument("--gpu")
    for verb in ("stop", "reset", "rm"):
        sub.add_parser(verb).add_argument("pod_id")
    dep = sub.add_parser("deploy")
    dep.add_argument("name")
    dep.add_argument("image")
    sc = sub.add_parser("scale")
    sc.add_argument("name")
    sc.add_argument("workers", type=int)
    a = p.parse_args(argv)

    if a.cmd == "up":
        pod = pods.create_pod(a.name, gpus=a.gpu)
        gpu = pod.get("gpu") or {}
        print(pod["id"], pod["name"], gpu.get("id", "-"), gpu.get("count", 0))
    elif a.cmd == "ls":
        for pod in sorted(pods.list_pods(a.status, a.gpu), key=lambda x: x["name"]):
            print(f"{pod['name']:<20} {pod['desiredStatus']:<10} {pod['image']}")
    elif a.cmd == "stop":
        pods.stop_pod(a.pod_id)
        print("stopped", a.pod_id)
    elif a.cmd == "reset":
        pods.reset_pod(a.pod_id)
        print("reset", a.pod_id)
    elif a.cmd == "rm":
        pods.terminate_pod(a.pod_id)
        print("removed", a.pod_id)
    elif a.cmd == "deploy":
        ep = endpoints.deploy(a.name, a.image)
        print(ep["id"], ep["name"], ep["workersMin"], ep["workersMax"])
    elif a.cmd == "scale":
        ep = endpoints.find_endpoint(a.name)
        if ep is None:
            print("no endpoint", a.name, file=sys.stderr)
            return 1
        ep = endpoints.scale(ep["id"], a.workers)
        print(ep["name"], ep["workersMax"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
