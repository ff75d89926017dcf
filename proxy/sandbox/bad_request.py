"""aiohttp's answer to a request it cannot parse, without the request's bytes (proxy and sandbox alike).

aiohttp answers an unparseable request itself, before any route or middleware, with the parser's text as the
body; that text quotes the offending line, so a malformed `Authorization` line (a trailing CR, a control byte, a
value over 8 KiB) sent the key back in clear. aiohttp (3.14) offers no public hook for this answer: the runner
builds `RequestHandler` itself and its error handler calls `RequestHandler.handle_error(request, status, exc,
message)`. This module is the one place that replaces that method; `tests/proxy/test_bad_request.py` fails if
aiohttp changes the method's signature or stops calling it for a parse error.

The answer: still 400 and `Connection: close`, logged by aiohttp (through `redact`'s filter, bytes dropped), with a
body that names the parser's complaint in a fixed phrase and repeats nothing of the request. The path is not known
once parsing failed (v1 or v2 alike), so the body serves both callers: an RFC 9457 problem (`title`, `status`,
`detail`) that also carries v1's `message`.
"""
from __future__ import annotations

import re

import orjson
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestHandler

from proxy.sandbox.redact import summary

PROBLEM_JSON = "application/problem+json"
# a phrase of the parser's own (llhttp's or aiohttp's fixed texts) is kept only if it is plain words
_PLAIN = re.compile(r"[A-Za-z][A-Za-z ,-]{0,59}")
_ORIGINAL = RequestHandler.handle_error
SIGNATURE = ("self", "request", "status", "exc", "message")


def body_for(exc: HttpProcessingError, status: int = 400) -> bytes:
    """The answer's body: the complaint in fixed words, never a byte of the request."""
    phrase = summary(exc)
    if not _PLAIN.fullmatch(phrase):
        phrase = type(exc).__name__
    detail = f"the request could not be read as HTTP ({phrase}); it was not processed"
    return orjson.dumps({"title": "Bad Request", "status": status, "detail": detail, "message": detail})


def _handle_error(self, request, status=500, exc=None, message=None):  # type: ignore[no-untyped-def]
    if not isinstance(exc, HttpProcessingError):
        return _ORIGINAL(self, request, status, exc, message)
    # aiohttp's own steps first: the log line (redact.py filters its bytes) and its check that nothing was sent
    response = _ORIGINAL(self, request, status, exc, None)
    response.body = body_for(exc, status)
    response.content_type = PROBLEM_JSON
    return response


def install() -> None:
    """Replace aiohttp's parse-error answer (idempotent; called by redact.install(), so by both app factories)."""
    RequestHandler.handle_error = _handle_error  # type: ignore[method-assign]
