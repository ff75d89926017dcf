"""Errors, faults, pass-through streaming, usage records, metrics, health, translate CLI."""
from __future__ import annotations

import asyncio
import json
import time

import orjson
from aiohttp import web

from proxy.app import create_proxy_app
from proxy.app_keys import USAGE
from proxy.cli_translate import translate
from proxy.config import ProxyConfig
from tests.proxy.tools import create_pod


async def test_body_v1_refuses_is_a_v1_400_naming_v1_fields_and_never_sent(proxy, auth, recorder):
    r = await proxy.post("/v1/pods", json={"imageName": "i", "gpuTypeIds": ["NVIDIA A40"], "containerDiskInGb": "big"},
                         headers=auth)
    assert r.status == 400
    assert await r.json() == {"message": 'invalid input: containerDiskInGb: "big" is not of types "null", "integer"'}
    assert recorder == []


async def test_body_v2_would_refuse_is_a_v1_400_naming_v1_fields_and_never_sent(proxy, auth, recorder):
    """v1 took a pod with neither image nor template (PodCreateInput requires nothing); v2 does not."""
    r = await proxy.post("/v1/pods", json={"gpuTypeIds": ["NVIDIA A40"]}, headers=auth)
    assert r.status == 400
    assert await r.json() == {"message": "invalid input: imageName: required"}
    assert [s for s in recorder if s.method == "POST"] == []


async def test_v2_problem_becomes_v1_message_with_v1_names(proxy, auth, recorder):
    """A refusal only v2 can make (image not on the registry) keeps status and detail, in v1 names."""
    recorder.fail(lambda seen: seen.method == "POST" and seen.path == "/v2/pods", 422,
                  "$.disk: 9000 is greater than the maximum for $.image")
    r = await proxy.post("/v1/pods", json={"imageName": "i", "gpuTypeIds": ["NVIDIA A40"], "containerDiskInGb": 9000},
                         headers=auth)
    assert r.status == 422
    assert await r.json() == {"message": "$.containerDiskInGb: 9000 is greater than the maximum for $.imageName"}


async def test_missing_resource_keeps_status_and_detail(proxy, auth, recorder):
    r = await proxy.get("/v1/pods/nope", headers=auth)
    assert r.status == 404
    assert await r.json() == {"message": "pod 'nope' not found"}
    assert r.headers["Content-Type"] == "application/json"


async def test_unknown_path_and_wrong_method(proxy, auth, recorder):
    r = await proxy.get("/v1/nothing/here", headers=auth)
    assert r.status == 404
    assert await r.json() == {"message": "no such route: GET /v1/nothing/here"}
    r = await proxy.put("/v1/pods/abc", headers=auth)
    assert r.status == 405
    assert r.headers["Allow"] == "DELETE, GET, HEAD, PATCH"
    assert await r.json() == {"message": "method PUT is not allowed on /v1/pods/abc; allowed: DELETE, GET, HEAD, PATCH"}
    assert list(recorder) == []


async def test_malformed_json_is_400_without_upstream(proxy, auth, recorder):
    r = await proxy.post("/v1/pods", data=b"{not json", headers={**auth, "Content-Type": "application/json"})
    assert r.status == 400
    assert await r.json() == {"message": "the request body is not valid JSON"}
    assert list(recorder) == []


async def test_body_over_limit_is_413(aiohttp_client, proxy_config, auth, recorder):
    proxy_config.max_body = 100
    proxy = await aiohttp_client(create_proxy_app(proxy_config))
    r = await proxy.post("/v1/pods", json={"imageName": "x" * 200}, headers=auth)
    assert r.status == 413
    assert list(await r.json()) == ["message"]
    r = await proxy.post("/v2/pods", data=b"x" * 200, headers=auth)
    assert r.status == 413
    assert list(recorder) == []


async def test_upstream_unreachable_is_fast_502(aiohttp_client, auth):
    config = ProxyConfig(upstream="http://127.0.0.1:9", access_log=False, get_retries=1, fingerprint_salt="s")
    proxy = await aiohttp_client(create_proxy_app(config))
    started = time.perf_counter()
    r = await proxy.get("/v1/pods", headers=auth)
    assert r.status == 502
    assert (await r.json())["message"].startswith("the v2 upstream is unreachable")
    assert time.perf_counter() - started < 2
    r = await proxy.get("/readyz")
    assert r.status == 503


