"""A v2 answer as the proxy holds it (status, headers, the body or the file it was spooled to) and the header
rules of a hop. No network here: the answer workers (proxy/answer_worker.py) import it without aiohttp, which
would add tens of MB to each of them (measured: bench/answers_in_flight.py)."""
from __future__ import annotations

import os
import weakref
from dataclasses import dataclass, field
from typing import Any

import orjson
from multidict import CIMultiDict, CIMultiDictProxy

from mappings.errors import V1bridgeError

# RFC 9110 §7.6.1 plus the old proxy ones; removed on every hop, both ways.
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
    }
)
# Recomputed by the proxy whenever it rewrites a body.
BODY_HEADERS = frozenset({"content-length", "content-encoding", "content-type"})


def hop_filter(headers: CIMultiDictProxy[str] | CIMultiDict[str], drop: frozenset[str] = frozenset()) -> CIMultiDict[str]:
    """Copy of `headers` without hop-by-hop ones (and those the Connection header names)."""
    skip = HOP_BY_HOP | drop
    if "Connection" in headers:
        skip = skip | {t.strip().lower() for v in headers.getall("Connection") for t in v.split(",") if t.strip()}
    return CIMultiDict([(name, value) for name, value in headers.items() if name.lower() not in skip])


_UNPARSED = object()


class Spool:
    """A large 2xx answer body kept in a temporary file instead of memory (`Upstream.call(spool_over=...)`);
    the file is removed by `close()`, or when the object is collected."""

    __slots__ = ("path", "size", "_remove", "__weakref__")

    def __init__(self, path: str, size: int) -> None:
        self.path = path
        self.size = size
        self._remove = weakref.finalize(self, remove_file, path)

    def close(self) -> None:
        self._remove()

    def read(self) -> bytes:
        with open(self.path, "rb") as f:
            return f.read()


def remove_file(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def no_room(exc: OSError) -> V1bridgeError:
    """The proxy could not keep a large answer on disk (a full or unwritable temporary directory): its own
    failure, told as such, worth a retry."""
    return V1bridgeError(f"the proxy could not hold the large v2 answer on disk ({exc.strerror or type(exc).__name__})",
                         status=503, headers={"Retry-After": "1"})


@dataclass
class UpstreamResponse:
    status: int
    headers: CIMultiDictProxy[str]
    body: bytes
    _parsed: Any = field(default=_UNPARSED, repr=False, compare=False)
    # a large 2xx body spooled to a file (then `body` is empty until `load()`)
    spool: Spool | None = field(default=None, repr=False, compare=False)

    def load(self) -> None:
        """Bring a spooled body into memory (for a path that needs it whole)."""
        if self.spool is not None:
            self.body = self.spool.read()
            self.spool.close()
            self.spool = None
            self._parsed = _UNPARSED

    def json(self) -> Any:
        """The body as JSON (None when empty or not JSON), parsed once per response: the answer check and the
        translation read the same value (parsing a list is a large part of a list's cost)."""
        parsed = self._parsed
        if parsed is _UNPARSED:
            parsed = None
            if self.body:
                try:
                    parsed = orjson.loads(self.body)
                except orjson.JSONDecodeError:
                    parsed = None
            self._parsed = parsed
        return parsed

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300
