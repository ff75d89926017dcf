"""Every page of a cursor-paginated v2 list (Q30): v1 lists were whole, so a v1 list is made of all the pages or
is an error (502 naming the page), never a 2xx with part of the list."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mappings.errors import UpstreamError

from proxy.failures import upstream_headers
from proxy.forward import PageSizes, V2Request
from proxy.upstream_answer import UpstreamResponse

if TYPE_CHECKING:
    from proxy.backward import Backward
    from proxy.context import Call

_SUFFIX = "; the list is answered whole or not at all, so no partial list is returned"


def more_pages(pagination, data: Any) -> bool:
    """The page says more follow (a page already checked by `checked_more`, or a list that does not paginate)."""
    block = data.get(pagination.block) if isinstance(data, dict) else None
    return isinstance(block, dict) and block.get(pagination.more) is True


def page_problem(pagination, data: Any) -> str | None:
    """Why a page of a paginated v2 list is not one, or None. v2.json: an object whose `pagination` block is
    required, with `hasNextPage` a boolean and `nextCursor` a string or null (the list itself is checked by
    failures.not_an_answer). A bare array, a block missing, null or a string, or `hasNextPage: "true"` would
    otherwise be read as the whole list, or as its last page."""
    if not isinstance(data, dict):
        return f"a JSON {'null' if data is None else type(data).__name__} where a page object was expected"
    block = data.get(pagination.block, _MISSING)
    if block is _MISSING:
        return f"no {pagination.block!r} block"
    if not isinstance(block, dict):
        return f"{pagination.block!r} {_shown(block)} where an object was expected"
    more = block.get(pagination.more, _MISSING)
    if type(more) is not bool:
        return (f"no {pagination.block}.{pagination.more}" if more is _MISSING else
                f"{pagination.block}.{pagination.more} {_shown(more)} where true or false was expected")
    cursor = block.get(pagination.next, _MISSING)
    if cursor is _MISSING:
        return f"no {pagination.block}.{pagination.next}"
    if cursor is not None and not isinstance(cursor, str):
        return f"{pagination.block}.{pagination.next} {_shown(cursor)} where a string or null was expected"
    return None


def checked_more(pagination, data: Any, page: int, what: str) -> bool:
    """Do more pages follow this page of a paginated v2 list? A page that is not one is a 502 naming it."""
    problem = page_problem(pagination, data)
    if problem is not None:
        raise UpstreamError(f"{what}: page {page} of the v2 list is not a v2 list page ({problem}){_SUFFIX}")
    return data[pagination.block][pagination.more]


_MISSING = object()


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Pages:
    def __init__(self, pagination, backward: Backward, sizes: PageSizes) -> None:
        self.pagination = pagination
        self.backward = backward
        self.sizes = sizes

    def more(self, data: Any) -> bool:
        return more_pages(self.pagination, data)

    def checked_more(self, data: Any, page: int, what: str) -> bool:
        return checked_more(self.pagination, data, page, what)

    def next_cursor(self, data: dict[str, Any], page: int, seen: set[str], what: str) -> str:
        return self.checked_cursor(data[self.pagination.block].get(self.pagination.next), page, seen, what)

    def checked_cursor(self, cursor: Any, page: int, seen: set[str], what: str) -> str:
        """The cursor page `page` gives to the next (as sent): a string not handed out before, within max_pages."""
        if not isinstance(cursor, str) or not cursor:
            raise UpstreamError(f"{what}: page {page} of the v2 list says more pages follow but gives no cursor; "
                                "the list is answered whole or not at all")
        if cursor in seen:
            raise UpstreamError(f"{what}: the v2 list handed out the same cursor twice (page {page}); "
                                "the list is answered whole or not at all")
        if page >= self.pagination.max_pages:
            raise UpstreamError(f"{what}: the v2 list has more than {self.pagination.max_pages} pages; "
                                "the list is answered whole or not at all")
        seen.add(cursor)
        return cursor

    async def page_response(self, call: Call, method: str, path: str, query: list[tuple[str, str]], cursor: str,
                            page: int, label: str, what: str, spool_over: int = 0) -> UpstreamResponse:
        """Page `page` of a v2 list (same query, the cursor added), spooled from `spool_over` bytes; any failure
        is a 502 naming the page."""
        req = V2Request(method, path, [*query, (self.pagination.cursor, cursor)])
        try:
            got = await call.send(req, label, spool_over)
        except UpstreamError as exc:  # a 504 (too slow, the deadline) stays one
            raise UpstreamError(f"{what}: page {page} of the v2 list failed: {exc.message}{_SUFFIX}",
                                status=exc.status if exc.status == 504 else None) from None
        if not got.ok:
            detail = self.backward.problem_message(got.body, None, got.status)
            raise UpstreamError(f"{what}: page {page} of the v2 list failed (v2 status {got.status}): {detail}{_SUFFIX}",
                                upstream_status=got.status, headers=upstream_headers(got))
        return got

    async def next_page(self, call: Call, method: str, path: str, query: list[tuple[str, str]], cursor: str,
                        page: int, label: str, what: str, spool_over: int = 0) -> tuple[Any, UpstreamResponse]:
        """(the page as JSON, its response); (None, response) for a spooled page (large: offload.py reads it)."""
        got = await self.page_response(call, method, path, query, cursor, page, label, what, spool_over)
        if got.spool is not None:
            return None, got
        data = got.json()
        if not isinstance(data, dict):
            raise not_a_page(what, page)
        return data, got


def not_a_page(what: str, page: int) -> UpstreamError:
    return UpstreamError(f"{what}: page {page} of the v2 list is not a JSON object{_SUFFIX}")
