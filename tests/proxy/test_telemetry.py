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
import orjson

from proxy.telemetry import (VALUE, AccessLog, Fingerprints, Metrics, Recorder, UsageLog, duration_ms, fingerprint,
                             json_now, line_pattern)


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


def test_json_now_is_utc_with_milliseconds():
    before = datetime.now(timezone.utc).replace(microsecond=0)
    stamp = orjson.loads(json_now())
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", stamp)
    parsed = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    assert 0 <= (parsed - before).total_seconds() < 2


@pytest.mark.parametrize("value", [None, "", "Bearer a", "Bearer b"])
def test_cached_fingerprint_equals_the_hash(value):
    cached = Fingerprints("salt", size=1)
    assert cached[value] == cached[value] == orjson.dumps(fingerprint(value, "salt"))


def test_duration_ms_is_the_json_float():
    for microseconds in [*range(0, 2_100_000, 997), 1, 10, 100, 999, 1000, 1001, 999_999, 1_000_000, 123_456_789,
                         10**12 + 7]:
        assert duration_ms(microseconds) == orjson.dumps(microseconds / 1000), microseconds


def test_line_pattern_is_the_dict_orjson_writes():
    pattern = line_pattern([("time", VALUE), ("route", "GET /a%b/{id}"), ("n", None), ("x", VALUE), ("q", ['"', 1])])
    assert pattern % (b'"t"', b"[1.5]") == orjson.dumps({"time": "t", "route": "GET /a%b/{id}", "n": None,
                                                         "x": [1.5], "q": ['"', 1]}, option=orjson.OPT_APPEND_NEWLINE)


class _Lines:
    def __init__(self):
        self.lines: list[bytes] = []

    def add(self, line: bytes) -> None:
        self.lines.append(line)


@pytest.mark.parametrize("headers,emulations,rules,outcome,status,delivered,ignored", [
    ({"Authorization": "Bearer k", "User-Agent": "curl/8", "x-request-id": "r-1"}, [], ["Q13", "Q14"], None, 200, True,
     []),
    ({}, ["update_alias"], [], "the client disconnected; stop was not sent", 499, False, ["includeTemplate"]),
    ({"Authorization": "Bearer \udcff", "User-Agent": "ua \udcfe \"q\"", "x-request-id": "%s"}, ["update_alias", "x"],
     ["Q01"], "a \\ b", 502, True, ["includeTemplate", "gpu"]),
])
def test_record_lines_are_the_records_as_before(headers, emulations, rules, outcome, status, delivered, ignored,
                                                monkeypatch):
    """Field for field and byte for byte the dicts the middleware wrote through orjson before the patterns."""
    monkeypatch.setattr(UsageLog, "enabled", True)
    usage, access = UsageLog(None), AccessLog(True)
    usage_lines, access_lines = _Lines(), _Lines()
    usage.add, access.add = usage_lines.add, access_lines.add  # type: ignore[method-assign]
    recorder = Recorder(Metrics(), usage, access, "s", {"update_alias": "update-alias"})
    records = recorder.route("v1", "pods.get", "GET /pods/{podId}", "GET")
    recorder.record(records, status, 1_622_400, headers, headers.get("Authorization"), emulations, rules, delivered,
                    outcome, ignored)
    (usage_line,), (access_line,) = usage_lines.lines, access_lines.lines
    usage_record, access_record = orjson.loads(usage_line), orjson.loads(access_line)
    client = orjson.loads(Fingerprints("s")[headers.get("Authorization")])
    assert client == fingerprint(headers.get("Authorization"), "s")

    def dumped(record):
        return orjson.dumps(telemetry.printable(record), option=orjson.OPT_APPEND_NEWLINE)

    assert usage_line == dumped({
        "time": usage_record["time"], "operation": "pods.get", "route": "GET /pods/{podId}", "method": "GET",
        "status": status, "client": client, "user_agent": headers.get("User-Agent"), "emulations": emulations,
        "rules": rules, "ignored": ignored, "duration_ms": 1.622, "delivered": delivered, "outcome": outcome, "proxy": usage.proxy})
    assert access_line == dumped({
        "time": access_record["time"], "api": "v1", "method": "GET", "route": "GET /pods/{podId}",
        "operation": "pods.get", "status": status, "duration_ms": 1.622, "client": client,
        "emulations": ["update-alias"] if emulations else [], "request_id": headers.get("x-request-id"),
        "delivered": delivered, "outcome": outcome})
