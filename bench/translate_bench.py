"""Per-object cost of the response translators: compiled vs the step-by-step reference, in one run.

    .venv/bin/python bench/translate_bench.py [--objects 50000]

The proxy runs the compiled translator once per object of every v1 answer
(20 times for a 20-pod list); the reference is the same mapping walked field
by field. Objects are realistic v2 answers from the embedded sandbox.
"""
from __future__ import annotations

import argparse
import asyncio
import platform
import time

from aiohttp.test_utils import TestClient, TestServer

from mappings.translate import ResponseContext, translators
from sandbox import SandboxConfig, create_sandbox_app

KEY = "bench"


async def sample_objects() -> dict[str, dict]:
    """One pod, template and endpoint as the sandbox answers them (RUNNING pod: runtime ports set)."""
    client = TestClient(TestServer(create_sandbox_app(SandboxConfig(keys=[KEY], transition_seconds=0))))
    await client.start_server()
    auth = {"Authorization": f"Bearer {KEY}"}
    try:
        pod = await (await client.post("/v2/pods", json={"name": "p", "image": "img", "gpu": {"id": "NVIDIA A40"},
                                                          "ports": ["22/tcp"], "args": "python -m app --x 'a b'"},
                                       headers=auth)).json()
        pod = await (await client.get(f"/v2/pods/{pod['id']}", headers=auth)).json()
        template = await (await client.post("/v2/templates", json={"name": "t", "image": "img"}, headers=auth)).json()
        endpoint = await (await client.post("/v2/serverless", json={
            "name": "e", "type": "QUEUE", "image": "img", "gpu": {"pools": ["ADA_24"]},
            "scaling": {"type": "QUEUE_DELAY", "queueDelay": 4}}, headers=auth)).json()
    finally:
        await client.close()
    return {"pod": pod, "template": template, "endpoint": endpoint}


def per_object_us(fn, obj, ctx, count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        fn(obj, ctx)
    return (time.perf_counter() - started) / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=50000)
    args = parser.parse_args()
    objects = asyncio.run(sample_objects())
    ctx = ResponseContext()
    print(f"machine: {platform.platform()}, Python {platform.python_version()}; {args.objects} objects per figure")
    print(f"{'map':<10} {'reference us':>13} {'compiled us':>12} {'speed-up':>9}")
    for map_id, obj in objects.items():
        compiled = translators().responses[map_id]
        assert compiled.translate(obj, ctx) == compiled._translate_steps(obj, ctx)
        reference = min(per_object_us(compiled._translate_steps, obj, ctx, args.objects) for _ in range(3))
        fast = min(per_object_us(compiled.translate, obj, ctx, args.objects) for _ in range(3))
        print(f"{map_id:<10} {reference:>13.2f} {fast:>12.2f} {reference / fast:>8.2f}x")


if __name__ == "__main__":
    main()
