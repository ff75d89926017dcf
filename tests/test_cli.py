"""The console script's front door: dispatch, exit codes, the routes table."""
from __future__ import annotations

import json
import shutil

from mappings.loader import DATA_DIR
from v1bridge.cli import main


def test_no_subcommand_is_a_usage_error(capsys):
    assert main([]) == 2
    assert "usage: v1bridge" in capsys.readouterr().err


def test_unknown_subcommand_is_a_usage_error(capsys):
    assert main(["frobnicate"]) == 2
    assert "invalid choice: 'frobnicate'" in capsys.readouterr().err


def test_bad_option_is_a_usage_error(capsys):
    assert main(["routes", "--format", "yaml"]) == 2
    assert "invalid choice: 'yaml'" in capsys.readouterr().err


def test_routes_json_lists_every_operation_with_its_target(capsys):
    assert main(["routes", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["operations"]
    assert len(rows) == 37
    by_route = {(r["v1"]["method"], r["v1"]["path"]): r for r in rows}
    assert by_route[("GET", "/v1/billing/endpoints")]["v2"] == {"method": "GET", "path": "/v2/billing/serverless", "body": None}
    assert by_route[("POST", "/v1/pods/{podId}/stop")]["v2"]["body"] == {"action": "stop"}
    reset = by_route[("POST", "/v1/pods/{podId}/reset")]
    assert (reset["v2"], reset["policy"], reset["emulation"], reset["rules"]) == (None, "emulate", "reset", ["R01"])


def test_routes_text_is_a_table(capsys):
    assert main(["routes"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["V1", "V2", "POLICY", "RULES"]
    assert any(line.startswith("POST /v1/containerregistryauth ") and "POST /v2/registries" in line for line in lines)


def test_routes_reports_a_broken_mapping_dir(tmp_path, capsys):
    broken = tmp_path / "data"
    shutil.copytree(DATA_DIR, broken)
    (broken / "rules.yaml").write_text("- id: Q01\n  nme: typo\n")
    assert main(["routes", "--mappings", str(broken)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("v1bridge routes: rules.yaml: entry 'Q01':")


def test_sandbox_refuses_a_page_size_below_one(capsys):
    assert main(["sandbox", "--max-page-size", "0"]) == 2
    assert "--max-page-size must be at least 1" in capsys.readouterr().err


def test_translate_says_a_list_is_read_page_by_page(capsys):
    assert main(["translate", "GET", "/v1/pods"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["pages"] == "every page: the cursor is followed while pagination.hasNextPage is true"
    assert "Q30" in plan["rules"]
    assert main(["translate", "GET", "/v1/networkvolumes"]) == 0
    assert "pages" not in json.loads(capsys.readouterr().out)  # not a paginated v2 list


def test_translate_exit_status_says_whether_the_request_would_reach_v2(capsys):
    """Issue 24: `translate GET /v1/nope` exited 0."""
    assert main(["translate", "GET", "/v1/nope"]) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["answer"] == {"status": 404, "message": "no such v1 operation"}
    assert captured.err == "v1bridge translate: GET /nope: no such v1 operation\n"
    assert main(["translate", "PUT", "/v1/pods"]) == 2, "a method the route does not have is a 405: no such operation"
    capsys.readouterr()
    assert main(["translate", "--strict", "all", "POST", "/v1/pods/abc/reset"]) == 1, "the proxy would refuse it itself"
    assert json.loads(capsys.readouterr().out)["answer"]["status"] == 501
    assert main(["translate", "POST", "/v1/pods/abc/reset"]) == 0
