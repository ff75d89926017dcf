"""Parsed languages (tree-sitter): realistic clients in bash, Go, TypeScript and PowerShell, with exact findings.

Each expected finding names what it guards. Samples: tests/audit/samples/parsed/.
"""
from __future__ import annotations

from tests.audit.conftest import SAMPLES, audit_json

PARSED = SAMPLES / "parsed"


def _calls(data: dict, prefix: str) -> dict[tuple[str, int], str]:
    return {(f["path"], f["line"]): f["route"] for f in data["findings"]
            if f["path"].startswith(prefix) and f["kind"] == "call"}


def test_bash_cli_every_api_call_line_is_found():
    """Guards the bash CLI on curl and jq (a wrapper `rp::http` in lib/, commands in their own files, paths in
    variables, `/pods/$id/$action`): every line that calls the API is a call finding with its method."""
    data = audit_json(PARSED)
    assert _calls(data, "bash_cli/") == {
        ("bash_cli/commands/pod.sh", 4): "GET /pods/{podId}",  # rp::http GET "/pods/$1" through the wrapper
        ("bash_cli/commands/pod.sh", 5): "GET /pods",  # a v2-also path, v1 because of the wrapper
        ("bash_cli/commands/pod.sh", 8): "POST /pods/{podId}/{reset|restart|start|stop|update}",  # verb in a variable
        ("bash_cli/commands/pod.sh", 13): "POST /pods",  # a bare word path, method from the argument
        ("bash_cli/commands/pod.sh", 16): "DELETE|GET|PATCH /pods/{podId}",  # the path kept in a local variable ...
        ("bash_cli/commands/pod.sh", 17): "DELETE /pods/{podId}",  # ... and the call that sends it
        ("bash_cli/commands/template.sh", 4): "GET /templates",  # a file with no host at all: the wrapper decides
        ("bash_cli/commands/template.sh", 5): "DELETE /templates/{templateId}",
        ("bash_cli/commands/template.sh", 6): "POST /pods/{podId}/stop",  # second call on one line ...
    }
    lines = {(f["path"], f["line"], f["route"]) for f in data["findings"] if f["kind"] == "call"}
    assert ("bash_cli/commands/template.sh", 6, "GET /pods") in lines  # ... and the first, in $(...)
    base = [f for f in data["findings"] if f["path"] == "bash_cli/lib/http.sh"]
    assert [(f["rule"], f["line"], f["kind"]) for f in base] == [("L01", 3, "base-url"), ("L01", 9, "base-url")], \
        "the base in `: ${RUNPOD_API_BASE:=...}` where it is written, and the wrapper's curl line that sends it"


def test_bash_comments_are_not_findings():
    """Guards against `# rp::http GET /templates` in a comment counting as a call."""
    data = audit_json(PARSED)
    assert not any(f["path"].endswith("template.sh") and f["line"] == 3 for f in data["findings"])


def test_bash_jq_reads_and_bodies_are_fields():
    """Guards v1 names in jq filters and jq-built bodies."""
    data = audit_json(PARSED)
    fields = {(f["rule"], f["line"]) for f in data["findings"] if f["path"] == "bash_cli/commands/pod.sh"
              and f["kind"] != "call"}
    assert ("Q13", 5) in fields  # .desiredStatus read by jq
    assert {("L02", 12), ("R02", 12), ("Q31", 12)} <= fields  # imageName, gpuTypeIds, gpuCount in a jq body


def test_go_sdk_with_base_url_option():
    """Guards a Go SDK: DefaultBaseURL constant, a WithBaseURL option, c.baseURL + "/pods/" + id, fmt.Sprintf,
    http.MethodX constants for the method, and struct tags naming v1 fields."""
    data = audit_json(PARSED)
    got = {(f["rule"], f["line"], f["route"]) for f in data["findings"] if f["path"] == "go_sdk/client.go"}
    assert got == {
        ("L01", 12, None),  # DefaultBaseURL
        ("Q13", 34, None), ("Q14", 35, None),  # json:"desiredStatus", json:"costPerHr" tags
        ("L01", 39, "GET /pods/{podId}"),  # concatenation with url.PathEscape(id), http.MethodGet
        ("L04", 43, "POST /pods/{podId}/stop"), ("Q24", 43, "POST /pods/{podId}/stop"),  # fmt.Sprintf into u ...
        ("L04", 44, "POST /pods/{podId}/stop"), ("Q24", 44, "POST /pods/{podId}/stop"),  # ... u sent on the next line
        ("L01", 48, "DELETE /networkvolumes/{networkVolumeId}"),
    }
    assert {f["language"] for f in data["findings"] if f["path"] == "go_sdk/client.go"} == {"go"}


def test_typescript_mcp_server_with_fetch_and_url_search_params():
    """Guards a TypeScript MCP server: `${API_BASE}${path}` in a wrapper, calls through it with template
    literals, URLSearchParams query names, a v1 error read, and a comment that is not a finding."""
    data = audit_json(PARSED)
    got = {(f["rule"], f["line"]) for f in data["findings"] if f["path"] == "ts_mcp/server.ts"}
    assert got == {
        ("L01", 4),  # API_BASE with a ?? default
        ("L01", 8),  # the wrapper's fetch(`${API_BASE}${path}`): the line that sends every call
        ("Q29", 12),  # (await res.json()).message: the v1 error body
        ("R11", 16),  # known over-report: `version` as a key in a file that calls v1 (generic catalogue name)
        ("L05", 18), ("L05", 20),  # computeType as a tool parameter and a query parameter
        ("R07", 21),  # includeMachine set on URLSearchParams
        ("L01", 22),  # /pods?${params} through the wrapper
        ("Q13", 23),  # p.desiredStatus
        ("L04", 27), ("Q24", 27),  # /pods/${podId}/stop through the wrapper, method from the options
        ("Q01", 33), ("Q25", 33), ("Q26", 33),  # /billing/endpoints with bucketSize
    }
    assert not any(f["path"] == "ts_mcp/server.ts" and f["line"] == 31 for f in data["findings"]), \
        "the comment on line 31 names /reset: not a finding"


