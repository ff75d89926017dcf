"""The one place the proxy reaches the v2 sandbox: start it as the default upstream (no `--upstream` given).

The sandbox is a peer of the proxy, not part of it. The proxy uses only the sandbox package's public names
(`sandbox.SandboxConfig`, `sandbox.create_sandbox_app`, `sandbox.resolve_keys`), only here, and only when it
embeds one, so a proxy with an upstream never loads the emulator; `tests/test_boundaries.py` fails if any other
proxy module imports `sandbox`, or this one reaches inside it.
"""
from __future__ import annotations

import os
import sys
from typing import Mapping

from aiohttp import web

from mappings.errors import V1bridgeError


def sandbox_keys(keys_arg: str | list[str] | None, keys_file: str | os.PathLike[str] | None,
                 environ: Mapping[str, str] | None = None) -> tuple[list[str], bool]:
    """The embedded sandbox's API keys (--keys, --keys-file, V1BRIDGE_KEYS) and whether one was generated."""
    from sandbox import resolve_keys

    return resolve_keys(keys_arg, keys_file, None if environ is None else dict(environ))


async def start(keys: list[str], db_path: str | None, transition_seconds: float) -> tuple[web.AppRunner, str]:
    """A sandbox in this process on an ephemeral loopback port: its runner (to clean up) and its URL."""
    from sandbox import SandboxConfig, create_sandbox_app

    sandbox = create_sandbox_app(SandboxConfig(keys=list(keys), db_path=db_path,
                                               transition_seconds=transition_seconds))
    runner = web.AppRunner(sandbox, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}"


def serve(keys: list[str], db_path: str | None, port: int, backlog: int) -> None:
    """A sandbox serving on a loopback port until the process ends (the one shared by several workers); a
    database another process holds ends the process with status 2 and the reason."""
    from sandbox import SandboxConfig, create_sandbox_app

    try:
        # every worker's upstream pool connects to it: up to workers x --upstream-connections at once
        web.run_app(create_sandbox_app(SandboxConfig(keys=keys, db_path=db_path)), host="127.0.0.1", port=port,
                    access_log=None, print=None, backlog=backlog)
    except V1bridgeError as exc:
        print(f"v1bridge proxy: {exc}", file=sys.stderr)
        sys.exit(2)
