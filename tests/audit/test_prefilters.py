"""The audit's cheap tests before a costly one say yes exactly when the costly one would (the whole-file marker on
every file the prefilter passes over, GraphQL's names in every Python API file)."""
from __future__ import annotations

import pytest

from codemod.audit import engine
from codemod.audit import graphql

MARKED = [b"# v1bridge: ignore file", b"# V1BRIDGE:IGNORE-FILE", b"# Rp-Migrate : keep-v1 file\n", b"x\n# rp-migrate: KEEP-V1: file",
          b"// v1Bridge: Ignore file (fixtures)"]
NOT_MARKED = [b"", b"import json\n", b"# v1bridge: ignore\n", b"# rp-migrate: keep-v1 files", b"# v1 bridge: ignore file",
              b"# rp_migrate: ignore file", b"v1bridge rp-migrate ignore file"]


@pytest.mark.parametrize("data", MARKED + NOT_MARKED)
def test_the_marker_test_agrees_with_the_marker_pattern(data):
    assert engine._marked(data) is (engine.MARKED.search(data) is not None)
    assert engine._marked(data) is (data in MARKED)


def test_the_graphql_test_agrees_with_a_search_for_each_name():
    names = sorted({"graphql", *graphql.inventory().tokens})
    for name in names:
        for text in (name, f"x = '{name}'\n", f"q = 'query {{ {name} }}'"):
            assert engine._graphql_signs().search(text), name
    plain = "import requests\nrequests.get('https://rest.runpod.io/v1/pods').json()['desiredStatus']\n"
    assert not any(name in plain for name in names) and not engine._graphql_signs().search(plain)
