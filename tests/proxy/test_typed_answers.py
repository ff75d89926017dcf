"""The answer stage with and without its typed readers (proxy/answer.py, mappings/typed.py): the same v1 answer.

Each v2 answer goes through `Answer.run` twice, as the proxy runs it (no server, no upstream call): with the
route's typed reader, then with none (the dict path); status and body must be equal byte for byte.
"""
from __future__ import annotations

from typing import Any

import orjson
import pytest
from multidict import CIMultiDict, CIMultiDictProxy

from mappings.loader import default_mappings
from mappings.errors import UpstreamError
from proxy.config import ProxyConfig
from proxy.emulations import Outcome
from proxy.routes import RouteTable
from proxy.upstream_answer import UpstreamResponse
from proxy.v1 import V1Service

from tests.mappings.tools import CPU_POD, GPU_POD

SERVICE = V1Service(RouteTable(default_mappings()), ProxyConfig(upstream="http://127.0.0.1:9"), lambda: None)
PAGE = SERVICE.answer.pages.pagination
VOLUME = {"id": "vol1", "name": "data", "size": 50, "dataCenterId": "EU-RO-1"}


class _Call:
    def __init__(self) -> None:
        self.emulations: list[str] = []

    def engage(self, policy: str | None) -> None:
        self.emulations.append(policy)


def _answer(op_id: str, v2: Any, typed: bool) -> tuple[int, bytes]:
    route = SERVICE.table.routes[op_id]
    planning = SERVICE.forward.planning(route, {}, [], None)
    with pytest.raises(StopIteration) as done:
        next(planning)
    plan = done.value.value
    resp = UpstreamResponse(200, CIMultiDictProxy(CIMultiDict({"Content-Type": "application/json"})), orjson.dumps(v2))
    readers = SERVICE.answer.typed
    SERVICE.answer.typed = readers if typed else {}
    try:
        coro = SERVICE.answer.run(_Call(), plan, Outcome(resp))  # type: ignore[arg-type]
        with pytest.raises(StopIteration) as answered:  # nothing awaited: one page
            coro.send(None)
    finally:
        SERVICE.answer.typed = readers
    return answered.value.value.status, answered.value.value.body


@pytest.mark.parametrize("op_id, v2", [
    ("pods.list", {"pods": [GPU_POD, CPU_POD], PAGE.block: {PAGE.more: False, PAGE.next: None}}),
    ("pods.list", {"pods": [], PAGE.block: {PAGE.more: False, PAGE.next: None}}),
    # a list v2 does not page, answering a page that says more follow: its one page is the v1 list either way
    ("network_volumes.list", {"networkVolumes": [VOLUME], PAGE.block: {PAGE.more: True, PAGE.next: "c2"}}),
    ("network_volumes.list", {"networkVolumes": [VOLUME, VOLUME]}),
])
def test_a_typed_answer_is_the_dict_paths(op_id, v2):
    typed = _answer(op_id, v2, typed=True)
    assert typed == _answer(op_id, v2, typed=False)
    assert typed[0] == 200 and len(orjson.loads(typed[1])) == len(next(iter(v2.values())))


@pytest.mark.parametrize("v2", [
    {"pods": [GPU_POD]},
    {"pods": [GPU_POD], PAGE.block: None},
    {"pods": [GPU_POD], PAGE.block: {PAGE.more: "true", PAGE.next: "c2"}},
])
def test_a_paginated_page_without_its_block_is_refused_by_both_paths(v2):
    """A page of a paginated list must carry v2's pagination block: the typed reader leaves such a page to the
    dict path, which refuses it (502), never a 200 with the first page as the list."""
    for typed in (True, False):
        with pytest.raises(UpstreamError, match="page 1 of the v2 list is not a v2 list page"):
            _answer("pods.list", v2, typed=typed)
