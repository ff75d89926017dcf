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


SPELLINGS = ["a/b.PY", "a\\b.Ts", ".env", "x/.env.local", "a.", "a..b", "dir.d/file", "x/.hidden", "a/b.sh/", "", ".",
             "..", "a/..", "a.tar.gz", "Makefile", "/abs/p.SH", "C:\\work\\x.PS1", "pkg/lib.test.js", "bin/rpctl"]


@pytest.mark.parametrize("path", SPELLINGS)
def test_a_file_name_is_read_as_pathlib_reads_it(path):
    from pathlib import PurePosixPath

    from codemod.audit.matching import suffix_of
    from codemod.audit.scan_text import BY_NAME, BY_SUFFIX, DOTENV, language_for

    posix = PurePosixPath(path.replace("\\", "/"))
    assert suffix_of(path) == posix.suffix.lower()
    name = posix.name
    assert language_for(path) == (BY_NAME[name] if name in BY_NAME else DOTENV if name.startswith(".env")
                                  else BY_SUFFIX.get(PurePosixPath(name).suffix.lower()))
