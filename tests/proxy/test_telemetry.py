"""Batched usage records and access log: nothing lost at shutdown, flushed on a timer, same content as before."""
from __future__ import annotations

import asyncio
import json
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from proxy import telemetry
from proxy.app import create_proxy_app
from proxy.config import ProxyConfig
from proxy.telemetry import Fingerprints, fingerprint, now_iso


def _records(directory: Path) -> list[dict]:
    return [json.loads(line) for f in directory.glob("usage-*-*.jsonl") for line in f.read_text().splitlines()]


async def test_usage_records_written_at_shutdown(aiohttp_client, upstream, tmp_path, sandbox_keys):
    config = ProxyConfig(upstream=str(upstream.make_url("")).rstrip("/"), usage_dir=str(tmp_path / "u"),
                         fingerprint_salt="s", access_log=False)
    client = await aiohttp_client(create_proxy_app(config))
    for _ in range(3):
        assert (await client.get("/v1/pods", headers={"Authorization": f"Bearer {sandbox_keys[0]}"})).status == 200
    await client.close()
    records = _records(tmp_path / "u")
    assert [(r["operation"], r["status"]) for r in records] == [("pods.list", 200)] * 3


async def test_usage_records_flushed_periodically(aiohttp_client, upstream, tmp_path, sandbox_keys, monkeypatch):
    monkeypatch.setattr(telemetry, "FLUSH_SECONDS", 0.05)
    config = ProxyConfig(upstream=str(upstream.make_url("")).rstrip("/"), usage_dir=str(tmp_path / "u"),
                         fingerprint_salt="s", access_log=False)
    client = await aiohttp_client(create_proxy_app(config))
    await client.get("/v1/pods", headers={"Authorization": f"Bearer {sandbox_keys[0]}"})
    for _ in range(40):
        if _records(tmp_path / "u"):
            break
        await asyncio.sleep(0.05)
    assert [r["route"] for r in _records(tmp_path / "u")] == ["GET /pods"]


async def test_access_log_lines_on_stderr(aiohttp_client, upstream, sandbox_keys, capsys):
    config = ProxyConfig(upstream=str(upstream.make_url("")).rstrip("/"), fingerprint_salt="s", access_log=True)
    client = await aiohttp_client(create_proxy_app(config))
    key = sandbox_keys[0]
    await client.get("/v1/pods", headers={"Authorization": f"Bearer {key}", "x-request-id": "r-1"})
    await client.get("/v2/pods", headers={"Authorization": f"Bearer {key}"})
    await client.get("/healthz")
    await client.close()
    err = capsys.readouterr().err
    assert key not in err
    lines = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert [(x["api"], x["route"], x["status"], x["request_id"]) for x in lines] == [
        ("v1", "GET /pods", 200, "r-1"),
        ("v2", "/v2/{path}", 200, None),
    ]
    assert lines[0]["client"] == fingerprint(f"Bearer {key}", "s")


def test_now_iso_is_utc_with_milliseconds():
    before = datetime.now(timezone.utc).replace(microsecond=0)
    stamp = now_iso()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", stamp)
    parsed = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    assert 0 <= (parsed - before).total_seconds() < 2


@pytest.mark.parametrize("value", [None, "", "Bearer a", "Bearer b"])
def test_cached_fingerprint_equals_the_hash(value):
    cached = Fingerprints("salt", size=1)
    assert cached(value) == cached(value) == fingerprint(value, "salt")
