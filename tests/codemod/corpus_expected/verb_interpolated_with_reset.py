#!/usr/bin/env python3
"""podctl: tiny CLI around the pod endpoints.

    podctl list
    podctl start|stop|restart|reset POD_ID
"""
import argparse
import os
import sys

import requests

import v1bridge_compat

API = os.environ.get("RUNPOD_API_BASE", "https://api.runpod.io/v2")
ACTIONS = ["start", "stop", "restart", "reset"]


def _auth():
    key = os.environ.get("RUNPOD_API_KEY")
    if not key:
        sys.exit("RUNPOD_API_KEY is not set")
    return {"Authorization": f"Bearer {key}"}


def cmd_list(args):
    pods, paging = [], {}
    while True:
        page = requests.get(f"{API}/pods", headers=_auth(), timeout=15, params=paging).json()
        pods += page["pods"]
        if not page["pagination"]["hasNextPage"]:
            break
        paging = {"cursor": page["pagination"]["nextCursor"]}
    for pod in pods:
        print(f"{pod['id']:<16} {pod['status']:<10} {pod['name']}")
    return 0


def cmd_action(args):
    r = v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, headers=_auth(), timeout=60, **kw), "POST", f"{API}/pods/{args.pod_id}/{args.action}")
    if r.status_code != 200:
        print(f"{args.action} failed: {r.json().get('message', r.text)}", file=sys.stderr)
        return 1
    print(f"{args.action}: ok")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="podctl")
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list").set_defaults(func=cmd_list)
    for action in ACTIONS:
        p = sub.add_parser(action)
        p.add_argument("pod_id")
        p.set_defaults(func=cmd_action, action=action)
    args = parser.parse_args(argv)
    return args.func(args)


def scenario(base_url, api_key, ids):
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        codes = [main(["stop", ids["pod"]]), main(["start", ids["pod"]]), main(["list"])]
    return {"codes": codes, "lines": len(out.getvalue().splitlines())}


if __name__ == "__main__":
    sys.exit(main())
