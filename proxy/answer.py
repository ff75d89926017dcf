"""The answer stage of the v1 pipeline: the v2 answer -> the v1 answer (backward translation).

A failure is raised as the v1 error; a 2xx that is not an answer is a 502 naming the call; a paginated list is
read to its last page (every page or an error); the response lookups are made; the status is v1's (or v2's when
the status policy is strict). A large plain answer is translated in the answer pool (offload.py), off the loop.
"""
from __future__ import annotations

import functools
import weakref
from typing import TYPE_CHECKING, Any

import orjson
from aiohttp import web
from aiohttp.abc import AbstractStreamWriter
from aiohttp.payload import Payload

from mappings.typed import TypedPage, TypedReader, typed_reader

from proxy.backward import Backward, ListBuilder
from proxy.emulations.pages import not_a_page
from proxy.failures import Failures, not_an_answer, upstream_headers

if TYPE_CHECKING:
    from proxy.config import ProxyConfig
    from proxy.context import Call
    from proxy.emulations import Emulations, Outcome
    from proxy.forward import Forward, Plan
    from proxy.offload import AnswerPool
    from proxy.upstream_answer import UpstreamResponse

_JSON = "application/json"
# a v1 list built in memory of this many bytes and more is sent chunk by chunk (HeldList), never joined
_SENT_IN_CHUNKS = 1024 * 1024


