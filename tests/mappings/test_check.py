"""`v1bridge mappings check --v2 FILE|URL`: content comparison with the v2 document the mapping was built on."""
from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path

import pytest
from aiohttp import web

from mappings import load_schema
from v1bridge import __version__
from v1bridge.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
AUGUST = FIXTURES / "v2-2026-08.json"  # the GA snapshot the project was first built on


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["mappings", "check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, doc: dict, name: str = "v2.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def findings(capsys, path: str) -> tuple[int, set[tuple]]:
    code, out, _ = run(capsys, "--v2", path, "--format", "json")
    report = json.loads(out)
    assert report["schema"] == "v1bridge.mappings.check/1" and report["changed"] == (code == 1)
    return code, {(f["file"], f["entry"], f["field"], f["target"], f["change"], tuple(f["rules"]))
                  for f in report["findings"]}


def test_the_current_schema_changes_nothing(capsys):
    code, out, err = run(capsys, "--v2", "mappings/schemas/v2.json")
    assert code == 0 and err == ""
    assert out.startswith("nothing the mapping depends on changed in mappings/schemas/v2.json (")


def test_prose_key_order_and_version_do_not_count(capsys, tmp_path):
    """Content, not info.version: the same contract with prose added, keys reordered and another version is 0."""
    doc = copy.deepcopy(load_schema("v2"))
    doc["info"]["version"] = "2.9.9"
    doc["paths"]["/v2/pods"]["get"]["description"] = "Lists pods, newest first."
    doc["components"]["schemas"]["Pod"]["example"] = {"id": "x"}
    doc["components"]["schemas"] = dict(reversed(list(doc["components"]["schemas"].items())))
    assert run(capsys, "--v2", write(tmp_path, doc))[0] == 0


def test_the_august_schema_is_1_naming_pagination_and_entrypoint_cmd(capsys):
    code, found = findings(capsys, str(AUGUST))
    assert code == 1
    pods, eps, tpls = ("Q02", "Q03", "Q30"), ("L01", "Q02", "Q03", "Q30"), ("Q02", "Q03", "Q27", "Q30")
    assert found == {
        ("operations.yaml", "pods.list", None, "GET /v2/pods parameter 'cursor'", "missing", pods),
        ("operations.yaml", "pods.list", None, "GET /v2/pods parameter 'limit'", "missing", pods),
        ("operations.yaml", "pods.list", None, "GET /v2/pods response field 'pagination'", "missing", pods),
        ("operations.yaml", "endpoints.list", None, "GET /v2/serverless parameter 'cursor'", "missing", eps),
        ("operations.yaml", "endpoints.list", None, "GET /v2/serverless parameter 'limit'", "missing", eps),
        ("operations.yaml", "endpoints.list", None, "GET /v2/serverless response field 'pagination'", "missing", eps),
        ("operations.yaml", "templates.list", None, "GET /v2/templates parameter 'cursor'", "missing", tpls),
        ("operations.yaml", "templates.list", None, "GET /v2/templates parameter 'limit'", "missing", tpls),
        ("operations.yaml", "templates.list", None, "GET /v2/templates response field 'pagination'", "missing", tpls),
        ("requests.yaml", "pod.create", "dockerStartCmd", "CreatePodRequest.cmd", "missing", ("Q09",)),
        ("requests.yaml", "pod.create", "dockerEntrypoint", "CreatePodRequest.entrypoint", "missing", ("R06",)),
        ("requests.yaml", "pod.create", "minRAMPerGPU", "CreatePodRequest.gpu.minRamPerGpu", "missing", ("Q39",)),
        ("requests.yaml", "pod.create", "minVCPUPerGPU", "CreatePodRequest.gpu.minVcpuCountPerGpu", "missing", ("Q39",)),
        ("requests.yaml", "pod.update", "dockerStartCmd", "UpdatePodRequest.cmd", "missing", ("Q09",)),
        ("requests.yaml", "pod.update", "dockerEntrypoint", "UpdatePodRequest.entrypoint", "missing", ("R06",)),
        ("requests.yaml", "template.create", "dockerStartCmd", "CreateTemplateRequest.cmd", "missing", ("Q09",)),
        ("requests.yaml", "template.create", "dockerEntrypoint", "CreateTemplateRequest.entrypoint", "missing", ("R06",)),
        ("requests.yaml", "template.update", "dockerStartCmd", "UpdateTemplateRequest.cmd", "missing", ("Q09",)),
        ("requests.yaml", "template.update", "dockerEntrypoint", "UpdateTemplateRequest.entrypoint", "missing", ("R06",)),
        ("requests.yaml", "registry.create", "name", "CreateRegistryRequest.name", "changed", ("L09",)),
        ("requests.yaml", "registry.create", "username", "CreateRegistryRequest.username", "changed", ("L09",)),
        ("requests.yaml", "registry.create", "password", "CreateRegistryRequest.password", "changed", ("L09",)),
        ("responses.yaml", "pod", "dockerStartCmd", "Pod.cmd", "missing", ("Q09",)),
        ("responses.yaml", "pod", "dockerEntrypoint", "Pod.entrypoint", "missing", ("R06",)),
        ("responses.yaml", "pod", "vcpuCount", "Pod.gpu.vcpuCount", "missing", ()),
        ("responses.yaml", "pod", "memoryInGb", "Pod.gpu.memory", "missing", ()),
        ("responses.yaml", "template", "dockerEntrypoint", "Template.entrypoint", "missing", ("R06",)),
        ("responses.yaml", "template", "dockerStartCmd", "Template.cmd", "missing", ("Q09",)),
        ("conventions.yaml", "lookups.pod_gpu", None, "GET /v2/pods parameter 'cursor'", "missing", ("R10", "Q30")),
        ("conventions.yaml", "lookups.pod_gpu", None, "GET /v2/pods parameter 'limit'", "missing", ("R10", "Q30")),
        ("conventions.yaml", "lookups.pod_gpu", None, "GET /v2/pods response field 'pagination'", "missing",
         ("R10", "Q30")),
    }


def test_august_text_report(capsys):
    code, out, _ = run(capsys, "--v2", str(AUGUST))
    lines = out.splitlines()
    assert code == 1
    assert "operations.yaml: pods.list [Q02, Q03, Q30]: GET /v2/pods response field 'pagination' is missing" in lines
    assert "requests.yaml: pod.create.dockerEntrypoint [R06]: CreatePodRequest.entrypoint is missing" in lines
    assert "requests.yaml: pod.create.dockerStartCmd [Q09]: CreatePodRequest.cmd is missing" in lines
    assert lines[-1] == (f"23 mapping entries depend on something that changed in {AUGUST} "
                         "(31 changes, 362 dependencies compared)")


def test_a_removed_path_names_every_operation_and_its_rules(capsys, tmp_path):
    doc = copy.deepcopy(load_schema("v2"))
    del doc["paths"]["/v2/network-volumes/{id}"]
    code, found = findings(capsys, write(tmp_path, doc))
    assert code == 1
    missing = {(entry, target, rules) for _, entry, _, target, change, rules in found if change == "missing"}
    assert missing == {
        ("network_volumes.get", "GET /v2/network-volumes/{id}", ("L01",)),
        ("network_volumes.update", "PATCH /v2/network-volumes/{id}", ("L01", "L02", "L06")),
        ("network_volumes.update_alias", "PATCH /v2/network-volumes/{id}", ("L01", "L02", "L06", "L04")),
        ("network_volumes.delete", "DELETE /v2/network-volumes/{id}", ("L01",)),
        ("lookups.network_volume", "GET /v2/network-volumes/{id}", ("Q03",)),
    }
    code, out, _ = run(capsys, "--v2", write(tmp_path, doc))
    assert "operations.yaml: network_volumes.delete [L01]: DELETE /v2/network-volumes/{id} is missing" in out


def test_an_enum_that_lost_a_value_and_a_list_that_starts_paging(capsys, tmp_path):
    doc = copy.deepcopy(load_schema("v2"))
    doc["components"]["schemas"]["PodStatus"]["enum"].remove("ERROR")
    doc["paths"]["/v2/network-volumes"]["get"].setdefault("parameters", []).append(
        {"$ref": "#/components/parameters/PaginationCursor"})
    code, found = findings(capsys, write(tmp_path, doc))
    assert code == 1
    assert ("responses.yaml", "pod", "desiredStatus", "Pod.status", "changed", ("Q13",)) in found
    assert ("operations.yaml", "network_volumes.list", None, "GET /v2/network-volumes parameter 'cursor'", "added",
            ("L01", "Q02", "Q30")) in found


@pytest.mark.parametrize("content,message", [
    (None, "No such file"),
    ("{not json", "not JSON"),
    ('{"swagger": "2.0"}', "not an OpenAPI document"),
])
def test_unreadable_documents_exit_2(capsys, tmp_path, content, message):
    path = tmp_path / "doc.json"
    if content is not None:
        path.write_text(content)
    code, out, err = run(capsys, "--v2", str(path))
    assert code == 2 and out == "" and message in err


async def test_a_url_is_fetched_with_the_users_key(aiohttp_server, capsys, monkeypatch):
    seen: list[dict] = []
    august = json.loads(AUGUST.read_text())

    async def openapi(request: web.Request) -> web.Response:
        seen.append(dict(request.headers))
        if request.headers.get("Authorization") != "Bearer rpa_live_key":
            return web.json_response({"title": "Unauthorized", "status": 401, "detail": "bad key"}, status=401)
        return web.json_response(august if request.path.endswith("old.json") else load_schema("v2"))

    app = web.Application()
    app.router.add_get("/v2/openapi.json", openapi)
    app.router.add_get("/v2/old.json", openapi)
    server = await aiohttp_server(app)
    base = str(server.make_url("/v2/")).rstrip("/")
    monkeypatch.setenv("RUNPOD_API_KEY", "rpa_live_key")
    code = await asyncio.to_thread(main, ["mappings", "check", "--v2", f"{base}/openapi.json"])
    assert code == 0
    assert seen[-1]["Authorization"] == "Bearer rpa_live_key" and seen[-1]["User-Agent"] == f"v1bridge/{__version__}"
    assert await asyncio.to_thread(main, ["mappings", "check", "--v2", f"{base}/old.json"]) == 1
    code = await asyncio.to_thread(main, ["mappings", "check", "--v2", f"{base}/openapi.json", "--api-key", "wrong"])
    assert code == 2
    assert "answered 401" in capsys.readouterr().err
