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