class Answer:
    def __init__(self, config: ProxyConfig, forward: Forward, backward: Backward, failures: Failures,
                 emulations: Emulations) -> None:
        self.config = config
        self.forward = forward
        self.backward = backward
        self.failures = failures
        self.lookups = emulations.lookups
        self.pages = emulations.pages
        # large answers (config.large_answer bytes and up) are translated in this pool, made at the first one
        self.pool: AnswerPool | None = None
        self.budget = Budget(config.answer_memory)
        self.typed = _typed_readers(backward)

    def _reader(self, plan: Plan) -> TypedReader | None:
        """The route's typed reader (mappings/typed.py) when the request asks nothing a plain answer lacks (no
        filter, lookup or include flag)."""
        if plan.filters or plan.lookups or plan.includes:
            return None
        return self.typed.get(plan.route.op_id)

    def _read_page(self, reader: TypedReader, plan: Plan, body: bytes) -> TypedPage | None:
        """A page read typed; a paginated list's page must carry its pagination block (else None: the dict path
        says why it is not a page)."""
        pagination = self.pages.pagination
        return reader.read_page(body, plan.route.list_key, pagination.block, pagination.more, pagination.next,
                                plan.route.paginated)

    def _typed(self, plan: Plan, resp: UpstreamResponse) -> bytes | TypedPage | None:
        """The v1 body read from typed structs; the first page of a list that has more (TypedPage); None: answer
        from dicts."""
        reader = self._reader(plan)
        if reader is None:
            return None
        route = plan.route
        if not route.list_key:
            return reader.answer_object(resp.body)
        page = self._read_page(reader, plan, resp.body)
        if page is None or page.more and route.paginated:
            return page
        return page.items

    async def run(self, call: Call, plan: Plan, outcome: Outcome) -> web.Response:
        route = plan.route
        resp = outcome.resp
        if not resp.ok:
            raise self.failures.error_from(resp, call, route)
        if resp.spool is not None:  # a large answer: checked, translated and sent from files (offload.py)
            from proxy import offload  # imported at the first large answer: ijson and the pool stay out of most processes

            answered = await offload.answer(self, call, plan, resp)
            if answered is not None:
                return answered
        if outcome.followed is not None:  # checked before the follow-up was sent
            data: Any = outcome.followed
        else:
            if not plan.steps and plan.request is not None:  # each step of a multi-step emulation is checked as it runs
                typed = self._typed(plan, resp)
                if typed.__class__ is bytes:
                    status = self.v1_status(call, plan, resp)
                    if status != 204:  # strict status policy and v2 answered 204: the dict path answers it (no body)
                        return web.Response(status=status, body=typed, content_type=_JSON,
                                            headers=upstream_headers(resp))
                elif typed is not None:
                    return await self._pages(call, plan, resp, typed)
                problem = not_an_answer(route, resp, f"{plan.request.method} {plan.request.path}",
                                        creates=route.creates)
                if problem is not None:
                    raise problem
            data = resp.json()
            if route.paginated and self.pages.checked_more(data, 1, route.label):
                return await self._pages(call, plan, resp, data)
        status = self.v1_status(call, plan, resp)
        headers = upstream_headers(resp)
        if route.op.shape == "empty" or status == 204:
            return web.Response(status=status, headers=headers)
        if plan.lookups:
            lookups, extra = await self.lookups.for_answer(call, plan, data)
        else:
            lookups, extra = {}, []
        ctx = self.backward.context(plan, lookups)
        out = self.backward.translate(plan, data, ctx, extra)
        return web.Response(status=status, body=orjson.dumps(out), content_type=_JSON, headers=headers)

    def v1_status(self, call: Call, plan: Plan, resp: UpstreamResponse) -> int:
        route = plan.route
        status = route.op.v1_status
        if route.status_policy and resp.status != status:
            if self.forward.is_strict(route.status_policy):
                status = resp.status  # strict: v2's status (201 on create), never a refused create
            else:
                call.engage(route.status_policy)
        return status

    async def _pages(self, call: Call, plan: Plan, resp: UpstreamResponse,
                     first: dict[str, Any] | TypedPage) -> web.Response:
        """A v1 list from every page of the v2 list: each page filtered, expanded, translated and serialised into
        the v1 array, then dropped (memory holds the v1 answer, not the v2 pages). A page the typed reader reads
        comes translated already (TypedPage); any other is read as dicts. Any failed page is a 502: never a 2xx
        with part of the list. The client's own query never carries a cursor (v1 had none). The v1 entries held
        count against the process's `Budget` until they are sent: once it is spent, the rest of the list is built
        on disk."""
        route = plan.route
        request = plan.request
        assert request is not None
        reader = self._reader(plan)
        pagination = self.pages.pagination
        builder = ListBuilder(self.backward, plan)
        cache: dict[str, Any] = {}
        extra: list[dict[str, Any]] = []
        ctx = None
        seen: set[str] = set()
        page = 1
        current = first
        budget = self.budget
        held = 0
        on_disk = False
        try:
            while True:
                if isinstance(current, TypedPage):
                    builder.add_json(current.items)
                    more, cursor = current.more, current.cursor
                else:
                    if plan.lookups:
                        lookups, more_extra = await self.lookups.for_answer(call, plan, current, cache)
                        extra.extend(more_extra)
                    else:
                        lookups = {}
                    more = self.pages.checked_more(current, page, route.label)
                    ctx = self.backward.context(plan, lookups)
                    builder.add(current, ctx)
                    cursor = current[pagination.block].get(pagination.next) if more else None
                if not more:
                    break
                grown = builder.size - held
                if budget.take(grown):
                    held += grown
                else:  # the process's budget is spent: this list goes on from files (its next page spooled)
                    on_disk = True
                cursor = self.pages.checked_cursor(cursor, page, seen, route.label)
                page += 1
                resp = await self.pages.page_response(call, request.method, request.path, request.query, cursor,
                                                      page, route.op_id, route.label,
                                                      1 if on_disk else self.config.large_answer)
                if resp.spool is not None:  # a large later page: this page and the rest from files (offload.py)
                    from proxy import offload

                    release = functools.partial(budget.give, held)  # once what was built so far is on disk
                    held = 0
                    return await offload.continue_pages(self, call, plan, resp, page, builder.chunks, release,
                                                        builder.seen if builder.track else None, cache, extra, seen)
                typed = self._read_page(reader, plan, resp.body) if reader is not None else None
                if typed is not None:
                    current = typed
                    continue
                current = resp.json()
                if not isinstance(current, dict):
                    raise not_a_page(route.label, page)
                problem = not_an_answer(route, resp, f"{request.method} {request.path} (page {page})")
                if problem is not None:
                    raise problem
            builder.add_extra(extra, ctx)
            budget.hold(builder.size - held)  # the last page's entries are held too, whatever the budget
            held = builder.size
            headers = upstream_headers(resp)
            if builder.size < _SENT_IN_CHUNKS:
                return web.Response(status=route.op.v1_status, body=builder.finish(), content_type=_JSON,
                                    headers=headers)
            body = HeldList(builder.chunks, builder.size, budget, held)
            held = 0  # the payload gives it back as it is sent
            return HeldListResponse(status=route.op.v1_status, body=body, headers=headers)
        finally:
            budget.give(held)

    # -------------------------------------------------------- large answers

    def answer_pool(self) -> AnswerPool:
        """The large answers' process pool (proxy/offload.py), made at the first large answer: ijson and the pool
        stay out of a process that never sees one."""
        if self.pool is None:
            from proxy.offload import AnswerPool

            self.pool = AnswerPool(self.config.answer_processes)
        return self.pool

    def close(self) -> None:
        """Stop the answer pool (app cleanup): queued work is dropped, running translations end on their own."""
        pool, self.pool = self.pool, None
        if pool is not None:
            pool.close()


