"""A text test, from the shared index (`mappings/index.py`), that says whether a file needs parsing at all.

Most files in a tree never talk to the API. Parsing them with libcst is the
expensive part of a run, so the rewrite and the audit first look for the
cheap signs of API use, the same tokens for both: a host of this service, a
v1 resource path root (`/pods`, `"pods`, ...), the `/v2/` prefix, or a name
only v1 code spells.
"""
from __future__ import annotations

from mappings.index import index


def needs_parse(text: str) -> bool:
    """True when `text` may call the API (v1 or v2) and must be parsed."""
    return index().prefilter().search(text) is not None
