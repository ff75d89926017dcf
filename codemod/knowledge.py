"""The codemod's names for the shared index of `mappings/` (mappings/index.py).

Rewrite and audit read the same index: hosts, routes, v1 names, field -> rule
and prefilter tokens are built once, in `mappings.index`, from the data.
"""
from __future__ import annotations

import re

from mappings.index import HTTP_METHODS, Host, Index, IndexedRoute, index

Knowledge = Index
Route = IndexedRoute
knowledge = index

HOLE = "\x00"
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


def handed_in_fields() -> dict[str, tuple[str, ...]]:
    """v1 body/answer names recognisable on any object (a parameter, an attribute): {name: rule ids}."""
    ix = index()
    return {n: ix.field_rules[n] for n in sorted(ix.v1_only_names) if n in ix.field_rules}


__all__ = ["HOLE", "HTTP_METHODS", "SCHEME", "Host", "Knowledge", "Route", "handed_in_fields", "knowledge"]
