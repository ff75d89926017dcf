"""A text test, built once from mappings/, that says whether a file needs parsing at all.

Most files in a tree never talk to the API. Parsing them with libcst is the
expensive part of a run, so the rewrite (and the audit) first look for the
cheap signs of API use: a v1 or v2 host, or a v1 resource path segment
("/pods", "/networkvolumes", ...). A file with none of them cannot hold a
call site the detector would recognise, since every recognised URL contains a
resource path or a host.
"""
from __future__ import annotations

import functools
import re
from urllib.parse import urlsplit

from codemod.knowledge import knowledge


@functools.cache
def pattern() -> re.Pattern[str]:
    kb = knowledge()
    conv = kb.mappings.conventions
    hosts = {urlsplit(h).netloc for h in (*conv.hosts.v1, *conv.hosts.v2, *conv.hosts.serverless_runtime)}
    segments = sorted(kb.resources)
    alternatives = [re.escape(h) for h in sorted(hosts)]
    alternatives.append("/(?:" + "|".join(re.escape(s) for s in segments) + r")\b")
    return re.compile("|".join(alternatives))


@functools.cache
def field_pattern() -> re.Pattern[str]:
    """v1-only field names (request and response keys that v2 spells differently), quoted."""
    kb = knowledge()
    m = kb.mappings
    names: set[str] = set()
    for request in m.requests.values():
        names.update(k for k, f in request.fields.items() if f.to != k)
    for response in m.responses.values():
        names.update(k for k, f in response.fields.items() if f.source != k)
    return re.compile(r"""["'](?:""" + "|".join(re.escape(n) for n in sorted(names)) + r""")["']""")


def needs_parse(text: str) -> bool:
    """True when `text` may call the API (v1 or v2) and must be parsed."""
    return pattern().search(text) is not None


def mentions_v1_fields(text: str) -> bool:
    """True when `text` quotes a v1 field name (for the audit's indirect reads)."""
    return field_pattern().search(text) is not None
