"""The reads the proxy makes on the caller's behalf: what the planner declares it needs (the GPU catalog, the
referenced template, the resource's current state) and what the answer needs (include* flags, joins, catalog
templates added to a list). Whole-list reads follow every page; per-object reads run a bounded few at a time."""
from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from mappings.converters import get_path
from mappings.errors import UpstreamError, V1bridgeError
from mappings.translate import Catalog

from mappings.records import values_at
from proxy.backward import Backward
from proxy.failures import Failures, kind
from proxy.routes import SAFE_ID, RouteTable

if TYPE_CHECKING:
    from proxy.config import ProxyConfig
    from proxy.context import Call
    from proxy.emulations.pages import Pages
    from proxy.forward import Need, Plan
    from proxy.upstream_answer import UpstreamResponse


# what a planner's need reads, in a message
_NEEDED = {"current": "the resource's current state", "template": "the referenced template"}


class Lookups:
    def __init__(self, table: RouteTable, config: ProxyConfig, backward: Backward, failures: Failures,
                 pages: Pages) -> None:
        self.table = table
        self.config = config
        self.backward = backward
        self.failures = failures
        self.pages = pages
        self.specs = table.mappings.conventions.lookups
        self._catalog: tuple[float, Catalog] | None = None  # shared by every request for catalog_ttl seconds

    # ------------------------------------------------------ for the planner

    async def answer(self, call: Call, need: Need) -> Any:
        """The value that answers one of the planner's needs."""
        if need.what == "catalog":
            return await self.catalog(call)
        got = await call.read(need.path)
        if not got.ok:
            if got.status in (401, 403, 404, 429):  # the caller's to see: no such resource, no access, slow down
                raise self.failures.error_from(got, None, call.route)
            raise self.failures.lookup_error(f"{_NEEDED[need.what]} (GET {need.path})", got)
        value = got.json()
        if not isinstance(value, dict):  # never planned over a stand-in: the read failed, named (502)
            raise UpstreamError(f"{_NEEDED[need.what]} (GET {need.path}) answered {got.status} with "
                                f"{kind(got, value)} where an object was expected")
        return value

    async def catalog(self, call: Call) -> Catalog:
        cached = self._catalog
        if cached and time.monotonic() - cached[0] < self.config.catalog_ttl:
            return cached[1]
        spec = self.specs["catalog"]
        got = await call.read(spec.path, dict(spec.query))
        if not got.ok:
            raise self.failures.lookup_error("the GPU catalog", got)
        data = got.json()
        if not isinstance(data, dict):
            raise UpstreamError(f"the GPU catalog from v2 (GET {spec.path}) answered {got.status} with "
                                f"{kind(got, data)} where an object was expected")
        catalog = Catalog.from_v2(data)
        self._catalog = (time.monotonic(), catalog)
        return catalog

    # ------------------------------------------------------- for the answer

    async def for_answer(self, call: Call, plan: Plan, data: Any, cache: dict[str, Any] | None = None,
                         ids: dict[str, list[str]] | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The reads behind include* flags and joins. Per-object reads (ids_from) cover the objects of `data`
        (or the `ids` of each lookup, collected from a large answer by offload.py); whole-list reads are made once
        per request (`cache`, shared by the pages of one v1 list), and their extra items (catalog templates) are
        returned the first time only."""
        if not plan.lookups:
            return {}, []
        route = plan.route
        if ids is not None:
            objects = []
        elif route.op.shape in ("list", "billing"):
            objects = self.backward.items(route, data)
        else:
            objects = [data] if isinstance(data, dict) else []
        results: dict[str, Any] = {}
        extra: list[dict[str, Any]] = []
        for name, spec in plan.lookups:
            if spec.provides == "catalog":
                results["catalog"] = await self.catalog(call)
                continue
            if spec.ids_from:
                results[spec.provides] = await self._per_object(call, name, spec, objects,
                                                                ids[name] if ids is not None else None)
                continue
            if cache is not None and name in cache:
                results[spec.provides] = cache[name]
                continue
            value, items = await self._whole_list(call, name, spec)
            results[spec.provides] = value
            if cache is not None:
                cache[name] = value
            if spec.extends_list:
                extra.extend(items)
        return results, extra

    async def _per_object(self, call: Call, name: str, spec, objects: list[dict[str, Any]],
                          given: list[str] | None = None) -> dict[str, Any]:
        ids = given if given is not None else \
            list(dict.fromkeys(str(v) for o in objects for v in values_at(o, spec.ids_from)))
        bad = next((i for i in ids if not SAFE_ID.fullmatch(i)), None)
        if bad is not None:
            raise UpstreamError(f"{name}: the v2 upstream listed an id that is not one ({bad[:40]!r})")
        # at most `lookup_concurrency` reads at once per request (3,000 endpoints are 3,000 reads, not
        # 3,000 simultaneous connections); the first failure cancels the rest
        gate = asyncio.Semaphore(self.config.lookup_concurrency)
        query = dict(spec.query)

        async def read(ident: str) -> UpstreamResponse:
            async with gate:
                return await call.read(spec.path.replace("{id}", ident), query)

        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(read(i)) for i in ids]
        except* V1bridgeError as errors:
            raise errors.exceptions[0] from None
        found: dict[str, Any] = {}
        for ident, task in zip(ids, tasks):
            got = task.result()
            if got.status == 404:
                continue
            if not got.ok:
                raise self.failures.lookup_error(f"{name} of {ident}", got)
            value = got.json()
            found[ident] = value.get(spec.key) if spec.key and isinstance(value, dict) else value
        return found

    async def _whole_list(self, call: Call, name: str, spec) -> tuple[Any, list[dict[str, Any]]]:
        """One whole-list lookup, every page of it when the v2 list is paginated (a join over part of the pods
        would leave records unjoined without a word). Indexed lookups keep only their index, page by page."""
        query = self.pages.sizes.whole_list(spec.path, list(spec.query.items()))
        what = f"{name} lookup"
        got = await call.read(spec.path, query)
        if not got.ok:
            raise self.failures.lookup_error(name, got)
        value = got.json()
        index: dict[str, Any] = {}
        collected: list[dict[str, Any]] = []
        seen: set[str] = set()
        page = 1
        while True:
            items = value.get(spec.key) if spec.key and isinstance(value, dict) else value
            if (spec.key or spec.index_by or spec.extends_list) and not (
                    isinstance(items, list) and all(isinstance(i, dict) for i in items)):
                raise UpstreamError(f"{name} (GET {spec.path}) answered {got.status} with {kind(got, value)} "
                                    f"where a list of objects{f' under {spec.key!r}' if spec.key else ''} was expected")
            if spec.index_by and isinstance(items, list):
                index.update((str(i.get(spec.index_by)), get_path(i, spec.value) if spec.value else i) for i in items)
                if spec.extends_list:
                    collected.extend(items)
            elif isinstance(items, list):
                collected.extend(items)
            if spec.path not in self.table.paginated or not self.pages.checked_more(value, page, what):
                break
            cursor = self.pages.next_cursor(value, page, seen, what)
            page += 1
            value, got = await self.pages.next_page(call, "GET", spec.path, query, cursor, page, "lookup", what)
        if spec.index_by and isinstance(items, list):
            return index, collected
        return (collected if isinstance(items, list) else items), collected