def test_powershell_is_parsed_and_reported_as_powershell():
    """Guards PowerShell: an if/else base, a function wrapper called with -Method/-Path, hashtable bodies,
    $($pod.id) in expandable strings, comments ignored, and the language reported as powershell, not shell."""
    data = audit_json(PARSED)
    got = {(f["rule"], f["line"], f["route"]) for f in data["findings"] if f["path"] == "powershell/Deploy-Pod.ps1"}
    assert got == {
        ("L01", 3, None),  # the literal in the else branch
        ("L01", 9, None),  # Invoke-RestMethod -Uri "$Base$Path" in the wrapper
        ("L01", 12, "POST /pods"), ("Q34", 12, "POST /pods"),  # Invoke-Rp -Method POST -Path "/pods"
        ("L02", 12, None), ("Q18", 12, None), ("R02", 12, None),  # hashtable keys imageName, gpuTypeIds
        ("Q06", 12, None), ("Q17", 12, None),  # ... and volumeInGb
        ("Q13", 13, None),  # $pod.desiredStatus
        ("L01", 15, "GET /pods/{podId}"),  # -Path "/pods/$($pod.id)"
        ("L04", 17, "POST /pods/{podId}/stop"), ("Q24", 17, "POST /pods/{podId}/stop"),
    }
    langs = {f["language"] for f in data["findings"] if f["path"].endswith(".ps1")}
    assert langs == {"powershell"}


def test_zsh_and_ksh_scripts_are_parsed_with_the_bash_grammar():
    """Guards zsh/ksh clients: an unquoted ${VAR:-base} and a curl through it, comments not findings."""
    from codemod.audit.engine import analyze_source

    source = ('#!/bin/zsh\nRP=${RP:-https://rest.runpod.io/v1}\n# curl $RP/pods/reset\n'
              'curl -X POST "$RP/pods/$1/stop"\n')
    for name in ("ops.zsh", "ops.ksh"):
        result = analyze_source(source, name)
        assert {(f.rule, f.line, f.route) for f in result.findings} == {
            ("L01", 2, None), ("L04", 4, "POST /pods/{podId}/stop"), ("Q24", 4, "POST /pods/{podId}/stop")}
        assert result.language == "shell"


def test_vue_script_blocks_are_parsed_and_markup_scanned():
    """Guards single-file components: `<script lang="ts">` parsed as TypeScript (a base with a ?? default, a
    path built in an arrow function), comments inside it not findings, and the markup still read."""
    from codemod.audit.engine import analyze_source

    source = ('<template>\n  <div>{{ pod.desiredStatus }}</div>\n</template>\n<script setup lang="ts">\n'
              "// fetch(`${BASE}/pods/reset`) old\n"
              'const BASE = import.meta.env.VITE_RUNPOD ?? "https://rest.runpod.io/v1";\n'
              "const url = (id: string) => `${BASE}/pods/${id}/stop`;\n"
              'export const stop = (id: string) => fetch(url(id), { method: "POST" });\n</script>\n')
    result = analyze_source(source, "App.vue")
    assert {(f.rule, f.line, f.route) for f in result.findings} == {
        ("Q13", 2, None),  # pod.desiredStatus in the template
        ("L01", 6, None),  # the base in the script block
        ("L04", 7, "POST /pods/{podId}/stop"), ("Q24", 7, "POST /pods/{podId}/stop"),
    }


def test_v1_error_body_reads_in_typescript_powershell_and_go():
    """Guards Q29 error reads that can only be an answer body, in a file that calls v1: a cast of `res.json()`
    to `{ message?: string }`, `(... | ConvertFrom-Json).message`, a Go struct field tagged json:"message"."""
    from codemod.audit.engine import analyze_source

    ts = ('const BASE = "https://rest.runpod.io/v1";\n'
          "export async function call(path: string) {\n  const res = await fetch(`${BASE}${path}`);\n"
          "  const err = (await res.json()) as { message?: string };\n  return err;\n}\n")
    ps = ('$Base = "https://rest.runpod.io/v1"\n'
          'try { Invoke-RestMethod -Uri "$Base/pods" } catch {\n'
          '  $m = ($_.ErrorDetails.Message | ConvertFrom-Json).message\n}\n')
    go = ('package rp\n\nconst Base = "https://rest.runpod.io/v1"\n\n'
          'type APIError struct {\n\tMessage string `json:"message"`\n}\n')
    assert ("Q29", 4) in {(f.rule, f.line) for f in analyze_source(ts, "api.ts").findings}
    assert ("Q29", 3) in {(f.rule, f.line) for f in analyze_source(ps, "ops.ps1").findings}
    assert ("Q29", 6) in {(f.rule, f.line) for f in analyze_source(go, "client.go").findings}
    plain = "export const show = (e: Error) => console.log(e.message);\n"
    assert analyze_source(plain, "ui.ts").findings == [], "an Error's message is not a v1 read"
