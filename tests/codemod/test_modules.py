"""Whole realistic client modules: exact rewritten code, parse, idempotence.

The .after.py files were reviewed by hand (each hunk is a v2 fact from
mappings/); a change in the rewrite that alters them fails here.
"""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from codemod.engine import rewrite_source

FIXTURES = Path(__file__).parent / "fixtures"
NAMES = sorted(p.name.removesuffix(".before.py") for p in FIXTURES.glob("*.before.py"))


@pytest.mark.parametrize("name", NAMES)
def test_module_rewrite(name: str) -> None:
    before = (FIXTURES / f"{name}.before.py").read_text()
    after = (FIXTURES / f"{name}.after.py").read_text()
    result = rewrite_source(before, name)
    assert result.error is None
    assert result.new_source == after
    cst.parse_module(result.new_source)
    assert rewrite_source(after, name).new_source == after


def test_all_four_client_styles_are_covered() -> None:
    assert NAMES == ["argparse_cli", "async_httpx", "helper_client", "session_client"]
