"""Issue 23 #8: one client is one fingerprint across workers and restarts, by default. The salt is kept with the
usage records (telemetry.stored_salt), created once, atomically, whoever comes first; never logged."""
from __future__ import annotations

import multiprocessing
import os

import orjson

from proxy.app import create_proxy_app
from proxy.config import ProxyConfig
from proxy.telemetry import SALT_FILE, stored_salt

KEY = {"Authorization": "Bearer k1"}


def _race(directory: str, start, out) -> None:
    start.wait()
    out.put(stored_salt(directory))


def test_concurrent_workers_agree_on_one_salt_made_once(tmp_path):
    """Eight processes ask for the salt of a fresh directory at once: one file, one value, no temporary left."""
    directory = str(tmp_path / "usage")
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Event(), ctx.Queue()
    workers = [ctx.Process(target=_race, args=(directory, start, out)) for _ in range(8)]
    for w in workers:
        w.start()
    start.set()
    salts = {out.get(timeout=30) for _ in workers}
    for w in workers:
        w.join(10)
    assert len(salts) == 1 and len(salts.pop()) == 32
    assert os.listdir(directory) == [SALT_FILE]
    assert os.stat(os.path.join(directory, SALT_FILE)).st_mode & 0o777 == 0o600


async def test_a_restart_and_a_second_worker_fingerprint_a_key_alike(aiohttp_client, tmp_path, monkeypatch):
    monkeypatch.delenv("V1BRIDGE_FINGERPRINT_SALT", raising=False)
    usage = tmp_path / "usage"
    clients = []
    for _ in range(3):  # a worker, another worker, a restart: three apps over one usage directory
        config = ProxyConfig(keys=["k1"], usage_dir=str(usage), access_log=False)
        assert config.fingerprint_salt is None
        client = await aiohttp_client(create_proxy_app(config))
        assert (await client.get("/v1/pods", headers=KEY)).status == 200
        await client.close()
        [record] = [orjson.loads(line) for line in open(sorted(usage.glob("usage-*.jsonl"))[-1], "rb")][-1:]
        clients.append(record["client"])
    assert len(set(clients)) == 1
    salt = (usage / SALT_FILE).read_text().strip()
    assert salt not in "".join(p.read_text() for p in usage.glob("usage-*.jsonl"))
    assert salt not in repr(config)


async def test_a_configured_salt_still_wins(aiohttp_client, tmp_path, monkeypatch):
    monkeypatch.setenv("V1BRIDGE_FINGERPRINT_SALT", "from-env")
    config = ProxyConfig(keys=["k1"], usage_dir=str(tmp_path), access_log=False)
    assert config.fingerprint_salt == "from-env"
    client = await aiohttp_client(create_proxy_app(config))
    await client.get("/v1/pods", headers=KEY)
    await client.close()
    assert not (tmp_path / SALT_FILE).exists()
