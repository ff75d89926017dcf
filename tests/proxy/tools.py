"""Helpers several proxy test modules share: reading what the proxy sent and answered, making resources, starting
and stopping proxy processes."""
from __future__ import annotations

import copy
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from sandbox.common import SANDBOX
from sandbox.pods import build_pod
from tests.sandbox.tools import gpu_pod

ROOT = Path(__file__).resolve().parents[2]

EMULATION = "X-V1bridge-Emulation"


# Translated upstream calls only (lookups such as the GPU catalog are asserted where they matter).
LOOKUP_PREFIXES = ("/v2/catalog/",)


def emulations(r) -> set[str]:
    """The emulation header as a set (its order follows the translator's steps)."""
    value = r.headers.get(EMULATION)
    return set(value.split(", ")) if value else set()


def sent(recorder, *, lookups: bool = False):
    return [
        (s.method, s.path, s.body)
        for s in recorder
        if lookups or not s.path.startswith(LOOKUP_PREFIXES)
    ]


async def v2(proxy, auth, method, path, **kw):
    """Read the sandbox directly (through the /v2 pass-through) to build the exact expected v1 answer."""
    r = await proxy.request(method, path, headers=auth, **kw)
    assert r.status < 300, await r.text()
    return await r.json() if r.status != 204 else None


def v1_pod(p: dict) -> dict:
    """The v1 Pod the mapping promises for a v2 Pod from the sandbox (running GPU pod, persistent volume)."""
    out = {
        "id": p["id"],
        "name": p["name"],
        "desiredStatus": {"EXITED": "EXITED"}.get(p["status"], "RUNNING"),
        "image": p["image"],
        "dockerStartCmd": p["cmd"],
        "dockerEntrypoint": p["entrypoint"],
        "containerDiskInGb": p["disk"],
        "volumeInGb": p["mounts"].get("persistent", {}).get("size", 0),
        "volumeMountPath": p["mounts"]["persistent"]["path"] if p["mounts"].get("persistent") else None,
        "ports": p["ports"],
        "env": p["env"],
        "costPerHr": p["cost"],
        "adjustedCostPerHr": p["cost"],
        "locked": p["locked"],
        "interruptible": False,
    }
    if out["volumeMountPath"] is None:
        del out["volumeMountPath"]
    if p.get("gpu"):
        out["gpu"] = {"id": p["gpu"]["id"], "count": p["gpu"]["count"]}
        out.update(vcpuCount=p["gpu"]["vcpuCount"], memoryInGb=p["gpu"]["memory"])
    if p.get("cpu"):
        out.update(cpuFlavorId=p["cpu"]["id"], vcpuCount=p["cpu"]["vcpuCount"], memoryInGb=p["cpu"]["memory"])
    if p.get("startedAt"):
        out["lastStartedAt"] = p["startedAt"]
    ports = (p.get("runtime") or {}).get("ports") or []
    mapping = {str(x["private"]): x["public"] for x in ports if x["public"] is not None}
    # v1 sent both keys, null while the pod has no public ports (v1.json: nullable)
    out["portMappings"] = mapping or None
    out["publicIp"] = next((x["ip"] for x in ports if x["type"] == "tcp" and x["ip"]), None) if mapping else None
    return out


async def create_pod(proxy, auth, **extra) -> dict:
    body = {"name": "web", "imageName": "nginx:1.27", "gpuTypeIds": ["NVIDIA A40"], **extra}
    r = await proxy.post("/v1/pods", json=body, headers=auth)
    assert r.status == 201, await r.text()
    return await r.json()


def owner(app, key: str) -> str:
    return app[SANDBOX].owners[key]


def seed_pods(app, key: str, count: int, *, gpu_every: dict[int, str] | None = None,
              cluster: range = range(0)) -> list[dict]:
    """`count` pods straight into the sandbox store, oldest first (the API would take minutes for 2,500)."""
    sb = app[SANDBOX]
    docs = []
    for n in range(count):
        gpu = next((g for every, g in (gpu_every or {}).items() if n % every == 0), "NVIDIA GeForce RTX 4090")
        member = {"id": "clu1", "rank": n, "ip": "10.65.0.2"} if n in cluster else None
        doc = build_pod(sb, gpu_pod(name=f"p{n:04d}", gpu={"id": gpu, "count": 1}), owner(app, key), cluster=member)
        sb.store.put("pod", doc)
        docs.append(doc)
    return docs


def clone(app, kind: str, doc: dict, count: int, name: str) -> list[dict]:
    """`count` copies of a stored document under new ids (and names), oldest first."""
    sb = app[SANDBOX]
    out = []
    for n in range(count):
        copied = copy.deepcopy(doc)
        copied.pop("_seq", None)
        copied["id"] = f"{kind[:3]}{n:05d}"
        copied["name"] = f"{name}{n:04d}"
        sb.store.put(kind, copied)
        out.append(copied)
    return out


def cursor_calls(recorder, path: str) -> list[dict]:
    return [dict(s.query) for s in recorder if s.method == "GET" and s.path == path]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_answering(port: int, proc: subprocess.Popen, path: str = "/healthz") -> None:
    deadline = time.monotonic() + 40
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=1):
                return
        except urllib.error.HTTPError:
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"port {port} never answered: {proc.stderr.read().decode() if proc.stderr else ''}")
            time.sleep(0.1)


def stop_process(proc: subprocess.Popen) -> None:
    """SIGTERM to the parent (the CLI or the gunicorn master), which stops its workers gracefully (their records
    flushed) and waits for them."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def wait_booted(master: int, workers: int) -> None:
    """gunicorn's workers share the master's socket: wait until all are forked and have built their app."""
    deadline = time.monotonic() + 40
    while len(Path(f"/proc/{master}/task/{master}/children").read_text().split()) < workers:
        assert time.monotonic() < deadline, "gunicorn workers never started"
        time.sleep(0.1)
    time.sleep(2)


def start_proxy(port: int, *flags: str) -> subprocess.Popen:
    upstream = f"http://127.0.0.1:{free_port()}"  # never called: only connections are opened
    return subprocess.Popen([sys.executable, "-m", "v1bridge.cli", "proxy", "--upstream", upstream, "--port", str(port),
                             "--no-access-log", *flags], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
