#!/usr/bin/env python3
"""rpctl: pods, volumes and spend from the command line."""
import argparse

from runpod_billing import fetch_json

from runpodctl import RunPodClient
from runpodctl.pods import list_pods, stop, wait_running

client = RunPodClient()


def main():
    parser = argparse.ArgumentParser(prog="rpctl")
    parser.add_argument("command", choices=["pods", "templates", "registry", "stop", "wait", "spend"])
    parser.add_argument("pod_id", nargs="?")
    args = parser.parse_args()
    if args.command == "pods":
        for pod in list_pods(client):
            print(pod["id"], pod["name"])
    elif args.command == "templates":
        for template in client.get("/templates"):
            print(template["id"], template["imageName"])
    elif args.command == "registry":
        for auth in client.get("containerregistryauth"):
            print(auth["name"])
    elif args.command == "stop":
        stop(client, args.pod_id)
    elif args.command == "wait":
        print(wait_running(client, args.pod_id)["id"])
    elif args.command == "spend":
        for row in fetch_json("/billing/endpoints", bucket_size="day"):
            print(row["time"], row["amount"])


if __name__ == "__main__":
    main()
