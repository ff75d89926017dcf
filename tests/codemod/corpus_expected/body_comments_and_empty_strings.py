"""Interactive dev-box launcher (argparse). Every flag maps to one pod field;
flags the user did not give are sent as empty strings, the way the web form does.
"""
import argparse
import os
import sys

import requests

REST = "https://api.runpod.io/v2"


def create_devbox(session, args):
    body = {
        # identity
        "name": args.name,
        "image": args.image,  # e.g. ghcr.io/acme/devbox:2026.11
        "cpu": {"id": args.flavor, "vcpuCount": args.vcpus},
        # storage
        "disk": args.disk,
        "ports": ["22/tcp"],
        "env": {"DEVBOX_USER": args.user},
        # compute: CPU boxes only for now, GPU boxes go through the other tool
        # no pod volume: dev boxes are disposable
    }
    if args.network_volume:
        body["mounts"] = {"network": [{"volumeId": args.network_volume, "path": "/workspace"}]}
    if args.template:
        body["templateId"] = args.template
    if args.registry:
        body["registry"] = args.registry
    resp = session.post(f"{REST}/pods", json=body, timeout=60)
    if resp.status_code >= 400:
        sys.exit(f"create failed: {resp.json()['detail']}")
    return resp.json()


def parse(argv):
    p = argparse.ArgumentParser(description="launch a dev box")
    p.add_argument("--name", required=True)
    p.add_argument("--image", default="ubuntu:24.04")
    p.add_argument("--flavor", default="cpu3c")
    p.add_argument("--vcpus", type=int, default=2)
    p.add_argument("--disk", type=int, default=15)
    p.add_argument("--network-volume")
    p.add_argument("--template")
    p.add_argument("--registry")
    p.add_argument("--user", default=os.environ.get("USER", "dev"))
    return p.parse_args(argv)


def main(argv=None, api_key=None):
    args = parse(argv)
    with requests.Session() as s:
        s.headers["Authorization"] = f"Bearer {api_key or os.environ['RUNPOD_API_KEY']}"
        pod = create_devbox(s, args)
    print(pod["id"], pod["status"])
    return pod


def scenario(base_url, api_key, ids):
    pod = main(["--name", "devbox-ana", "--user", "ana"], api_key=api_key)
    return {"name": pod["name"], "image": pod["image"], "env": pod["env"]}


if __name__ == "__main__":
    main()
