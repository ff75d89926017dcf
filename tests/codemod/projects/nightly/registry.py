#!/usr/bin/env python3
"""Rotate the registry credential CI pulls images with."""
import os
import sys

from rp import ApiError, call

NAME = "ci-ghcr"


def rotate(user, token):
    for auth in call("GET", "/containerregistryauth"):
        if auth["name"] == NAME:
            call("DELETE", f"/containerregistryauth/{auth['id']}")
    return call("POST", "/containerregistryauth", {"name": NAME, "username": user, "password": token})


def main(argv=None):
    try:
        auth = rotate("ci-bot", os.environ.get("GHCR_TOKEN", "t0ken"))
    except ApiError as e:
        print("failed:", e)
        return 1
    print("rotated", auth["name"])
    print("now:", ", ".join(a["name"] for a in call("GET", "/containerregistryauth")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
