#!/usr/bin/env python3
"""lifecycle.py start|stop|restart|reset|rm NAME"""
import argparse
import sys
from urllib.parse import quote

import rpops as rp
import v1bridge_compat

VERBS = ("start", "stop", "restart", "reset")


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("verb", choices=VERBS + ("rm",))
    p.add_argument("name")
    p.add_argument("--force", action="store_true", help="rm: stop first")
    a = p.parse_args(argv)
    pod = rp.find_pod(a.name)
    if pod is None:
        print("no pod", a.name)
        return 1
    if a.verb == "rm":
        url = "/pods/" + quote(pod["id"])
        if a.force and pod["status"] == "RUNNING":
            rp.post(url + "/action", {"action": "stop"})
        rp.delete(url)
        print("removed", a.name)
        return 0
    try:
        v1bridge_compat.call_v1(v1bridge_compat.by_method(delete=rp.delete, get=rp.get, patch=rp.patch, post=rp.post), "POST", f"/pods/{quote(pod['id'])}/{a.verb}")
    except rp.ApiError as e:
        print(a.verb, "failed:", e.message)
        return 1
    print(a.verb, a.name, rp.get_pod(pod["id"])["desiredStatus"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
