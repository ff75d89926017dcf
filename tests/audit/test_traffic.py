"""`v1bridge audit --traffic`: usage records from several proxy processes -> who still calls which v1 route."""
from __future__ import annotations

import json
from pathlib import Path

from codemod.audit import traffic
from v1bridge.cli import main

USAGE = sorted((Path(__file__).parent / "traffic").glob("usage-*.jsonl"))


def test_routes_clients_counts_and_first_last_seen_across_proxy_files():
    """Guards against losing records from one proxy file, or mixing up clients and routes."""
    data = traffic.to_dict(traffic.read_usage([str(p) for p in USAGE]))
    assert data["summary"] == {"files": 2, "proxies": 2, "records": 5, "routes": 3, "clients": 3,
                               "bad_lines": 2, "truncated_lines": 1}
    routes = {r["route"]: r for r in data["routes"]}
    pods = routes["GET /pods"]
    assert pods["count"] == 3
    assert pods["first_seen"] == "2026-04-30T09:00:00.000Z" and pods["last_seen"] == "2026-05-01T11:00:00.000Z"
    assert [(c["client"], c["count"]) for c in pods["clients"]] == [("a1b2c3d4e5f60718", 2), ("ffeeddccbbaa0099", 1)]
    assert pods["clients"][0]["user_agents"] == ["legacy-dashboard/1.3", "legacy-dashboard/1.4"]
    assert pods["emulations"] == {"list-filters": 1}
    reset = routes["POST /pods/{podId}/reset"]
    assert reset["emulations"] == {"reset": 1} and reset["rules"] == {"R01": 1} and reset["operation"] == "pods.reset"
    assert [c["client"] for c in data["clients"]] == ["a1b2c3d4e5f60718", "anonymous", "ffeeddccbbaa0099"]
    assert data["verdict"] == "legacy"


def test_bad_and_truncated_lines_are_counted_not_fatal():
    """Guards against one torn write (a proxy killed mid-line) aborting the whole traffic report."""
    data = traffic.to_dict(traffic.read_usage([str(p) for p in USAGE]))
    assert [(Path(b["file"]).name, b["line"]) for b in data["bad_lines"]] == [
        ("usage-host-a-101.jsonl", 3), ("usage-host-b-202.jsonl", 2)]
    assert [(Path(b["file"]).name, b["line"]) for b in data["truncated_lines"]] == [("usage-host-a-101.jsonl", 5)]


def test_traffic_cli_exit_codes_and_formats(tmp_path, capsys):
    """Guards against --fail-on-legacy passing while v1 traffic exists, and against sarif/html misuse."""
    args = ["audit", "--traffic", *map(str, USAGE)]
    assert main(args) == 0
    assert main(args + ["--fail-on-legacy"]) == 1
    empty = tmp_path / "usage-empty.jsonl"
    empty.write_text("")
    assert main(["audit", "--traffic", str(empty), "--fail-on-legacy"]) == 0
    out = tmp_path / "t.json"
    assert main(args + ["--format", "json", "--output", str(out)]) == 0
    assert json.loads(out.read_text())["schema"] == "v1bridge.audit.traffic/1"
    assert main(args + ["--format", "sarif"]) == 2
    assert main(["audit", "--traffic", str(tmp_path / "missing.jsonl")]) == 2
    capsys.readouterr()
    assert main(args + ["--format", "markdown"]) == 0
    assert "| `GET /pods` | 3 | 2 |" in capsys.readouterr().out


GOOD = '{"time": "2026-11-20T10:00:00.000Z", "route": "GET /pods", "method": "GET", "client": "a1b2c3d4e5f60718"}\n'


def test_a_line_nested_100000_deep_is_a_bad_line_not_an_internal_error(tmp_path, capsys):
    """Issue 23 item 13: one line of 100,000 `[` made `audit --traffic` exit 2 with a RecursionError and no report."""
    usage = tmp_path / "usage-h-1.jsonl"
    usage.write_text(GOOD + "[" * 100_000 + "\n" + '{"time": "x", "route": 1, "client": 2, "emulations": 5}\n' + GOOD)
    out = tmp_path / "t.json"
    assert main(["audit", "--traffic", str(usage), "--format", "json", "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["summary"]["records"] == 2 and data["summary"]["bad_lines"] == 2
    assert [b["line"] for b in data["bad_lines"]] == [2, 3]
    assert data["bad_lines"][0]["reason"].startswith("depth limit exceeded")
    assert data["bad_lines"][1]["reason"] == "emulations not a list"


def test_a_folder_means_its_usage_files(tmp_path, capsys):
    """Issue 23 item 13: a directory argument was an internal error. The folder also holds files that are not
    usage records (the fingerprint salt, notes) and subfolders: only its usage-*.jsonl files are read."""
    folder = tmp_path / "usage"
    (folder / "old").mkdir(parents=True)
    (folder / "usage-a-1.jsonl").write_text(GOOD)
    (folder / "usage-b-2.jsonl").write_text(GOOD + GOOD)
    (folder / "fingerprint-salt").write_text("secret\n")
    (folder / "notes.txt").write_text("not json\n")
    (folder / "old" / "usage-c-3.jsonl").write_text(GOOD)
    out = tmp_path / "t.json"
    assert main(["audit", "--traffic", str(folder), "--format", "json", "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["summary"]["files"] == 2 and data["summary"]["records"] == 3 and data["summary"]["bad_lines"] == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["audit", "--traffic", str(empty)]) == 2
    assert capsys.readouterr().err == f"v1bridge audit: no usage files (usage-*.jsonl) in {empty}\n"


def test_ignored_inputs_are_counted_per_route_and_a_non_list_is_a_bad_line(tmp_path):
    """The usage record's `ignored` (X-V1bridge-Ignored): counted per route; a string there is a bad line, not its
    characters counted."""
    usage = tmp_path / "usage-h-1.jsonl"
    record = {"time": "2026-11-20T10:00:00.000Z", "operation": "endpoints.get", "route": "GET /endpoints/{endpointId}",
              "method": "GET", "status": 200, "client": "c1", "emulations": [], "rules": ["Q15"]}
    usage.write_text("\n".join(json.dumps({**record, "ignored": ignored}) for ignored in
                               (["includeTemplate"], [], ["includeTemplate"], "includeTemplate")) + "\n")
    out = tmp_path / "t.json"
    assert main(["audit", "--traffic", str(usage), "--format", "json", "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    assert [r["ignored"] for r in data["routes"]] == [{"includeTemplate": 2}]
    assert [(b["line"], b["reason"]) for b in data["bad_lines"]] == [(4, "ignored not a list")]
