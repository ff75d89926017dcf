"""App keys and response helpers shared by every handler module."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
from aiohttp import web

if TYPE_CHECKING:
    from .service import Sandbox

SANDBOX: web.AppKey["Sandbox"] = web.AppKey("sandbox")
VIOLATIONS: web.AppKey[list[str]] = web.AppKey("response_violations")


def json_response(data: Any, status: int = 200) -> web.Response:
    return web.Response(body=orjson.dumps(data), status=status, content_type="application/json")


def no_content() -> web.Response:
    return web.Response(status=204)

OWNER: web.RequestKey[str] = web.RequestKey("owner", str)
BODY: web.RequestKey[Any] = web.RequestKey("body", object)
QUERY: web.RequestKey[dict] = web.RequestKey("query", dict)
EXTRA_HEADERS: web.RequestKey[dict] = web.RequestKey("extra_headers", dict)
