"""GraphQL telemetry: one usage record, access-log line and metric sample per operation run; the key (also as
?api_key=) is never written; `audit --traffic` lists the GraphQL operations by client."""
from __future__ import annotations

import json
from pathlib import Path

from codemod.audit.traffic import read_usage, to_dict
from proxy.app import create_proxy_app
from proxy.config import ProxyConfig
from proxy.telemetry import fingerprint

KEY = "key-alice"


def _records(directory: Path) -> list[dict]:
    return [json.loads(line) for f in directory.glob("usage-*-*.jsonl") for line in f.read_text().splitlines()]


async def test_one_record_per_operation_and_the_traffic_audit_lists_them(aiohttp_client, upstream, tmp_path, capsys):
    config = ProxyConfig(upstream=str(upstream.make_url("")).rstrip("/"), usage_dir=str(tmp_path / "u"),
                         fingerprint_salt="s", access_log=True)
    client = await aiohttp_client(create_proxy_app(config))
    resp = await client.post(f"/graphql?api_key={KEY}", json={"query": "{ myself { pods { id } pubKey } }"})
    assert resp.status == 200
    resp = await client.post("/graphql", json={"query": 'mutation { podStop(input: {podId: "nope"}) { id } }'},
                             headers={"Authorization": f"Bearer {KEY}", "User-Agent": "runpod-python/1.12.0"})
    assert resp.status == 200 and (await resp.json())["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    resp = await client.post("/graphql", json={"query": "{ nonsense }"}, headers={"Authorization": f"Bearer {KEY}"})
    assert resp.status == 400
    metrics = (await (await client.get("/metrics")).read()).decode()
    await client.close()
    err = capsys.readouterr().err
    assert KEY not in err and KEY not in metrics

    records = _records(tmp_path / "u")
    client_id = fingerprint(f"Bearer {KEY}", "s")
    assert sorted(((r["operation"] or ""), r["route"], r["status"], r["client"]) for r in records) == sorted([
        ("G11", "POST /graphql query myself.pods", 200, client_id),
        ("G30", "POST /graphql query myself.pubKey", 200, client_id),
        ("G06", "POST /graphql mutation podStop", 404, client_id),
        ("", "POST /graphql", 400, client_id),
    ])
    assert all(KEY not in json.dumps(r) for r in records)
    assert 'operation="G06",route="POST /graphql mutation podStop"' in metrics and 'api="graphql"' in metrics

    traffic = to_dict(read_usage([str(p) for p in (tmp_path / "u").glob("usage-*.jsonl")]))
    routes = {r["route"]: r for r in traffic["routes"]}
    assert routes["POST /graphql mutation podStop"]["clients"][0]["user_agents"] == ["runpod-python/1.12.0"]
    assert routes["POST /graphql query myself.pods"]["operation"] == "G11"

    lines = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert {(x["api"], x["route"]) for x in lines} >= {("graphql", "POST /graphql mutation podStop")}


async def test_errors_outside_the_endpoint_are_graphql_shaped(aiohttp_client, proxy_config):
    client = await aiohttp_client(create_proxy_app(proxy_config))
    resp = await client.get("/graphql")
    assert resp.status == 405
    body = await resp.json()
    assert body["errors"][0]["message"].startswith("method GET is not allowed")


async def test_a_query_string_key_never_reaches_aiohttp_access_log(aiohttp_server, proxy_config, caplog):
    """An operator who turns aiohttp's access log on (gunicorn --access-logfile, a %r format) logs request lines:
    `?api_key=` must not be written in clear."""
    import logging

    from aiohttp import ClientSession

    caplog.set_level(logging.INFO, logger="aiohttp.access")
    server = await aiohttp_server(create_proxy_app(proxy_config), access_log=logging.getLogger("aiohttp.access"),
                                  access_log_format='%a "%r" %s %{Authorization}i')
    async with ClientSession() as session:
        async with session.post(server.make_url(f"/graphql?api_key={KEY}&x=1"),
                                json={"query": "{ myself { pods { id } } }"}) as resp:
            assert resp.status == 200
        async with session.post(server.make_url("/graphql"), json={"query": "{ myself { pods { id } } }"},
                                headers={"Authorization": f"Bearer {KEY}"}) as resp:
            assert resp.status == 200
    logged = [r.getMessage() for r in caplog.records if r.name == "aiohttp.access" and "/graphql" in r.getMessage()]
    assert len(logged) == 2 and all(KEY not in line for line in logged)
    assert "api_key=[redacted]&x=1" in logged[0]
