"""Interactive dev-box launcher (argparse). Every flag maps to one pod field;
flags the user did not give are sent as empty strings, the way the web form does.
"""
import argparse
import os
import sys

import requests

REST = "https://rest.runpod.io/v1"


def create_devbox(session, args):
    body = {
        # identity
        "name": args.name,
        "imageName": args.image,  # e.g. ghcr.io/acme/devbox:2026.11
        # compute: CPU boxes only for now, GPU boxes go through the other tool
        "computeType": "CPU",
        "cpuFlavorIds": [args.flavor],
        "vcpuCount": args.vcpus,
        # storage
        "containerDiskInGb": args.disk,
        "volumeInGb": 0,  # no pod volume: dev boxes are disposable
        "networkVolumeId": "",
        "templateId": "",
        "containerRegistryAuthId": "",
        "ports": ["22/tcp"],
        "env": {"DEVBOX_USER": args.user},
    }
    if args.network_volume:
        body["networkVolumeId"] = args.network_volume
    if args.template:
        body["templateId"] = args.template
    if args.registry:
        body["containerRegistryAuthId"] = args.registry
    resp = session.post(f"{REST}/pods", json=body, timeout=60)
    if resp.status_code >= 400:
        sys.exit(f"create failed: {resp.json()['message']}")
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
    print(pod["id"], pod["desiredStatus"])
    return pod


def scenario(base_url, api_key, ids):
    pod = main(["--name", "devbox-ana", "--user", "ana"], api_key=api_key)
    return {"name": pod["name"], "image": pod["image"], "env": pod["env"]}


if __name__ == "__main__":
    main()
