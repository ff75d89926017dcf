"""The fixtures other packages build on: a real listening sandbox and the CLI surface."""
from __future__ import annotations

import argparse

import aiohttp

from sandbox import cli


async def test_sandbox_server_serves_a_real_client_session(sandbox_server, sandbox_headers):
    base = str(sandbox_server.make_url(""))
    async with aiohttp.ClientSession() as session:
        async with session.post(f"{base}/v2/pods", headers=sandbox_headers, json={
            "name": "p", "image": "i", "cpu": {"id": "cpu5c", "vcpuCount": 2}}) as resp:
            assert resp.status == 201
            pod = await resp.json()
        async with session.get(f"{base}/v2/pods/{pod['id']}", headers=sandbox_headers) as resp:
            assert (await resp.json())["status"] == "RUNNING"


def test_cli_arguments():
    parser = argparse.ArgumentParser()
    cli.configure(parser)
    args = parser.parse_args(["--port", "9000", "--db", "x.db", "--keys", "a,b", "--transition-seconds", "0",
                              "--unavailable-gpu", "NVIDIA A40"])
    assert (args.port, args.db, args.keys, args.transition_seconds, args.unavailable_gpu) == (
        9000, "x.db", "a,b", 0.0, ["NVIDIA A40"])
