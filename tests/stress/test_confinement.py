"""The /v2 pass-through forwards v2 routes only: no dot segment, encoded byte or foreign path reaches the upstream."""
from __future__ import annotations

import orjson
import pytest

from tests.stress.tools import raw_exchange

DOTS = "the path may not contain dot segments ('.' or '..')"
EMPTY = "the path may not contain empty segments or end with '/'"
# each path and why it is refused: what can move a path out of /v2, encoded or not
ESCAPES = {
    "/v2/../admin": DOTS,
    "/v2/%2e%2e/admin": "the path may not contain an encoded '.' (%2e)",
    "/v2/%2E%2E/admin": "the path may not contain an encoded '.' (%2E)",
    "/v2/pods/../../admin": DOTS,
    "/v2/pods/%2e%2e/%2e%2e/admin": "the path may not contain an encoded '.' (%2e)",
    "/v2/pods/..%2f..%2fadmin": "the path may not contain an encoded '/' (%2f)",
    "/v2/pods/..%2F..%2Fadmin": "the path may not contain an encoded '/' (%2F)",
    "/v2/./pods": DOTS,
    "/v2/pods/x/..": DOTS,
    "/v2/pods/%252e%252e": "the path may not contain an encoded '%' (a double encoding) (%25)",
    "/v2/pods\\..\\..\\admin": "the path may not contain a backslash",
    "/v2/pods/a%5cb": "the path may not contain an encoded backslash (%5c)",
    "/v2/pods/a%00b": "the path may not contain an encoded NUL (%00)",
    "/v2/pods/a%zzb": "the path may not contain a '%' that starts no escape (%XX)",
    "/v2/pods/a%": "the path may not contain a '%' that starts no escape (%XX)",
    "/v2//admin": EMPTY,
    "/v2/pods/": EMPTY,
}


async def raw_answer(port: int, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, dict, bytes]:
    lines = [f"{method} {path} HTTP/1.1", "Host: a", "Connection: close", f"Content-Length: {len(body)}"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    answer = await raw_exchange(port, ("\r\n".join(lines) + "\r\n\r\n").encode() + body)
    head, _, payload = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), orjson.loads(payload), head


@pytest.mark.parametrize("path", ESCAPES)
@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
async def test_passthrough_refuses_paths_that_leave_v2(proxy, auth, saboteur, method, path):
    """Sent as raw bytes (no client normalises first), with and without a key: a v2 400 problem, nothing forwarded."""
    for headers in (auth, {}):
        body = b'{"x": 1}' if method == "POST" else b""
        status, problem, head = await raw_answer(proxy.server.port, method, path, headers, body)
        assert (status, problem) == (400, {"title": "Bad Request", "status": 400, "detail": ESCAPES[path]})
        assert b"application/problem+json" in head
    assert saboteur.seen == []


async def test_passthrough_refuses_paths_that_are_no_v2_route(proxy, auth, saboteur):
    """A well-formed path that v2.json does not know: 404; a known path with a method it lacks: 405 with Allow."""
    status, problem, _ = await raw_answer(proxy.server.port, "GET", "/v2/admin", auth)
    assert (status, problem) == (404, {"title": "Not Found", "status": 404,
                                       "detail": "no such v2 route: /v2/admin is not a path of the v2 API"})
    status, problem, _ = await raw_answer(proxy.server.port, "GET", "/v2/pods/p1/secrets", auth)
    assert status == 404
    status, problem, head = await raw_answer(proxy.server.port, "PUT", "/v2/pods/p1", auth)
    assert (status, problem) == (405, {"title": "Method Not Allowed", "status": 405,
                                       "detail": "method PUT is not allowed on /v2/pods/p1; allowed: DELETE, GET, PATCH"})
    assert b"Allow: DELETE, GET, PATCH" in head
    status, problem, _ = await raw_answer(proxy.server.port, "GET", "/v2/pods/.hidden", auth)
    assert status == 404  # an id must be a safe id, as on the v1 routes
    assert saboteur.seen == []


async def test_passthrough_forwards_v2_routes_and_the_allow_list(proxy, auth, saboteur):
    """The routes of v2.json and conventions.passthrough_allow (/v2/openapi.json) still pass, path and query as sent."""
    r = await proxy.get("/v2/pods?name=x", headers=auth)
    assert r.status == 200
    r = await proxy.get("/v2/registries/delegations", headers=auth)
    assert r.status == 200
    r = await proxy.get("/v2/openapi.json")
    assert r.status == 200
    assert [(s.method, s.raw_path) for s in saboteur.seen] == [
        ("GET", "/v2/pods?name=x"), ("GET", "/v2/registries/delegations"), ("GET", "/v2/openapi.json")
    ]


async def test_passthrough_forwards_other_escapes_as_sent(proxy, auth, saboteur):
    """A GPU type id holds a space: `/v2/catalog/gpus/NVIDIA%20A40` is a v2 path like any other, forwarded as sent."""
    r = await proxy.get("/v2/catalog/gpus/NVIDIA%20A40", headers=auth)
    assert r.status == 200 and (await r.json())["id"] == "NVIDIA A40"
    r = await proxy.get("/v2/pods/caf%C3%A9%20x", headers=auth)
    assert r.status == 404  # no such pod: the upstream's answer, not the proxy's refusal
    assert [s.raw_path for s in saboteur.seen] == ["/v2/catalog/gpus/NVIDIA%20A40", "/v2/pods/caf%C3%A9%20x"]
