"""Run a multi-module client project of tests/codemod/projects/ as its user would, against real servers.

The project's code is executed as written: no constant is set and no environment default replaced. Its requests
leave for the real service's hosts (`https://rest.runpod.io/v1`, `https://api.runpod.io/v2`, the job API at
`https://api.runpod.ai/v2`) and are sent instead to the test's servers by `HostMap`, which rewrites the start of the
URL at the HTTP layer (requests' adapter, httpx's transports, urllib's opener, aiohttp's session), and records which
of the service's APIs each request was addressed to. So a base left on v1 by the rewrite, a module constant, a
dataclass default or an environment default are all exercised exactly as the rewrite left them.
"""
from __future__ import annotations

import asyncio
import contextlib
import importlib
import io
import re
import shutil
import subprocess
import sys
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import requests
import requests.adapters

PROJECTS = Path(__file__).parent / "projects"
ROOT = Path(__file__).resolve().parents[2]
V1 = "https://rest.runpod.io/v1"
V2 = "https://api.runpod.io/v2"
JOBS = "https://api.runpod.ai/v2"


@dataclass
class HostMap:
    """Prefix -> address of a test server; `sent` keeps (api, method, path) of every request mapped."""

    targets: dict[str, str]
    sent: list[tuple[str, str, str]] = field(default_factory=list)

    def map(self, url: str, method: str) -> str:
        for prefix, target in self.targets.items():
            if url.startswith(prefix):
                api = {V1: "v1", V2: "v2", JOBS: "jobs"}[prefix]
                self.sent.append((api, method.upper(), url[len(prefix):].split("?")[0]))
                return target + url[len(prefix):]
        return url

    @contextlib.contextmanager
    def installed(self):
        """Route every HTTP library the projects use through `map` while the block runs."""
        hostmap = self
        saved = (requests.adapters.HTTPAdapter.send, httpx.HTTPTransport.handle_request,
                 httpx.AsyncHTTPTransport.handle_async_request, urllib.request.OpenerDirector.open,
                 aiohttp.ClientSession._request)
        adapter_send, sync_handle, async_handle, opener_open, session_request = saved

        def send(self, request, *args, **kwargs):
            request.url = hostmap.map(request.url, request.method)
            return adapter_send(self, request, *args, **kwargs)

        def moved(request: httpx.Request) -> httpx.Request:
            url = hostmap.map(str(request.url), request.method)
            if url != str(request.url):
                request.url = httpx.URL(url)
                request.headers["Host"] = request.url.netloc.decode()
            return request

        def handle_request(self, request):
            return sync_handle(self, moved(request))

        async def handle_async_request(self, request):
            return await async_handle(self, moved(request))

        def open_(self, fullurl, data=None, *args, **kwargs):
            if isinstance(fullurl, str):
                fullurl = urllib.request.Request(fullurl, data=data)
                data = None
            fullurl.full_url = hostmap.map(fullurl.full_url, fullurl.get_method())
            return opener_open(self, fullurl, data, *args, **kwargs)

        def request_(self, method, str_or_url, *args, **kwargs):
            return session_request(self, method, hostmap.map(str(str_or_url), method), *args, **kwargs)

        requests.adapters.HTTPAdapter.send = send
        httpx.HTTPTransport.handle_request = handle_request
        httpx.AsyncHTTPTransport.handle_async_request = handle_async_request
        urllib.request.OpenerDirector.open = open_
        aiohttp.ClientSession._request = request_
        try:
            yield self
        finally:
            (requests.adapters.HTTPAdapter.send, httpx.HTTPTransport.handle_request,
             httpx.AsyncHTTPTransport.handle_async_request, urllib.request.OpenerDirector.open,
             aiohttp.ClientSession._request) = saved


def copy_project(name: str, dest: Path) -> Path:
    shutil.copytree(PROJECTS / name, dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def rewrite(root: Path, *options: str) -> subprocess.CompletedProcess:
    """`v1bridge rewrite` on a project directory, the command a user runs."""
    return subprocess.run([sys.executable, "-m", "v1bridge", "rewrite", "--no-progress", *options, str(root)],
                          capture_output=True, text=True, cwd=ROOT)


def tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` (relative path -> bytes), caches left out."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


class Loaded:
    """A project directory importable by its own module names; `main` runs one of its scripts' main(argv)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @contextlib.contextmanager
    def active(self):
        before = set(sys.modules)
        sys.path.insert(0, str(self.root))
        importlib.invalidate_caches()
        try:
            yield self
        finally:
            sys.path.remove(str(self.root))
            for name in set(sys.modules) - before:
                del sys.modules[name]

    def module(self, name: str):
        return importlib.import_module(name)

    async def main(self, module: str, argv: list[str]) -> list[str]:
        """What `python -m module argv...` prints (stdout; an exit code other than 0 is part of the output)."""
        mod = self.module(module)

        def go() -> list[str]:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                try:
                    code = mod.main(argv)
                except SystemExit as exit_:
                    code = exit_.code
            lines = out.getvalue().splitlines()
            return lines + ([f"exit {code}"] if code not in (0, None) else [])

        return await asyncio.to_thread(go)


SANDBOX_ID = re.compile(r"[a-z0-9]{10,}")  # the sandbox's resource ids (a GPU type's id is a name)
IP = re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}\b")


def normalized(lines: list[str], ids: set[str]) -> list[str]:
    """Output with what differs between two sandboxes by construction (ids, addresses, ports) replaced."""
    out = []
    for line in lines:
        for one in sorted(ids, key=len, reverse=True):
            line = line.replace(one, "<id>")
        line = IP.sub("<ip>", line)
        line = re.sub(r"-p \d+", "-p <port>", line)
        out.append(line)
    return out


def ids_in(value: Any, found: set[str]) -> set[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "id" and isinstance(item, str) and SANDBOX_ID.fullmatch(item):
                found.add(item)
            ids_in(item, found)
    elif isinstance(value, list):
        for item in value:
            ids_in(item, found)
    return found
