"""The shared detector's API, as the audit reads it."""
from __future__ import annotations

from codemod.engine import Finding, analyze_python

SOURCE = '''import requests

BASE = "https://rest.runpod.io/v1"


def start(pod_id):
    return requests.post(f"{BASE}/pods/{pod_id}/start")


def reset(pod_id):
    return requests.post(f"https://rest.runpod.io/v1/pods/{pod_id}/reset")


def run(eid):
    return requests.post(f"https://api.runpod.ai/v2/{eid}/run", json={})
'''


def test_findings_carry_rule_route_target_and_position() -> None:
    analysis = analyze_python(SOURCE, "client.py")
    assert analysis.uses_v1 and analysis.serverless_runtime and not analysis.uses_v2 and not analysis.indirect_only
    by_rule = {(f.rule, f.kind): f for f in analysis.findings}
    start = by_rule[("L04", "call")]
    assert (start.line, start.column) == (7, 12)
    assert start.route == "POST /pods/{podId}/start" and start.v2_target == "POST /v2/pods/{id}/action"
    assert start.fixable and start.source_line.startswith("return requests.post(")
    reset = by_rule[("R01", "call")]  # no v2 route: to v2 through the compat module's run-time translation
    assert reset.fixable and reset.compat and reset.route == "POST /pods/{podId}/reset" and reset.v2_target is None
    assert reset.message.startswith("through v1bridge_compat.call_v1: ")
    bases = [(f.line, f.fixable) for f in analysis.findings if f.kind == "base-url"]
    assert bases == [(3, True), (11, True)]  # the reset's own URL moves to the v2 host with its compat call
    assert all(isinstance(f, Finding) for f in analysis.findings)


def test_a_call_v2_lacks_goes_through_the_compat_module_and_its_neighbour_moves_plain() -> None:
    """Shared base: reset (no v2 form) no longer keeps start on v1 (issue 21 withdrew "a family moves whole or not at
    all"): start is plain v2 (state 1), reset goes to v2 through the run-time translation (state 2), the base moves."""
    src = SOURCE.replace('f"https://rest.runpod.io/v1/pods/{pod_id}/reset"', 'f"{BASE}/pods/{pod_id}/reset"')
    analysis = analyze_python(src, "client.py")
    assert sorted(e.kind for e in analysis.edits) == ["add-kwarg", "compat-call", "compat-import", "string", "string"]
    assert analysis.manual == [] and not analysis.v1_left
    assert [(s.line, s.state, s.rule) for s in analysis.states] == [(7, 1, "L04"), (11, 2, "R01")]
    assert [(f.rule, f.line, f.fixable) for f in analysis.findings if f.kind in ("call", "base-url", "compat")] == [
        ("L01", 3, True), ("L04", 7, True), ("R01", 11, True)]


def test_v2_and_runtime_only_code_is_not_v1() -> None:
    src = 'import httpx\nhttpx.get("https://api.runpod.io/v2/pods").json()["pods"]\nhttpx.post("https://api.runpod.ai/v2/abc/runsync")\n'
    analysis = analyze_python(src, "x.py")
    assert analysis.findings == [] and analysis.edits == []
    assert analysis.uses_v2 and analysis.serverless_runtime and not analysis.uses_v1


def test_unknown_base_is_indirect_and_not_fixable() -> None:
    """A helper whose base address comes from elsewhere: reported, never rewritten."""
    src = '''from config import BASE
import requests


class C:
    def _get(self, path):
        return requests.get(self.base + path).json()

    def pods(self):
        return self._get("/pods")
'''
    analysis = analyze_python(src, "x.py")
    assert analysis.indirect_only and analysis.uses_v1
    assert [(f.kind, f.route, f.fixable) for f in analysis.findings] == [("indirect", "GET /pods", False)]
    # never edited; flagged for a person (base and path must move together)
    assert [e.kind for e in analysis.edits] == ["comment"] and analysis.manual[0][1] == "Q02"


def test_routes_a_server_defines_are_not_requests() -> None:
    """`@routes.post("/pods/{pod_id}/stop")` declares a route of the file's own server: not a v1 call of any base,
    so the audit reports no call there (it did: L04 'through a base address defined elsewhere')."""
    src = '''from aiohttp import web
from fastapi import FastAPI

routes = web.RouteTableDef()
api = FastAPI()


@routes.post("/pods/{pod_id}/stop")
async def stop_pod(request):
    return web.json_response({"id": request.match_info["pod_id"]})


@api.get("/endpoints")
def endpoints():
    return []
'''
    analysis = analyze_python(src, "server.py")
    assert not analysis.uses_v1 and analysis.findings == []


def test_file_that_does_not_parse_is_reported() -> None:
    analysis = analyze_python("def broken(:\n", "bad.py")
    assert analysis.error and analysis.error.startswith("does not parse")


def test_code_of_matches_libcst_regeneration() -> None:
    """`Analyzer.code_of` slices source by position (fast); it must equal libcst's code_for_node, LF and CRLF."""
    from pathlib import Path

    from codemod.analysis import Analyzer
    from codemod.knowledge import knowledge

    root = Path(__file__).parents[2]
    files = sorted((root / "tests" / "codemod" / "fixtures").glob("*.py")) + sorted((root / "codemod").rglob("*.py"))
    checked = 0
    for path in files:
        for newline in ("\n", "\r\n"):
            an = Analyzer(path.read_text().replace("\n", newline), path.name, knowledge())
            an.run()
            for node in an.ix.dicts + an.ix.calls + an.ix.subscripts:
                assert an.code_of(node) == an.module.code_for_node(node).strip(), (path, newline)
                checked += 1
    assert checked > 5000
