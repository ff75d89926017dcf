#!/usr/bin/env python3
"""modelhub deploy tool.

    deploy.py up MODEL IMAGE [--gpu TYPE ...] [--max N]
    deploy.py ls
    deploy.py scale MODEL [--min N] [--max N] [--idle S]
    deploy.py smoke MODEL
    deploy.py spend [--model MODEL] [--days N]
    deploy.py down MODEL
"""
import argparse
import asyncio
import sys

from modelhub import billing, endpoints, jobs, templates
from modelhub.client import RunPod, RunPodAPIError


def parse(argv):
    p = argparse.ArgumentParser(prog="deploy.py")
    sub = p.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("up")
    up.add_argument("model")
    up.add_argument("image")
    up.add_argument("--gpu", action="append", dest="gpus")
    up.add_argument("--max", type=int, default=3)
    sub.add_parser("ls").add_argument("--workers", action="store_true")
    sc = sub.add_parser("scale")
    sc.add_argument("model")
    sc.add_argument("--min", type=int)
    sc.add_argument("--max", type=int)
    sc.add_argument("--idle", type=int)
    sub.add_parser("smoke").add_argument("model")
    sp = sub.add_parser("spend")
    sp.add_argument("--model")
    sp.add_argument("--days", type=int)
    sub.add_parser("down").add_argument("model")
    return p.parse_args(argv)


async def run(args):
    async with RunPod() as rp:
        if args.cmd == "up":
            tpl = await templates.ensure(rp, f"{args.model}-tpl", args.image, env={"MODEL": args.model})
            ep = await endpoints.by_name(rp, args.model)
            if ep is not None:  # the endpoint follows its template: bumping the image is enough
                print("updated", ep["name"], tpl["imageName"])
                return 0
            ep = await endpoints.create(rp, args.model, tpl["id"], gpus=args.gpus, max_workers=args.max)
            print("up", ep["name"], ep["gpuTypeIds"][0], ep["workersMin"], ep["workersMax"], ep["idleTimeout"])
        elif args.cmd == "ls":
            for ep in sorted(await endpoints.all_endpoints(rp, args.workers), key=lambda e: e["name"]):
                extra = f" workers={len(ep.get('workers') or [])}" if args.workers else ""
                print(f"{ep['name']:<16} {ep['workersMin']}-{ep['workersMax']} idle={ep['idleTimeout']}{extra}")
        elif args.cmd == "scale":
            ep = await endpoints.by_name(rp, args.model)
            ep = await endpoints.scale(rp, ep["id"], args.min, args.max, args.idle)
            print("scaled", ep["name"], ep["workers"]["min"], ep["workers"]["max"], ep["workers"]["idleTimeout"])
        elif args.cmd == "smoke":
            ep = await endpoints.by_name(rp, args.model)
            out, fresh, running = await asyncio.gather(jobs.runsync(ep["id"], {"prompt": "ping"}),
                                                       endpoints.get(rp, ep["id"]), endpoints.workers(rp, ep["id"]))
            print("smoke", out["status"], out["output"], "max", fresh["workersMax"], "workers", len(running))
            print("health", await jobs.health(ep["id"]))
        elif args.cmd == "spend":
            ep = await endpoints.by_name(rp, args.model) if args.model else None
            total, _rows = await billing.endpoint_spend(rp, args.days, ep and ep["id"])
            print("spend", args.model or "all", total)
        elif args.cmd == "down":
            ep = await endpoints.by_name(rp, args.model)
            if ep is not None:
                await endpoints.delete(rp, ep["id"])
            tpl = await templates.find(rp, f"{args.model}-tpl")
            if tpl is not None:
                await templates.remove(rp, tpl["id"])
            print("down", args.model, ep is not None, tpl is not None)
    return 0


def main(argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    try:
        return asyncio.run(run(args))
    except RunPodAPIError as e:
        print("error:", e.status, e.message)
        return 1


if __name__ == "__main__":
    sys.exit(main())
