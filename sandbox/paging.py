"""Cursor pagination as the v2 service states it (v2-drift.md section 3.1).

A cursor is opaque: base64url of a signed JSON token naming the operation, a
digest of the query that issued it (every parameter but `cursor`, `limit`
included, and the path parameters) and the position reached. A cursor that
does not decode, does not verify, or was issued for another operation or
other parameters is refused with 422, as the service does. Pages are cut on
the unfiltered sequence, so a list that drops items after the cut (pods
without `includeClusterPods`) answers short pages, possibly empty ones, while
`hasNextPage` stays true.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any, Callable, Iterable, Sequence

import orjson

from .problems import Problem

_KEY_BYTES = 16


class Pager:
    """Issues and checks cursors for one sandbox (the signing key lives as long as its state)."""

    def __init__(self, key: bytes, max_page_size: int | None = None) -> None:
        self._key = key
        self.max_page_size = max_page_size

    # ------------------------------------------------------------------ cursors
    def _scope(self, operation: str, params: dict[str, Any]) -> str:
        canonical = orjson.dumps({"op": operation, "params": params}, option=orjson.OPT_SORT_KEYS)
        return hashlib.sha256(canonical).hexdigest()[:24]

    def _sign(self, payload: bytes) -> bytes:
        return hmac.new(self._key, payload, hashlib.sha256).digest()[:_KEY_BYTES]

    def issue(self, operation: str, params: dict[str, Any], position: int) -> str:
        payload = orjson.dumps({"s": self._scope(operation, params), "p": position})
        token = self._sign(payload) + payload
        return base64.urlsafe_b64encode(token).decode().rstrip("=")

    def position(self, cursor: str, operation: str, params: dict[str, Any]) -> int:
        """The offset a cursor resumes at; 422 for a malformed or foreign one."""
        try:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
            signature, payload = raw[:_KEY_BYTES], raw[_KEY_BYTES:]
            valid = len(signature) == _KEY_BYTES and hmac.compare_digest(signature, self._sign(payload))
            token = orjson.loads(payload) if valid else None
        except (ValueError, orjson.JSONDecodeError):
            token = None
        if not isinstance(token, dict) or not isinstance(token.get("p"), int) or token["p"] < 0:
            raise Problem(422, "the pagination cursor is malformed; copy pagination.nextCursor unchanged",
                          ["query.cursor: not a cursor issued by this service"])
        if token.get("s") != self._scope(operation, params):
            raise Problem(422, "the pagination cursor belongs to another list or to other query parameters; "
                               "keep every parameter, limit included, unchanged while paging",
                          ["query.cursor: foreign cursor"])
        return token["p"]

    # -------------------------------------------------------------------- pages
    def page(
        self,
        operation: str,
        query: dict[str, Any],
        items: Sequence[Any],
        *,
        default_limit: int,
        path_params: dict[str, Any] | None = None,
        keep: Callable[[Any], bool] | None = None,
        seq: Callable[[Any], int] = lambda doc: doc["_seq"],
        descending: bool = True,
    ) -> tuple[list[Any], dict[str, Any]]:
        """One page of `items` (sorted by `seq`, newest first unless not `descending`) and its `pagination`.

        The cursor remembers the sequence number of the last item of the page (keyset paging), so items
        created or deleted between two calls neither repeat nor vanish from the pages still to come.
        `keep` drops items after the page is cut, which is what makes a page short.
        """
        params = {k: v for k, v in query.items() if k != "cursor"}
        params.update(path_params or {})
        limit = query.get("limit") or default_limit
        size = min(limit, self.max_page_size) if self.max_page_size else limit
        start = 0
        if "cursor" in query:
            after = self.position(query["cursor"], operation, params)
            start = next((i for i, item in enumerate(items)
                          if (seq(item) < after if descending else seq(item) > after)), len(items))
        cut = items[start:start + size]
        more = start + len(cut) < len(items)
        page = [item for item in cut if keep(item)] if keep is not None else list(cut)
        cursor = self.issue(operation, params, seq(cut[-1])) if more else None
        return page, {"nextCursor": cursor, "hasNextPage": more}


def newest_first(docs: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The service lists pods, endpoints, releases and builds newest first."""
    return sorted(docs, key=lambda d: d.get("_seq", 0), reverse=True)


def oldest_first(docs: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Templates: no order stated; the sandbox keeps creation order."""
    return sorted(docs, key=lambda d: d.get("_seq", 0))
