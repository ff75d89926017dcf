"""Responses backward: a v2 answer -> the v1 answer, built on mappings.translate.

Also the error direction: a v2 problem (or a proxy-made error) becomes v1's
{"message": ...}, with v2 field names put back to the v1 names the client sent.
"""
from __future__ import annotations

import re
from typing import Any, Iterable

import orjson

from mappings.records import group_records, passes
from mappings.translate import ResponseContext, translators

from proxy.forward import Plan
from proxy.routes import Route, RouteTable


class Backward:
    def __init__(self, table: RouteTable) -> None:
        self.table = table
        self.m = table.mappings
        self.error_key = self.m.conventions.v1_error_key
        t = translators()
        self.translators = t if t.mappings is self.m else __import__("mappings.translate").translate.Translators(self.m)
        self._bare = frozenset(self.m.conventions.bare_field_names)

    # ----------------------------------------------------------------- errors

    def error_body(self, message: str) -> bytes:
        return orjson.dumps({self.error_key: message})

    def problem_message(self, raw: bytes, plan: Plan | None, status: int | None = None) -> str:
        """detail + every entry of errors, with v2 names translated back where the client sent the v1 name."""
        try:
            problem = orjson.loads(raw) if raw else {}
        except orjson.JSONDecodeError:
            problem = {}
        if not isinstance(problem, dict):
            problem = {}
        detail = problem.get("detail") or problem.get("title") or problem.get(self.error_key)
        if not detail:  # not a problem object: say so rather than invent a cause
            detail = f"the v2 upstream answered {status} without a problem detail" if status else "upstream error"
        errors = problem.get("errors") or []
        if isinstance(errors, dict):  # an unexpected shape: {"field": [messages]}
            errors = [f"{k}: {', '.join(map(str, v)) if isinstance(v, list) else v}" for k, v in errors.items()]
        elif not isinstance(errors, list):
            errors = [errors]
        pairs = self._pairs(plan)
        if pairs:
            detail = _rename(str(detail), pairs, self._is_bare_name)
            errors = [_rename(str(e), pairs, lambda name: True) for e in errors]
        message = str(detail)
        if errors:
            message += ": " + "; ".join(str(e) for e in errors)
        return message

    def _pairs(self, plan: Plan | None) -> list[tuple[str, str]]:
        """(v2 name, v1 name) from the mapping's reverse index, longest first: of the v1 fields that land on a
        v2 name, the one the client sent, else the first the mapping lists (`gpu` -> gpuTypeIds)."""
        if plan is None or not plan.route.op.request:
            return []
        sent = plan.sent
        pairs = []
        for v2, v1_names in self.m.v1_names(plan.route.op.request):
            v1 = next((name for name in v1_names if name in sent), v1_names[0])
            if v1 != v2:
                pairs.append((v2, v1))
        return pairs

    def _is_bare_name(self, name: str) -> bool:
        """Whether prose may name this v2 field without quotes: dotted and camelCase names, and listed words."""
        return "." in name or "[" in name or name != name.lower() or name in self._bare

    # ---------------------------------------------------------------- success

    def context(self, plan: Plan, lookups: dict[str, Any]) -> ResponseContext:
        return ResponseContext(includes=frozenset(plan.includes), lookups=lookups)

    def items(self, route: Route, data: Any) -> list[dict[str, Any]]:
        """The v2 list envelope unwrapped (Q02)."""
        key = route.list_key or route.records_key
        if isinstance(data, dict) and key:
            found = data.get(key)
            return found if isinstance(found, list) else []
        return data if isinstance(data, list) else []

    def translate(self, plan: Plan, data: Any, ctx: ResponseContext, extra_items: Iterable[dict[str, Any]] = ()) -> Any:
        """v2 JSON -> v1 JSON for the route's shape."""
        route = plan.route
        op = route.op
        shape = op.shape
        if op.response is None or shape in ("empty", "raw"):
            return data
        if shape == "list":
            filters = plan.filters
            if not filters and not extra_items:  # the plain list: one compiled translator over every item
                translate = self.translators.responses[op.response].translate
                return [translate(item, ctx) for item in self.items(route, data)]
            items = [i for i in self.items(route, data) if passes(i, filters)]
            seen = {i.get("id") for i in items}
            for extra in extra_items:
                if extra.get("id") not in seen and passes(extra, plan.filters):
                    items.append(extra)
                    seen.add(extra.get("id"))
            return [self.translators.response(op.response, item, ctx) for item in items]
        if shape == "billing":
            records = self.translators.records(op.response, self.items(route, data), ctx)
            post = [f for f in plan.filters if f.after_translation]
            records = [r for r in records if passes(r, post)]
            if plan.grouping:
                records = group_records(records, plan.grouping_drop)
            return records
        if not isinstance(data, dict):
            return data
        return self.translators.response(op.response, data, ctx)


class ListBuilder:
    """A v1 list built page by page (Q30): each v2 page is filtered, translated and serialised into the v1
    array as it arrives, so the proxy holds the v1 answer, never every v2 page."""

    def __init__(self, backward: Backward, plan: Plan) -> None:
        op = plan.route.op
        assert op.response is not None
        self.backward = backward
        self.route = plan.route
        self.filters = plan.filters
        self.translate = backward.translators.responses[op.response].translate
        # ids only matter when catalog items are added after the last page (dedupe)
        self.track = any(spec.extends_list for _, spec in plan.lookups)
        self.seen: set[Any] = set()
        self.chunks: list[bytes] = []
        self.size = 0  # bytes held in chunks (answer.Budget counts them)

    def add(self, data: Any, ctx: ResponseContext) -> None:
        items = self.backward.items(self.route, data)
        if self.filters:
            items = [i for i in items if passes(i, self.filters)]
        if self.track:
            self.seen.update(i.get("id") for i in items)
        if items:
            translate = self.translate
            chunk = orjson.dumps([translate(item, ctx) for item in items])[1:-1]
            self.chunks.append(chunk)
            self.size += len(chunk)

    def add_json(self, items: bytes) -> None:
        """A page translated already: its v1 items as a JSON array (a typed reader's, mappings/typed.py)."""
        if items != b"[]":
            self.chunks.append(items[1:-1])
            self.size += len(items) - 2

    def add_extra(self, extra: Iterable[dict[str, Any]], ctx: ResponseContext | None) -> None:
        """The entries a lookup adds after the last page (catalog templates), each once."""
        for item in extra:
            if item.get("id") not in self.seen and passes(item, self.filters):
                self.seen.add(item.get("id"))
                chunk = orjson.dumps(self.translate(item, ctx or ResponseContext()))
                self.chunks.append(chunk)
                self.size += len(chunk)

    def finish(self) -> bytes:
        """The v1 list as one body."""
        return b"[" + b",".join(self.chunks) + b"]"


# ------------------------------------------------------------------ helpers


def _rename(text: str, pairs: list[tuple[str, str]], bare) -> str:
    """v2 field names in a problem text put back to v1's: quoted ('image') and JSON-path ($.image) forms always,
    bare words when `bare(name)` says prose uses the name as a field name (gpu, mounts.persistent)."""
    for v2, v1 in pairs:
        escaped = re.escape(v2)
        if bare(v2):
            text = re.sub(r"(?<![\w\[])(?<!\w\.)" + escaped + r"(?![\w])", lambda m, v1=v1: v1, text)
            continue
        text = re.sub(r"(['\"`])" + escaped + r"\1", lambda m, v1=v1: m.group(1) + v1 + m.group(1), text)
        text = re.sub(r"(\$\.)" + escaped + r"(?![\w.])", lambda m, v1=v1: m.group(1) + v1, text)
    return text
