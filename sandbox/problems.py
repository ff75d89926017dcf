"""RFC 9457 problem answers: one exception type the handlers raise, one renderer."""
from __future__ import annotations

from http import HTTPStatus

import orjson
from aiohttp import web

from mappings.errors import V1bridgeError

PROBLEM_JSON = "application/problem+json"


class Problem(V1bridgeError):
    """The sandbox's member of the one error root: raised anywhere in a handler, answered by the middleware."""

    def __init__(
        self,
        status: int,
        detail: str,
        errors: list[str] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail, status=status, headers=headers)
        self.detail = detail
        self.errors = errors

    def body(self) -> dict:
        out: dict = {"title": title(self.status), "status": self.status, "detail": self.detail}
        if self.errors:
            out["errors"] = list(self.errors)
        return out

    def response(self) -> web.Response:
        return web.Response(
            status=self.status,
            body=orjson.dumps(self.body()),
            content_type=PROBLEM_JSON,
            headers=self.headers,
        )


def title(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def not_found(kind: str, rid: str) -> Problem:
    return Problem(404, f"{kind} {rid} not found")


def bad_request(detail: str) -> Problem:
    return Problem(400, detail)


def unprocessable(detail: str, errors: list[str] | None = None) -> Problem:
    return Problem(422, detail, errors)


def conflict(detail: str) -> Problem:
    return Problem(409, detail)


NO_CAPACITY = (
    "There are no instances currently available with the requested configuration. "
    "Please try again later or choose a different GPU or CPU type."
)
