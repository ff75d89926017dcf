#!/usr/bin/env python3
"""volumes.py ls | make NAME GB [DC] | grow NAME GB | show NAME"""
import sys

from rpops import get, patch, post
from rpops.http import delete


def by_name(name):
    return next((v for v in get("/network-volumes")["networkVolumes"] if v["name"] == name), None)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    cmd = argv.pop(0) if argv else "ls"
    if cmd == "ls":
        for v in sorted(get("/network-volumes")["networkVolumes"], key=lambda v: v["name"]):
            print(v["name"], v["size"], v["dataCenter"])
    elif cmd == "make":
        dc = argv[2] if len(argv) > 2 else "US-KS-2"
        v = post("/network-volumes", {"name": argv[0], "size": int(argv[1]), "dataCenter": dc})
        print("made", v["name"], v["size"], v["dataCenter"])
    elif cmd == "grow":
        v = by_name(argv[0])
        v = patch(f"/network-volumes/{v['id']}", {"size": int(argv[1])})
        print("grown", v["name"], v["size"])
    elif cmd == "show":
        v = get("/network-volumes/" + by_name(argv[0])["id"])
        print(v["name"], v["size"], v["dataCenter"])
    elif cmd == "rm":
        delete(f"/network-volumes/{by_name(argv[0])['id']}")
        print("removed", argv[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
