"""Async storage provisioning (aiohttp)."""
from __future__ import annotations

import asyncio
import os

import aiohttp

API_BASE = os.getenv("RUNPOD_API_BASE", "https://api.runpod.io/v2")


class StorageError(Exception):
    pass


async def _check(resp: aiohttp.ClientResponse) -> None:
    if resp.status >= 400:
        body = await resp.json(content_type=None)
        raise StorageError(f"{resp.status}: {body.get('detail')}")


async def provision(api_key: str, names: list[str], size: int = 25, dc: str = "EU-SE-1") -> list[dict]:
    headers = {"Authorization": f"Bearer {api_key}"}
    async with aiohttp.ClientSession(headers=headers) as session:
        async with session.get(f"{API_BASE}/network-volumes") as resp:
            await _check(resp)
            existing = {v["name"]: v for v in (await resp.json())["networkVolumes"]}
        created = []
        for name in names:
            if name in existing:
                continue
            async with session.post(f"{API_BASE}/network-volumes",
                                    json={"name": name, "size": size, "dataCenter": dc}) as resp:
                await _check(resp)
                created.append(await resp.json())
        return created


async def decommission(api_key: str, volume_id: str) -> None:
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {api_key}"}) as session:
        async with session.delete(f"{API_BASE}/network-volumes/{volume_id}") as resp:
            await _check(resp)


async def scenario(base_url, api_key, ids):
    made = await provision(api_key, ["shards-a", "shards-b"])
    again = await provision(api_key, ["shards-a", "shards-c"], size=40)
    await decommission(api_key, made[0]["id"])
    try:
        await provision(api_key, ["tiny"], size=0)
        err = None
    except StorageError:
        err = "refused"
    return {"made": sorted(v["name"] for v in made), "again": [v["name"] for v in again],
            "dcs": sorted({v["dataCenter"] for v in made}), "err": err}


if __name__ == "__main__":
    asyncio.run(provision(os.environ["RUNPOD_API_KEY"], ["scratch"]))
