"""Nothing after the answer can change it: access log, metrics and usage records never raise into the request."""
from __future__ import annotations

import asyncio
import logging
import os
import socket
from pathlib import Path

import orjson
import pytest

from proxy import telemetry
from proxy.app import create_proxy_app
from proxy.telemetry import LineBuffer
from tests.stress.conftest import fast_config
from tests.stress.tools import raw_exchange

V1_POD = b'{"name": "w", "imageName": "img", "gpuTypeIds": ["NVIDIA A40"]}'


async def raw_post(port: int, path: str, headers: list[bytes], body: bytes) -> tuple[int, bytes, bytes]:
    head = [f"POST {path} HTTP/1.1".encode(), b"Host: a", b"Connection: close", b"Content-Type: application/json",
            f"Content-Length: {len(body)}".encode(), *headers]
    answer = await raw_exchange(port, b"\r\n".join(head) + b"\r\n\r\n" + body)
    top, _, payload = answer.partition(b"\r\n\r\n")
    return int(top.split(b" ", 2)[1]), top, payload


def _usage(directory: Path) -> list[dict]:
    return [orjson.loads(line) for f in directory.glob("usage-*.jsonl") for line in f.read_bytes().splitlines()]


@pytest.mark.parametrize("header", [b"X-Request-ID: r-\xff\xfe-1", b"User-Agent: legacy/\xc3\x28 (\x80)"],
                         ids=["request-id", "user-agent"])
async def test_create_with_raw_non_utf8_header_is_answered_201_and_recorded_escaped(
        aiohttp_client, sabotaged_upstream, saboteur, tmp_path, auth, header, capsys):
    """The pod is created once, the client gets its 201 with the id, the records carry the bytes as \\xNN escapes."""
    config = fast_config(str(sabotaged_upstream.make_url("")), tmp_path, access_log=True)
    proxy = await aiohttp_client(create_proxy_app(config))
    status, _, payload = await raw_post(proxy.server.port, "/v1/pods", [f"Authorization: {auth['Authorization']}".encode(),
                                                                         header], V1_POD)
    assert status == 201, payload
    pod = orjson.loads(payload)
    assert pod["id"] and pod["image"] == "img"
    assert [(s.method, s.path) for s in saboteur.seen] == [("POST", "/v2/pods")]
    await proxy.close()
    [record] = _usage(tmp_path / "usage")
    access = [orjson.loads(line) for line in capsys.readouterr().err.splitlines() if line.startswith("{")]
    assert [(a["operation"], a["status"]) for a in access] == [("pods.create", 201)]
    if header.startswith(b"User-Agent"):
        assert record["user_agent"] == "legacy/\\xc3( (\\x80)"
    else:
        assert access[0]["request_id"] == "r-\\xff\\xfe-1"
    assert (record["operation"], record["status"]) == ("pods.create", 201)


@pytest.fixture
def full_disk_usage_dir(tmp_path: Path) -> Path:
    """The usage file this process will open is /dev/full: every write fails with ENOSPC."""
    directory = tmp_path / "usage"
    directory.mkdir()
    (directory / f"usage-{socket.gethostname()}-{os.getpid()}.jsonl").symlink_to("/dev/full")
    return directory


async def test_full_disk_under_usage_dir_never_fails_a_request(
        aiohttp_client, sabotaged_upstream, saboteur, tmp_path, auth, full_disk_usage_dir, monkeypatch, caplog):
    """Every write fails: each create still answers 201 (one v2 POST each), failures are counted and logged once,
    and the periodic flush keeps running."""
    monkeypatch.setattr(telemetry, "FLUSH_SECONDS", 0.02)
    monkeypatch.setattr(telemetry, "FLUSH_BYTES", 512)  # a flush inside the request path too
    config = fast_config(str(sabotaged_upstream.make_url("")), tmp_path, usage_dir=str(full_disk_usage_dir))
    proxy = await aiohttp_client(create_proxy_app(config))
    caplog.set_level(logging.ERROR, "v1bridge.proxy")
    statuses = []
    for _ in range(30):
        r = await proxy.post("/v1/pods", data=V1_POD, headers={**auth, "Content-Type": "application/json"})
        statuses.append(r.status)
        assert (await r.json())["id"]
    await asyncio.sleep(0.1)
    for _ in range(5):  # the timer still fires after failures
        r = await proxy.get("/v1/pods", headers=auth)
        assert r.status == 200
        await asyncio.sleep(0.05)
    assert statuses == [201] * 30
    assert sum(1 for s in saboteur.seen if (s.method, s.path) == ("POST", "/v2/pods")) == 30
    metrics = (await (await proxy.get("/metrics")).read()).decode()
    failures = float(next(line.split()[-1] for line in metrics.splitlines()
                          if line.startswith('v1bridge_record_write_failures_total{log="usage"}')))
    lost = float(next(line.split()[-1] for line in metrics.splitlines()
                      if line.startswith('v1bridge_record_lines_lost_total{log="usage"}')))
    assert failures >= 6 and lost == 35
    logged = [r.getMessage() for r in caplog.records if "could not be written" in r.getMessage()]
    assert logged == ["v1bridge: usage lines could not be written (OSError: [Errno 28] No space left on device); "
                      "further failures are counted in v1bridge_record_write_failures_total{log='usage'}, not logged"]


async def test_flush_loop_survives_a_failing_sink(monkeypatch):
    """The periodic flush keeps its timer after the sink raised, and writes again once the sink works."""
    monkeypatch.setattr(telemetry, "FLUSH_SECONDS", 0.01)
    written: list[bytes] = []
    failures: list[int] = []
    broken = [True]

    def sink(data: bytes) -> None:
        if broken[0]:
            raise OSError(28, "No space left on device")
        written.append(data)

    buffer = LineBuffer(sink, "usage", failures.append)
    buffer.start()
    try:
        buffer.add(b"a\n")
        await asyncio.sleep(0.05)
        buffer.add(b"b\n")
        buffer.add(b"c\n")
        await asyncio.sleep(0.05)
        broken[0] = False
        buffer.add(b"d\n")
        await asyncio.sleep(0.05)
    finally:
        buffer.stop()
    assert failures == [1, 2]
    assert written == [b"d\n"]
