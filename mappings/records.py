"""What is done to v2 records and answers on the way back to v1, shared by the proxy and the compat module.

Standard library only, on purpose: the compat module that `v1bridge rewrite` writes into a user's project
carries these functions as source (codemod/compat/source.py), so the proxy and rewritten code filter, group,
sum and wait exactly alike.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any


@dataclass
class Filter:
    """A v1 list filter applied to the records because v2 ignores it (Q03)."""

    name: str
    kind: str
    field: str
    values: tuple[str, ...]
    allowed: frozenset[str] | None = None  # in_values / compute_type: the v2 values/keys it stands for
    after_translation: bool = False  # billing joins filter the rebuilt v1 records


def values_at(obj: Any, path: str) -> list[Any]:
    """Every value at a dotted path, walking into lists (mounts.network.volumeId) unless indexed (.0.)."""
    parts = path.split(".")
    current = [obj]
    for index, part in enumerate(parts):
        indexed_next = index + 1 < len(parts) and parts[index + 1].isdigit()
        nxt: list[Any] = []
        for item in current:
            if isinstance(item, dict):
                value = item.get(part)
                if isinstance(value, list) and not indexed_next:
                    nxt.extend(value)
                elif value is not None:
                    nxt.append(value)
            elif isinstance(item, list) and part.isdigit() and int(part) < len(item):
                nxt.append(item[int(part)])
        current = nxt
    return current


def passes(item: dict[str, Any], filters: list[Filter]) -> bool:
    """Does the record meet every filter?"""
    for f in filters:
        if f.kind == "compute_type":
            if not any(item.get(key) for key in (f.allowed or ())):
                return False
            continue
        found = [str(v) for v in values_at(item, f.field) if not isinstance(v, (dict, list))]
        if f.kind == "in_values":
            if not any(v in (f.allowed or ()) for v in found):
                return False
        elif f.kind in ("equals", "in_list", "any_equals"):
            if not any(v in f.values for v in found):
                return False
    return True


def group_records(records: list[dict[str, Any]], drop: frozenset[str]) -> list[dict[str, Any]]:
    """v1 grouping: the other grouping keys dropped, records with equal remaining keys summed."""
    buckets: dict[tuple[Any, ...], dict[str, Any]] = {}
    for record in records:
        kept = {k: v for k, v in record.items() if k not in drop}
        key = tuple(sorted((k, v) for k, v in kept.items() if not _numeric(v)))
        bucket = buckets.get(key)
        if bucket is None:
            buckets[key] = kept
            continue
        for name, value in kept.items():
            if _numeric(value):
                bucket[name] = round((bucket.get(name) or 0) + value, 10)
    return list(buckets.values())


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def aggregate_records(records: list[dict[str, Any]], by: str, sums: list[str]) -> list[dict[str, Any]]:
    """v2 records of one bucket summed into one, as v1 reported them (one per bucket, not per resource)."""
    buckets: dict[Any, dict[str, Any]] = {}
    for record in records:
        key = record.get(by)
        bucket = buckets.get(key)
        if bucket is None:
            buckets[key] = dict(record)
            continue
        for name in sums:
            bucket[name] = round((bucket.get(name) or 0) + (record.get(name) or 0), 10)
    return list(buckets.values())


def is_unset(value: Any, spellings: list[Any]) -> bool:
    """Equal to one of a field's "not set" spellings, type included (0 is not False, "" is not [])."""
    kind = type(value)
    return any(kind is type(spelling) and value == spelling for spelling in spellings)


def retry_after(value: str | None) -> float | None:
    """RFC 9110 Retry-After: delay-seconds or an HTTP-date; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())
