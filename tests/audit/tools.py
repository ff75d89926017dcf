"""Helpers several audit test modules share."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the official SARIF 2.1.0 schema, fetched by scripts/test.sh (CI) with npm
OFFICIAL_SARIF_SCHEMA = ROOT / ".cache" / "sarif-2.1.0.json"