async def test_upstream_too_slow_is_fast_504(aiohttp_client, aiohttp_server, auth):
    async def slow(request):
        await asyncio.sleep(5)
        return web.json_response({})

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", slow)
    server = await aiohttp_server(app)
    config = ProxyConfig(upstream=str(server.make_url("")).rstrip("/"), total_timeout=0.3, access_log=False,
                         fingerprint_salt="s")
    proxy = await aiohttp_client(create_proxy_app(config))
    started = time.perf_counter()
    r = await proxy.post("/v1/containerregistryauth", json={"name": "a", "username": "b", "password": "c"}, headers=auth)
    assert r.status == 504
    assert await r.json() == {"message": "the v2 upstream did not answer within 0.3s"}
    assert time.perf_counter() - started < 1.5


async def test_v2_passthrough_is_unchanged(proxy, auth, recorder):
    pod = await create_pod(proxy, auth)
    recorder.clear()
    r = await proxy.get(f"/v2/pods/{pod['id']}?x=1", headers={**auth, "Connection": "keep-alive, X-Hop", "X-Hop": "1",
                                                               "X-Custom": "yes"})
    assert r.status == 200
    seen = recorder[-1]
    assert (seen.method, seen.path, seen.query) == ("GET", f"/v2/pods/{pod['id']}", [("x", "1")])
    assert seen.headers["Authorization"] == auth["Authorization"]
    assert seen.headers["X-Custom"] == "yes"
    assert "X-Hop" not in seen.headers
    assert (await r.json())["id"] == pod["id"]
    assert "Deprecation" not in r.headers
    r = await proxy.post("/v2/pods", json={"image": "i"}, headers=auth)
    assert r.status == 422
    assert r.headers["Content-Type"] == "application/problem+json"


async def test_v2_stream_is_not_buffered(aiohttp_client, aiohttp_server):
    release = asyncio.Event()

    async def sse(request):
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        await resp.write(b"data: one\n\n")
        await release.wait()
        await resp.write(b"data: two\n\n")
        await resp.write_eof()
        return resp

    app = web.Application()
    app.router.add_get("/v2/pods/{id}/logs", sse)
    server = await aiohttp_server(app)
    config = ProxyConfig(upstream=str(server.make_url("")).rstrip("/"), access_log=False, fingerprint_salt="s")
    proxy = await aiohttp_client(create_proxy_app(config))
    r = await proxy.get("/v2/pods/p/logs")
    assert r.headers["Content-Type"] == "text/event-stream"
    first = await asyncio.wait_for(r.content.readuntil(b"\n\n"), timeout=2)
    assert first == b"data: one\n\n"  # arrived while the upstream is still holding the stream open
    release.set()
    assert await r.content.read() == b"data: two\n\n"


async def test_usage_records_metrics_and_no_key_anywhere(proxy, proxy_config, auth, recorder, caplog):
    key = auth["Authorization"].split()[1]
    pod = await create_pod(proxy, auth)
    await proxy.post(f"/v1/pods/{pod['id']}/reset", headers={**auth, "User-Agent": "legacy/1.0"})
    await proxy.get("/v1/nope", headers=auth)
    proxy.server.app[USAGE].flush()  # records are batched (flushed every second and at shutdown)
    files = list((__import__("pathlib").Path(proxy_config.usage_dir)).glob("usage-*-*.jsonl"))
    assert len(files) == 1
    text = files[0].read_text()
    assert key not in text
    records = [json.loads(line) for line in text.splitlines()]
    assert [(r["operation"], r["route"], r["method"], r["status"]) for r in records] == [
        ("pods.create", "POST /pods", "POST", 201),
        ("pods.reset", "POST /pods/{podId}/reset", "POST", 200),
        (None, "UNKNOWN", "GET", 404),
    ]
    reset = records[1]
    assert reset["emulations"] == ["reset"] and reset["rules"] == ["R01"] and reset["user_agent"] == "legacy/1.0"
    assert len(reset["client"]) == 16 and reset["client"] == records[0]["client"]
    assert set(reset) == {"time", "operation", "route", "method", "status", "client", "user_agent", "emulations",
                          "rules", "ignored", "duration_ms", "proxy", "delivered", "outcome"}
    assert reset["ignored"] == []
    assert (reset["delivered"], reset["outcome"]) == (True, None)
    metrics = await (await proxy.get("/metrics")).text()
    assert key not in metrics and pod["id"] not in metrics
    assert ('v1bridge_requests_total{api="v1",method="POST",operation="pods.reset",'
            'route="POST /pods/{podId}/reset",status="200"} 1.0') in metrics
    assert 'v1bridge_emulations_total{policy="reset"} 1.0' in metrics
    assert "v1bridge_upstream_seconds_bucket" in metrics


