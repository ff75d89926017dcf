"""No silent change of meaning: every v1 input the proxy cannot honour as v1 did is emulated, refused in v1's shape,
or served without it and named (X-V1bridge-Ignored and the usage record, so `audit --traffic` lists it); HEAD on
every GET route; `/v1/pods/` served as `/v1/pods`; a 404 or a v2-shaped body says what the caller probably meant."""
from __future__ import annotations

import json
from pathlib import Path

import pydantic
import pytest

from codemod.audit.traffic import read_usage, render_plain, to_dict
from mappings import default_mappings
from mappings.models import QueryParam
from proxy.app import create_proxy_app
from proxy.app_keys import USAGE
from proxy.config import ProxyConfig
from tests.proxy.tools import create_pod, sent

IGNORED = "X-V1bridge-Ignored"
GPU = "NVIDIA A40"


def usage_records(proxy, config: ProxyConfig) -> list[dict]:
    proxy.server.app[USAGE].flush()
    files = list(Path(config.usage_dir).glob("usage-*-*.jsonl"))
    return [json.loads(line) for f in files for line in f.read_text().splitlines()]


async def endpoint(proxy, auth) -> dict:
    r = await proxy.post("/v1/templates", json={"name": "t", "imageName": "w:1", "isServerless": True}, headers=auth)
    assert r.status == 200, await r.text()
    template = await r.json()
    r = await proxy.post("/v1/endpoints", json={"name": "e", "templateId": template["id"], "gpuTypeIds": [GPU]},
                         headers=auth)
    assert r.status == 200, await r.text()
    return await r.json()


async def test_include_template_is_served_without_it_and_named_in_header_usage_and_traffic_audit(
        proxy, proxy_config, auth):
    made = await endpoint(proxy, auth)
    plain = await proxy.get(f"/v1/endpoints/{made['id']}", headers=auth)
    asked = await proxy.get(f"/v1/endpoints/{made['id']}?includeTemplate=true", headers=auth)
    assert (asked.status, await asked.json()) == (200, await plain.json())
    assert asked.headers[IGNORED] == "includeTemplate" and IGNORED not in plain.headers
    records = [r for r in usage_records(proxy, proxy_config) if r["operation"] == "endpoints.get"]
    assert [r["ignored"] for r in records] == [[], ["includeTemplate"]]
    report = read_usage([str(f) for f in Path(proxy_config.usage_dir).glob("usage-*-*.jsonl")])
    route = next(r for r in to_dict(report)["routes"] if r["operation"] == "endpoints.get")
    assert route["ignored"] == {"includeTemplate": 1}
    assert "GET /endpoints/{endpointId}  count=2" in render_plain(report)
    assert "ignored=includeTemplate x1" in render_plain(report)


async def test_an_interruptible_pod_is_refused_in_v1_shape_not_made_on_demand(proxy, auth, recorder):
    r = await proxy.post("/v1/pods", json={"name": "spot", "imageName": "nginx", "gpuTypeIds": [GPU],
                                           "interruptible": True}, headers=auth)
    assert (r.status, await r.json()) == (501, {"message": default_mappings().policies["interruptible"].strict_message})
    assert sent(recorder) == []  # nothing was created, at any price
    # interruptible false is v1's on-demand pod: served as before
    pod = await create_pod(proxy, auth, interruptible=False)
    assert pod["interruptible"] is False


async def test_an_interruptible_pod_is_on_demand_only_when_the_operator_says_so(aiohttp_client, proxy_config, auth):
    proxy_config.emulate = frozenset({"interruptible"})
    proxy = await aiohttp_client(create_proxy_app(proxy_config))
    r = await proxy.post("/v1/pods", json={"name": "spot", "imageName": "nginx", "gpuTypeIds": [GPU],
                                           "interruptible": True}, headers=auth)
    assert r.status == 201 and "interruptible-on-demand" in r.headers["X-V1bridge-Emulation"]


async def test_every_get_route_answers_head_with_the_get_headers_and_no_body(proxy, auth):
    app = proxy.server.app
    gets = {(r.resource.canonical) for r in app.router.routes() if r.method == "GET"}
    heads = {(r.resource.canonical) for r in app.router.routes() if r.method == "HEAD"}
    assert gets and gets <= heads
    pod = await create_pod(proxy, auth)
    for path in ("/v1/pods", f"/v1/pods/{pod['id']}", "/healthz"):
        got, head = await proxy.get(path, headers=auth), await proxy.head(path, headers=auth)
        assert (head.status, await head.read()) == (got.status, b"")
        assert head.headers.get("Deprecation") == got.headers.get("Deprecation")
        assert head.headers["Content-Type"] == got.headers["Content-Type"]


