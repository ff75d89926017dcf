"""Helpers for the audit tests: run the audit on a sample repository and reduce it to comparable sets."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemod.audit import report_json
from codemod.audit.engine import audit_paths

SAMPLES = Path(__file__).parent / "samples"


def audit_json(path: Path | str, jobs: int = 1) -> dict:
    return json.loads(report_json.render(audit_paths([str(path)], jobs=jobs)))


def triples(findings: list[dict]) -> set[tuple[str, str, int]]:
    return {(f["rule"], f["path"], f["line"]) for f in findings}


def statuses(data: dict) -> dict[str, str]:
    return {f["path"]: f["status"] for f in data["files"]}


@pytest.fixture
def samples() -> Path:
    return SAMPLES
