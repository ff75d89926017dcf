import sys

from . import endpoints, pods, report, volumes
from .client import RunPodClient, RunPodError


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    client = RunPodClient()
    cmd = argv.pop(0)
    try:
        if cmd == "up":
            vol = volumes.create(client, argv[0] + "-data", 20)
            pod = pods.launch(client, argv[0], volume_id=vol["id"])
            print("launched", pod["name"], pod["gpu"]["id"], pod["volumeMountPath"])
        elif cmd == "report":
            print(report.pod_line(client, argv[0]))
            for line in report.volume_lines(client):
                print(line)
            print("running:", ", ".join(sorted(p["name"] for p in pods.running(client))))
        elif cmd == "grow":
            vol = next(v for v in volumes.all_volumes(client) if v["name"] == argv[0])
            vol = volumes.grow(client, vol["id"], int(argv[1]))
            print("grown", vol["name"], vol["size"])
        elif cmd == "restart":
            pod = pods.find(client, argv[0])
            pods.restart(client, pod["id"])
            print("restarted", argv[0])
        elif cmd == "workers":
            ep = endpoints.set_workers(client, argv[0], hi=int(argv[1]))
            print("workers", ep["workersMin"], ep["workersMax"], endpoints.endpoint(client, argv[0])["workersMax"])
        elif cmd == "down":
            pod = pods.find(client, argv[0])
            pods.retire(client, pod["id"])
            for v in volumes.all_volumes(client):
                if v["name"] == argv[0] + "-data":
                    volumes.drop(client, v["id"])
            print("down", argv[0])
    except RunPodError as e:
        print("error", e.status, e.message)
        return 1
    return 0
