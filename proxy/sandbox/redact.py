"""Keep request bytes, and so API keys, out of aiohttp's own logs (proxy and sandbox alike).

aiohttp logs a request it cannot parse with the parser's error, and that error
quotes the offending bytes: a malformed `Authorization` line (a trailing CR,
as a key read from a CRLF file gives, a control byte, a value over 8 KiB) is
printed in clear. The filter keeps the event (who, which error class, that it
was a 400) and drops the quoted bytes. On the access-log path, an
`Authorization` value a log format asks for is replaced before the line is
formatted out.
"""
from __future__ import annotations

import logging

from aiohttp.http_exceptions import HttpProcessingError, LineTooLong

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


class _AccessLogFilter(logging.Filter):
    """aiohttp.access: an Authorization value that a log format (%{Authorization}i) put in the line is replaced."""

    def filter(self, record: logging.LogRecord) -> bool:
        headers = getattr(record, "request_header", None)
        if isinstance(headers, dict):
            message = record.getMessage()
            for name, value in list(headers.items()):
                if name.lower() in _SECRET_HEADERS and value:
                    message = message.replace(value, _REDACTED)
                    headers[name] = _REDACTED
            record.msg, record.args = message, ()
        return True


def install() -> None:
    """Attach the filters to aiohttp's loggers and replace its parse-error answer, which quoted the request
    (bad_request.py) -- idempotent; called by both app factories."""
    from proxy.sandbox import bad_request

    bad_request.install()
    for name, kind in (("aiohttp.server", _ParserErrorFilter), ("aiohttp.access", _AccessLogFilter)):
        logger = logging.getLogger(name)
        if not any(isinstance(f, kind) for f in logger.filters):
            logger.addFilter(kind())
