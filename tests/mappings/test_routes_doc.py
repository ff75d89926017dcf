"""docs/routes.md is generated from mappings/ and kept current."""
from __future__ import annotations

from pathlib import Path

from v1bridge.cli import main

DOCS = Path(__file__).resolve().parents[2] / "docs" / "routes.md"


def test_docs_routes_md_is_current(capsys):
    """Regenerate with `v1bridge routes --format markdown > docs/routes.md`."""
    assert main(["routes", "--format", "markdown"]) == 0
    assert DOCS.read_text() == capsys.readouterr().out


def test_every_operation_is_a_row_linking_its_rules(capsys):
    assert main(["routes", "--format", "markdown"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| `")]
    assert len(rows) == 37
    assert "| `POST /v1/pods/{podId}/reset` | - | emulate (`reset`) | [R01](rules.md#r01) |" in rows
    assert "| `GET /v1/billing/endpoints` | `GET /v2/billing/serverless` | translate |" in "\n".join(rows)