class Budget:
    """The memory one process gives to v1 lists built page by page in memory, all requests together
    (`--answer-memory`; 0: no bound). Each list holds its translated entries against it; a list whose next page
    would pass it continues from files (its later pages spooled, its entries appended to a file: offload.py), so
    eight concurrent 100,000-pod lists hold the budget, not eight whole lists."""

    __slots__ = ("limit", "held")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held = 0

    def take(self, size: int) -> bool:
        if self.limit and self.held + size > self.limit:
            return False
        self.held += size
        return True

    def hold(self, size: int) -> None:
        """Memory in use already (a list's last page): held whatever the limit, so other lists spill sooner."""
        self.held += size

    def give(self, size: int) -> None:
        self.held -= size


class HeldList(Payload):
    """A v1 list built in memory, sent as it was built: chunk by chunk, each let go (and its bytes given back to
    the Budget) once the transport took it. Joining the chunks first would hold the list two or three times over
    while it is sent; here the proxy holds what is not sent yet, and never more than the list. Content-Length is
    known (the size), so the status and every header go out before the first chunk, as with a joined body."""

    _autoclose = True

    def __init__(self, chunks: list[bytes], size: int, budget: Budget, held: int) -> None:
        super().__init__(chunks[::-1], content_type=_JSON)  # reversed: each chunk is popped from the end
        self._size = 2 + size + max(0, len(chunks) - 1)  # [ chunk , chunk ... ]
        self._budget = budget
        self._unsent = [held]
        # never written (HEAD, the client gone before the answer started): given back when the payload goes
        self._give_back = weakref.finalize(self, _give_back, budget, self._unsent)

    async def write(self, writer: AbstractStreamWriter) -> None:
        chunks: list[bytes] = self._value
        unsent = self._unsent
        await writer.write(b"[", drain=False)
        while chunks:
            chunk = chunks.pop()
            await writer.write(chunk)
            sent = min(len(chunk), unsent[0])
            unsent[0] -= sent
            self._budget.give(sent)
            if chunks:
                await writer.write(b",", drain=False)
        await writer.write(b"]")

    async def close(self) -> None:
        self._value.clear()
        self._give_back()

    def decode(self, encoding: str = "utf-8", errors: str = "strict") -> str:
        return (b"[" + b",".join(reversed(self._value)) + b"]").decode(encoding, errors)

    async def as_bytes(self, encoding: str = "utf-8", errors: str = "strict") -> bytes:
        return b"[" + b",".join(reversed(self._value)) + b"]"


class HeldListResponse(web.Response):
    """The answer carrying a HeldList: what is not sent when the answer ends (all of it for a HEAD, the rest
    when the client went away) goes back to the budget then, not whenever the response object is collected."""

    async def write_eof(self, data: bytes = b"") -> None:
        try:
            await super().write_eof(data)
        finally:
            assert isinstance(self._body, HeldList)
            await self._body.close()


def _give_back(budget: Budget, unsent: list[int]) -> None:
    budget.give(unsent[0])
    unsent[0] = 0


def _typed_readers(backward: Backward) -> dict[str, TypedReader]:
    """op id -> the typed reader of its response map, for routes answered with one translated object or one
    list (not a create: its answer check also asks for the new id; not billing: records are aggregated)."""
    m = backward.m
    readers: dict[str, TypedReader | None] = {}
    out: dict[str, TypedReader] = {}
    pagination = m.conventions.pagination
    for route in backward.table:
        op = route.op
        if op.response is None or route.creates or op.shape not in ("object", "action", "list"):
            continue
        if op.shape == "list" and not route.list_key:
            continue
        if op.response not in readers:
            readers[op.response] = typed_reader(m.responses[op.response], m)
        reader = readers[op.response]
        if reader is None:
            continue
        if route.list_key:
            try:
                reader.page_decoder(route.list_key, pagination.block, pagination.more, pagination.next)
            except ValueError:
                continue
        out[route.op_id] = reader
    return out
