"""runctl command line: python cli.py up NAME GPU | ls [STATUS] | status ID | stop ID | start ID | rm ID |
vol NAME SIZE | grow ID SIZE | vols"""
import sys

from runctl import pods, volumes
from runctl.http import ApiError


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    cmd, args = argv[0], argv[1:]
    try:
        if cmd == "up":
            pod = pods.launch(args[0], args[1])
            print(pod["id"], pod["name"], pod["status"])
        elif cmd == "ls":
            for pod in pods.listing(args[0] if args else None):
                print(pod["id"], pod["name"], pod["desiredStatus"])
            print("names", pods.names())
        elif cmd == "status":
            print(args[0], pods.status(args[0]))
        elif cmd == "stop":
            pods.stop(args[0])
        elif cmd == "start":
            pods.start(args[0])
        elif cmd == "rm":
            pods.remove(args[0])
        elif cmd == "vol":
            vol = volumes.create(args[0], int(args[1]))
            print(vol["id"], vol["name"], vol["size"])
        elif cmd == "grow":
            vol = volumes.grow(args[0], int(args[1]))
            print(vol["id"], vol["size"])
        elif cmd == "vols":
            for vol in volumes.all_volumes():
                print(vol["id"], vol["name"], vol["size"], vol["dataCenter"])
        else:
            print("unknown command", cmd)
            return 2
    except ApiError as err:
        print("error:", err)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
