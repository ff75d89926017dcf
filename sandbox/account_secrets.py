"""Account secrets: /v2/account/secrets (v2-drift.md section 3.5).

The schema checks the name pattern and the lengths; the handlers add what it
cannot say: names are unique per account and never start with RUNPOD, the
value stays below 16 MiB of UTF-8 and is never returned, the description is
at most 65,535 bytes, and a PATCH writes the value first and the description
second, not atomically.
"""
from __future__ import annotations

from typing import Any

from aiohttp import web

from .common import BODY, OWNER, QUERY, SANDBOX, json_response, no_content
from .problems import Problem
from .service import Sandbox, iso, new_id

MAX_VALUE_BYTES = 16 * 1024 * 1024  # strictly below
MAX_DESCRIPTION_BYTES = 65_535
_RESERVED_PREFIX = "RUNPOD"


def _view(doc: dict[str, Any]) -> dict[str, Any]:
    return {"id": doc["id"], "name": doc["name"], "description": doc.get("description"),
            "createdAt": doc["createdAt"], "valueLastUpdatedAt": doc.get("valueLastUpdatedAt")}


def _check_value(value: str) -> None:
    if len(value.encode()) >= MAX_VALUE_BYTES:
        raise Problem(422, "the secret value must stay below 16 MiB of UTF-8",
                      [f"$.value: {len(value.encode())} bytes, the limit is below {MAX_VALUE_BYTES}"])


def _check_description(description: str) -> None:
    if len(description.encode()) > MAX_DESCRIPTION_BYTES:
        raise Problem(422, "the secret description is longer than 65,535 bytes",
                      [f"$.description: {len(description.encode())} bytes, at most {MAX_DESCRIPTION_BYTES}"])


async def list_secrets(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    wanted = request[QUERY].get("name")
    docs = sb.live("secret", request[OWNER])
    if wanted is not None:
        docs = [d for d in docs if d["name"].lower() == wanted.lower()]
    return json_response({"secrets": [_view(d) for d in docs]})


async def create_secret(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    owner, body = request[OWNER], request[BODY]
    name = body["name"]
    if name.upper().startswith(_RESERVED_PREFIX):
        raise Problem(422, f"secret names beginning with {_RESERVED_PREFIX} are reserved",
                      [f"$.name: '{name}' begins with {_RESERVED_PREFIX} (case-insensitive)"])
    _check_value(body["value"])
    if "description" in body:
        _check_description(body["description"])
    if any(d["name"] == name for d in sb.live("secret", owner)):
        raise Problem(409, f"a secret named '{name}' already exists")
    now = iso(sb.clock())
    doc = {"id": new_id(14), "_owner": owner, "name": name, "description": body.get("description"),
           "createdAt": now, "valueLastUpdatedAt": now, "_value": body["value"]}
    sb.store.put("secret", doc)
    return json_response(_view(doc), status=201)


async def get_secret(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    return json_response(_view(sb.fetch("secret", request.match_info["id"], request[OWNER], "secret")))


async def update_secret(request: web.Request) -> web.Response:
    """The value is written first, the description second: an error on the second leaves the first done."""
    sb: Sandbox = request.app[SANDBOX]
    body = request[BODY]
    doc = dict(sb.fetch("secret", request.match_info["id"], request[OWNER], "secret"))
    if "value" in body:
        _check_value(body["value"])
        doc["_value"] = body["value"]
        doc["valueLastUpdatedAt"] = iso(sb.clock())
        sb.store.put("secret", doc)
    if "description" in body:
        _check_description(body["description"])
        doc["description"] = body["description"] or None
        sb.store.put("secret", doc)
    return json_response(_view(doc))


async def delete_secret(request: web.Request) -> web.Response:
    sb: Sandbox = request.app[SANDBOX]
    doc = sb.fetch("secret", request.match_info["id"], request[OWNER], "secret")
    sb.store.delete("secret", doc["id"])
    return no_content()
