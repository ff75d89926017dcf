"""Keep request bytes, and so API keys, out of aiohttp's own logs and answers (proxy and sandbox alike).

Shared by both servers, so it lives here rather than in either: neither server imports the other for it.

Logs: aiohttp logs a request it cannot parse with the parser's error, and that error
quotes the offending bytes: a malformed `Authorization` line (a trailing CR,
as a key read from a CRLF file gives, a control byte, a value over 8 KiB) is
printed in clear. The filter keeps the event (who, which error class, that it
was a 400) and drops the quoted bytes. On the access-log path, an
`Authorization` value a log format asks for is replaced before the line is
formatted out.

Answers: aiohttp answers an unparseable request itself, before any route or middleware, with the parser's text as the
body; that text quotes the offending line, so a malformed `Authorization` line (a trailing CR, a control byte, a
value over 8 KiB) sent the key back in clear. aiohttp (3.14) offers no public hook for this answer: the runner
builds `RequestHandler` itself and its error handler calls `RequestHandler.handle_error(request, status, exc,
message)`. This module is the one place that replaces that method; `tests/mappings/test_redact.py` fails if
aiohttp changes the method's signature or stops calling it for a parse error.

The answer: still 400 and `Connection: close`, logged by aiohttp (through the filter above, bytes dropped), with a
body that names the parser's complaint in a fixed phrase and repeats nothing of the request. The path is not known
once parsing failed (v1 or v2 alike), so the body serves both callers: an RFC 9457 problem (`title`, `status`,
`detail`) that also carries v1's `message`.
"""
from __future__ import annotations

import logging
import re

import orjson
from aiohttp.http_exceptions import HttpProcessingError, LineTooLong
from aiohttp.web_protocol import RequestHandler

_REDACTED = "[redacted]"
_SECRET_HEADERS = ("authorization", "proxy-authorization")


def summary(exc: HttpProcessingError) -> str:
    """The parser's complaint without the bytes it quotes: its first phrase, before any ':' or quoted data."""
    if isinstance(exc, LineTooLong):
        return "a header or request line is too long"
    first = (exc.message or "").strip().splitlines()[0] if (exc.message or "").strip() else ""
    phrase = first.split(":", 1)[0].split(" when reading", 1)[0].strip()
    if not phrase or "'" in phrase or '"' in phrase or len(phrase) > 60:
        return type(exc).__name__
    return phrase


class _ParserErrorFilter(logging.Filter):
    """aiohttp.server: a parse error is logged as one line, without the traceback and the quoted request bytes."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, HttpProcessingError):
            record.msg = f"{record.getMessage()}: {exc.code} {type(exc).__name__}: {summary(exc)} (request bytes not logged)"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
        return True


# a key in a query string (GraphQL clients send ?api_key=): the request line (%r) and path+query (%U%q) carry it
_QUERY_KEY = re.compile(r"([?&](?:api_key|apikey|api-key|key|token)=)[^&\s\"]*", re.IGNORECASE)


class _AccessLogFilter(logging.Filter):
    """aiohttp.access: an Authorization value that a log format (%{Authorization}i) put in the line is replaced,
    and so is a key in the query string (`?api_key=`) of the request line or path a format logs."""

    def filter(self, record: logging.LogRecord) -> bool:
        headers = getattr(record, "request_header", None)
        message = record.getMessage()
        if isinstance(headers, dict):
            for name, value in list(headers.items()):
                if name.lower() in _SECRET_HEADERS and value:
                    message = message.replace(value, _REDACTED)
                    headers[name] = _REDACTED
        message = _QUERY_KEY.sub(lambda m: m.group(1) + _REDACTED, message)
        record.msg, record.args = message, ()
        return True


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
    # aiohttp's own steps first: the log line (the filter above drops its bytes) and its check that nothing was sent
    response = _ORIGINAL(self, request, status, exc, None)
    response.body = body_for(exc, status)
    response.content_type = PROBLEM_JSON
    return response


def _install_bad_request_answer() -> None:
    """Replace aiohttp's parse-error answer (idempotent)."""
    RequestHandler.handle_error = _handle_error  # type: ignore[method-assign]


def install() -> None:
    """Attach the filters to aiohttp's loggers and replace its parse-error answer, which quoted the request
    -- idempotent; called by both app factories."""
    _install_bad_request_answer()
    for name, kind in (("aiohttp.server", _ParserErrorFilter), ("aiohttp.access", _AccessLogFilter)):
        logger = logging.getLogger(name)
        if not any(isinstance(f, kind) for f in logger.filters):
            logger.addFilter(kind())
