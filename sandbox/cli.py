"""`v1bridge sandbox`: serve the v2 emulator at /v2/..."""
from __future__ import annotations

import argparse
import sys

from .config import SandboxConfig, resolve_keys


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8090, help="port (default 8090)")
    parser.add_argument("--db", metavar="PATH", default=None, help="SQLite file for state (default: in memory)")
    parser.add_argument("--keys", default=None, help="comma-separated API keys (also V1BRIDGE_KEYS)")
    parser.add_argument("--keys-file", default=None, help="file with one API key per line")
    parser.add_argument(
        "--transition-seconds", type=float, default=2.0,
        help="seconds a pod spends in PROVISIONING and in STARTING (0: RUNNING at once)",
    )
    parser.add_argument(
        "--max-page-size", type=int, default=None, metavar="N",
        help="answer at most N items per page of a paginated list, whatever the limit asked "
             "(default: as the service, the limit or its default)",
    )
    parser.add_argument(
        "--unavailable-gpu", action="append", default=None, metavar="GPU_TYPE_ID",
        help="GPU type that answers 'no instances available' (repeatable; replaces the seeded set)",
    )


def run(args: argparse.Namespace) -> int:
    from aiohttp import web

    from .app import create_sandbox_app

    keys, generated = resolve_keys(args.keys, args.keys_file)
    if args.max_page_size is not None and args.max_page_size < 1:
        print("v1bridge sandbox: --max-page-size must be at least 1", file=sys.stderr)
        return 2
    config = SandboxConfig(keys=keys, db_path=args.db, transition_seconds=args.transition_seconds,
                           max_page_size=args.max_page_size)
    if args.unavailable_gpu is not None:
        config.unavailable_gpu_types = set(args.unavailable_gpu)
    if generated:
        print(f"v1bridge sandbox: no API key given; development key: {keys[0]}", file=sys.stderr)
    print(
        f"v1bridge sandbox: serving v2 at http://{args.host}:{args.port}/v2 "
        f"(state: {args.db or 'in memory'})",
        file=sys.stderr,
    )
    app = create_sandbox_app(config)  # DatabaseLocked: shown by v1bridge/cli.py (exit 2)
    web.run_app(app, host=args.host, port=args.port, print=None, access_log=None)
    return 0