async def test_health_and_ready(proxy):
    r = await proxy.get("/healthz")
    assert (r.status, await r.json()) == (200, {"status": "ok"})
    r = await proxy.get("/readyz")
    assert r.status == 200
    assert (await r.json())["status"] == "ready"


async def test_embedded_sandbox(aiohttp_client):
    config = ProxyConfig(upstream=None, keys=["k1"], access_log=False, fingerprint_salt="s")
    proxy = await aiohttp_client(create_proxy_app(config))
    r = await proxy.get("/v1/pods", headers={"Authorization": "Bearer k1"})
    assert (r.status, await r.json()) == (200, [])
    r = await proxy.get("/v1/pods", headers={"Authorization": "Bearer wrong"})
    assert r.status == 401
    assert list(await r.json()) == ["message"]


def test_translate_cli_plans_without_calling():
    out = translate("POST", "/v1/pods/p1/reset")
    assert out["steps"] == [
        {"method": "POST", "path": "/v2/pods/p1/action", "body": {"action": "stop"}},
        {"method": "POST", "path": "/v2/pods/p1/action", "body": {"action": "start"}},
    ]
    assert out["emulations"] == ["reset"]
    out = translate("GET", "/v1/billing/endpoints?endpointId=e1")
    assert out["v2"] == {"method": "GET", "path": "/v2/billing/serverless", "query": [["serverlessId", "e1"]]}
    out = translate("POST", "/v1/endpoints", {"templateId": "t", "gpuTypeIds": ["NVIDIA A40"]})
    assert out["needs_lookup"] == [{"what": "catalog", "request": "GET /v2/catalog/gpus",
                                    "reason": "GPU types map to pools through /v2/catalog/gpus"}]
    out = translate("PATCH", "/v1/pods/p1", {"volumeInGb": 50})
    assert out["needs_lookup"][0]["request"] == "GET /v2/pods/p1"
    # the proxy's planner names the read it needs, the template the body references included
    out = translate("POST", "/v1/pods", {"imageName": "x", "templateId": "t1", "volumeInGb": 30,
                                         "gpuTypeIds": ["NVIDIA A40"]})
    assert out["needs_lookup"] == [{"what": "template", "request": "GET /v2/templates/t1",
                                    "reason": "a volume given in part takes the rest from the referenced template"}]
    assert out["v2"]["body"]["mounts"] == {"persistent": {"size": 30, "path": "/workspace"}}
    assert translate("POST", "/v1/pods/p1/reset", strict=frozenset({"reset"}))["answer"]["status"] == 501
    assert translate("DELETE", "/v1/pods")["answer"] == {"status": 405, "message": "no such v1 operation",
                                                         "allow": ["GET", "POST"]}


async def test_endpoint_gpu_types_of_wrong_type_are_400_before_any_v2_call(proxy, auth, recorder):
    r = await proxy.post("/v1/endpoints", json={"templateId": "t1", "gpuTypeIds": ["NVIDIA A40", {"id": 1}]},
                         headers=auth)
    assert r.status == 400
    assert await r.json() == {"message": 'invalid input: gpuTypeIds.1: {"id":1} is not of type "string"'}
    assert list(recorder) == []  # not even the catalog
