"""Check each translated body against v2.json before it leaves the proxy.

v2 would refuse an invalid body anyway, but with v2 field names the v1 client
never sent and after a round trip. Refusing here answers v1's own 400 with the
client's field names, and the upstream only ever sees bodies it accepts.
Validators are compiled once at start-up (jsonschema-rs, JSON Schema 2020-12).
"""
from __future__ import annotations

from typing import Any

import jsonschema_rs

from mappings import Mappings, load_schema

_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _json_path(parts: Any) -> str:
    return ".".join(str(p) for p in parts)


class BodyChecker:
    """Per request map: the compiled v2 schema and the v2 -> v1 field names for its messages."""

    def __init__(self, mappings: Mappings) -> None:
        components = load_schema("v2")["components"]
        self._validators: dict[str, Any] = {}
        self._v1_names: dict[str, dict[str, str]] = {}
        for request in mappings.requests.values():
            schema = {"$schema": _DIALECT, "$ref": f"#/components/schemas/{request.v2_schema}", "components": components}
            self._validators[request.id] = jsonschema_rs.validator_for(schema)
            names: dict[str, str] = {}
            for v1_name, field in request.fields.items():
                if field.to:
                    names.setdefault(field.to, v1_name)
                    names.setdefault(field.to.split(".")[0], v1_name)
            self._v1_names[request.id] = names

    def problems(self, map_id: str, body: Any) -> list[str]:
        """Messages naming v1 fields; empty when v2 would accept the body's shape."""
        validator = self._validators[map_id]
        if validator.is_valid(body):
            return []
        names = self._v1_names[map_id]
        out: list[str] = []
        for error in validator.iter_errors(body):
            v2_path = _json_path(error.instance_path)
            kind = type(error.kind).__name__
            if kind == "Required":
                v2_path = _json_path([*error.instance_path, error.kind.property])
            v1_name = names.get(v2_path) or names.get(v2_path.split(".")[0]) or v2_path or "body"
            if kind == "Required":
                message = f"{v1_name}: required"
            elif kind in ("AdditionalProperties", "UnevaluatedProperties"):
                continue  # a sibling of a real error (the v2 validator's way); never a field the client chose
            else:
                message = f"{v1_name}: {error.message}"
            if message not in out:
                out.append(message)
        return out or ["the body cannot be expressed in v2"]
