"""labkit up|ls|stop|start|reset|retag|rm|volumes|down -- run `labkit -h`."""
import argparse
import sys

from . import pods, storage
from .session import ApiError, RunPodSession


def build_parser():
    p = argparse.ArgumentParser(prog="labkit")
    sub = p.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("up", help="start an experiment pod")
    up.add_argument("name")
    up.add_argument("--gpu", action="append", help="GPU type, repeat for fallbacks")
    up.add_argument("--volume", help="attach the shared network volume of that name")
    up.add_argument("--private", action="store_true", help="image from the lab registry")
    ls = sub.add_parser("ls")
    ls.add_argument("--status", choices=["RUNNING", "EXITED"])
    ls.add_argument("--prefix")
    for verb in ("stop", "start", "reset", "rm"):
        sub.add_parser(verb).add_argument("name")
    rt = sub.add_parser("retag")
    rt.add_argument("name")
    rt.add_argument("image")
    sub.add_parser("volumes")
    down = sub.add_parser("down", help="drop a volume and the registry login")
    down.add_argument("volume")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    s = RunPodSession()
    try:
        if args.cmd == "up":
            vol = storage.volume(s, args.volume) if args.volume else None
            auth = storage.registry_login(s) if args.private else None
            pod = pods.create(s, args.name, gpus=args.gpu, volume_id=vol and vol["id"],
                              registry_auth_id=auth and auth["id"])
            print("up", pod["name"], pod["gpu"]["id"], pod.get("volumeMountPath") or "-")
        elif args.cmd == "ls":
            for pod in sorted(pods.list_pods(s, args.status, args.prefix), key=lambda p: p["name"]):
                print(f"{pod['name']:<12} {pod['desiredStatus']:<8} ${pod['costPerHr']:.2f}/h")
        elif args.cmd == "volumes":
            for v in storage.volumes(s):
                print(v["name"], v["size"], v["dataCenter"])
        elif args.cmd == "down":
            for v in storage.volumes(s):
                if v["name"] == args.volume:
                    storage.drop_volume(s, v["id"])
            storage.registry_logout(s, storage.registry_login(s)["id"])
            print("down", args.volume)
        else:
            pod = pods.find(s, args.name)
            if pod is None:
                print("no such pod:", args.name)
                return 2
            if args.cmd == "stop":
                pods.stop(s, pod["id"])
            elif args.cmd == "start":
                pods.start(s, pod["id"])
            elif args.cmd == "reset":
                pods.reset(s, pod["id"])
            elif args.cmd == "retag":
                pod = pods.retag(s, pod["id"], args.image)
                print("image", pod["image"])
            elif args.cmd == "rm":
                pods.terminate(s, pod["id"])
            print(args.cmd, args.name)
    except ApiError as e:
        print("error:", e.message)
        return 1
    finally:
        s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