async def test_a_trailing_slash_is_served_as_the_route_without_it(proxy, auth):
    pod = await create_pod(proxy, auth)
    for path in ("/v1/pods", f"/v1/pods/{pod['id']}"):
        plain, slashed = await proxy.get(path, headers=auth), await proxy.get(path + "/", headers=auth)
        assert (slashed.status, await slashed.json()) == (plain.status, await plain.json())
    r = await proxy.post(f"/v1/pods/{pod['id']}/stop/", headers=auth)
    assert r.status == 200, await r.text()


@pytest.mark.parametrize("method,path,message", [
    ("GET", "/v1/PODS", "no such route: GET /v1/PODS; did you mean GET /v1/pods?"),
    ("POST", "/V1/Pods/abcDEF/Stop", "no such route: POST /V1/Pods/abcDEF/Stop; did you mean POST /v1/pods/abcDEF/stop?"),
    ("GET", "/pods", "no such route: GET /pods; did you mean GET /v1/pods?"),
    ("GET", "/v1/nope", "no such route: GET /v1/nope"),
])
async def test_a_404_says_what_the_caller_probably_meant(proxy, auth, recorder, method, path, message):
    r = await proxy.request(method, path, headers=auth)
    assert (r.status, await r.json()) == (404, {"message": message})
    assert sent(recorder) == []


async def test_a_v2_body_sent_to_v1_is_named_as_such(proxy, auth, recorder):
    r = await proxy.post("/v1/pods", json={"name": "p", "image": "nginx", "gpu": {"id": GPU}}, headers=auth)
    assert (r.status, await r.json()) == (400, {"message": (
        "invalid input: gpuTypeIds: required; imageName: required; the body uses v2 names: image (v1: imageName), "
        "gpu (v1: gpuTypeIds): send v1 names to POST /v1/pods, or this body to POST /v2/pods")})
    assert sent(recorder) == []


async def test_a_v2_name_in_an_otherwise_v1_body_is_not_read_and_is_named(proxy, auth, recorder):
    r = await proxy.post("/v1/pods", json={"name": "p", "imageName": "nginx", "gpuTypeIds": [GPU],
                                           "gpu": {"id": "NVIDIA H100 80GB HBM3", "count": 8}}, headers=auth)
    assert r.status == 201 and r.headers[IGNORED] == "gpu"
    assert sent(recorder)[0][2]["gpu"]["id"] == GPU


async def test_a_body_field_v2_cannot_honour_is_served_without_it_and_named(proxy, auth, recorder):
    r = await proxy.post("/v1/pods", json={"name": "p", "imageName": "nginx", "gpuTypeIds": [GPU],
                                           "dataCenterIds": ["EU-RO-1", "US-TX-3"], "dataCenterPriority": "availability"},
                         headers=auth)
    assert r.status == 201 and r.headers[IGNORED] == "dataCenterPriority", await r.text()
    sent_body = sent(recorder)[-1][2]
    assert sent_body["dataCenterIds"] == ["EU-RO-1", "US-TX-3"] and "dataCenterPriority" not in sent_body
    r = await proxy.post("/v1/templates", json={"name": "t", "imageName": "w:1", "readme": "# hi"}, headers=auth)
    assert r.status == 200 and r.headers[IGNORED] == "readme"
    assert "readme" not in sent(recorder)[-1][2]


def test_an_unsupported_filter_can_only_be_strict():
    """Ignoring a filter would answer an unfiltered list as if filtered: the mapping refuses to load it."""
    assert QueryParam(filter="equals", field="x", unsupported="strict").unsupported == "strict"
    with pytest.raises(pydantic.ValidationError, match="an unsupported filter is strict"):
        QueryParam(filter="equals", field="x", unsupported="ignore")


def test_every_unsupported_parameter_says_how_it_is_answered_and_the_docs_list_it():
    """queries.yaml decides per parameter; docs/proxy.md's table is that decision, kept current."""
    m = default_mappings()
    rows = [(q.id, name, p.unsupported, p.rule or "") for q in m.queries.values()
            for name, p in q.params.items() if p.unsupported]
    rows += [(r.id, name, f.unsupported, f.rule or "") for r in m.requests.values()
             for name, f in r.fields.items() if f.unsupported]
    assert rows and all(how in ("strict", "ignore") for _, _, how, _ in rows)
    docs = (Path(__file__).resolve().parents[2] / "docs" / "proxy.md").read_text(encoding="utf-8")
    listed = [line for line in docs.splitlines() if line.startswith("| `") and line.count("|") == 5]
    assert listed == [f"| `{op}` | `{name}` | {how} | {rule} |" for op, name, how, rule in rows]
