"""The two schema checks of the proxy, compiled once at start-up (jsonschema-rs, JSON Schema 2020-12).

- `V1Checker`: every v1 request, body and query, against v1.json, first, before any mapping or policy
  decision. What v1 itself would refuse gets v1's 400 naming the v1 field; only a valid v1 request goes
  on (and may meet a 501 for a documented gap). Integers are also held to the range v2 stores.
- `BodyChecker`: each translated body against v2.json before it leaves the proxy. v2 would refuse an
  invalid body anyway, but with v2 field names the v1 client never sent and after a round trip.

A valid request costs one `is_valid` call per body (no error objects built) and a set look-up per
query parameter.
"""
from __future__ import annotations

import copy
from typing import Any, Iterable

import jsonschema_rs

from mappings import Mappings, load_schema
from mappings.errors import ClientInputError

_DIALECT = "https://json-schema.org/draft/2020-12/schema"


_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off", ""})


def _json_path(parts: Any) -> str:
    return ".".join(str(p) for p in parts)


def openapi30_to_json_schema(node: Any, stored: dict[str, int]) -> Any:
    """An OpenAPI 3.0 schema tree as JSON Schema 2020-12: `nullable` becomes a null type (and a null enum
    member), and every integer is held to the stored range (tighter v1 bounds stay)."""
    if isinstance(node, list):
        return [openapi30_to_json_schema(item, stored) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: openapi30_to_json_schema(v, stored) for k, v in node.items() if k not in ("nullable", "example")}
    if node.get("type") == "integer":
        low, high = node.get("minimum"), node.get("maximum")
        out["minimum"] = stored["minimum"] if low is None else max(low, stored["minimum"])
        out["maximum"] = stored["maximum"] if high is None else min(high, stored["maximum"])
    if node.get("nullable") is True and isinstance(node.get("type"), str):
        out["type"] = [node["type"], "null"]
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    return out


def _validators(uri: str, components: Any, schemas: list[Any]) -> list[Any]:
    """One validator per schema, over one registered copy of the spec's components: a schema's `#/components/...`
    references point into it (a schema without references needs none). With the components embedded in every
    schema, each validator kept its own compiled copy of them: 25 MB for v1.json's 62 checks and 10 MB for
    v2.json's 9, a third of an idle proxy process (README, "Memory"); the verdicts and messages are the same."""
    registry = jsonschema_rs.Registry([(uri, {"$schema": _DIALECT, "components": components})])
    return [jsonschema_rs.validator_for({"$schema": _DIALECT, **_refs_into(uri, schema)}, registry=registry)
            for schema in schemas]


def _refs_into(uri: str, node: Any) -> Any:
    """The schema with its local references (`#/...`) made references into the document registered at `uri`."""
    if isinstance(node, list):
        return [_refs_into(uri, item) for item in node]
    if not isinstance(node, dict):
        return node
    return {key: uri + value if key == "$ref" and isinstance(value, str) and value.startswith("#")
            else _refs_into(uri, value) for key, value in node.items()}


def _message(error: Any, field: str) -> str:
    kind = type(error.kind).__name__
    if kind == "Required":
        return f"{field + '.' if field else ''}{error.kind.property}: required"
    return f"{field or 'body'}: {error.message}"


class _QueryParam:
    __slots__ = ("name", "kind", "validator")

    def __init__(self, name: str, kind: str, validator: Any) -> None:
        self.name = name
        self.kind = kind  # string | array | boolean | integer | number
        self.validator = validator


class V1Checker:
    """v1.json's request bodies and query parameters, per v1 operation (method + v1 path)."""

    def __init__(self, mappings: Mappings) -> None:
        spec = load_schema("v1")
        stored = dict(mappings.conventions.stored_integer)
        components = openapi30_to_json_schema(spec.get("components", {}), stored)
        self.neutral = dict(mappings.conventions.neutral_spellings)
        schemas: list[Any] = []  # compiled together (_validators), in this order
        bodies: dict[tuple[str, str], int] = {}
        queries: dict[tuple[str, str], dict[str, tuple[str, int]]] = {}
        for path, item in spec.get("paths", {}).items():
            for method, op in item.items():
                if not isinstance(op, dict):
                    continue
                key = (method.upper(), path)
                body = ((op.get("requestBody") or {}).get("content") or {}).get("application/json")
                if body and body.get("schema"):
                    bodies[key] = len(schemas)
                    schemas.append(openapi30_to_json_schema(body["schema"], stored))
                params: dict[str, tuple[str, int]] = {}
                for param in op.get("parameters", []):
                    if "$ref" in param:
                        param = spec["components"]["parameters"][param["$ref"].rsplit("/", 1)[-1]]
                    if param.get("in") != "query":
                        continue
                    schema = openapi30_to_json_schema(copy.deepcopy(param.get("schema") or {}), stored)
                    schema.pop("default", None)
                    kind = schema.get("type") if isinstance(schema.get("type"), str) else "string"
                    params[param["name"]] = (kind, len(schemas))
                    schemas.append(schema)
                if params:
                    queries[key] = params
        validators = _validators("urn:v1bridge:v1", components, schemas)
        self._bodies: dict[tuple[str, str], Any] = {key: validators[index] for key, index in bodies.items()}
        self._queries: dict[tuple[str, str], dict[str, _QueryParam]] = {
            key: {name: _QueryParam(name, kind, validators[index]) for name, (kind, index) in params.items()}
            for key, params in queries.items()}

    def check(self, method: str, v1_path: str, query: Iterable[tuple[str, str]], body: Any) -> None:
        """Raise ClientInputError (400) naming every v1 field that v1.json refuses; None when v1 accepts."""
        key = (method, v1_path)
        problems: list[str] = []
        params = self._queries.get(key)
        if params is not None:
            for name, raw in query:
                param = params.get(name) or params.get(self.neutral.get(name, name))
                if param is None:  # v1 ignored parameters it did not declare
                    continue
                value = self._coerce(param, raw)
                if value is _BAD_BOOL:
                    problems.append(f"{param.name}: {raw!r} is not true or false")
                    continue
                if not param.validator.is_valid(value):
                    for error in param.validator.iter_errors(value):
                        message = f"{param.name}: {error.message}"
                        if message not in problems:
                            problems.append(message)
        validator = self._bodies.get(key)
        if validator is not None and not validator.is_valid({} if body is None else body):
            seen: set[str] = set()
            for error in validator.iter_errors({} if body is None else body):
                field = _json_path(error.instance_path)
                if field in seen and type(error.kind).__name__ != "Required":
                    continue  # one message per field: the first (type before enum) says enough
                seen.add(field)
                message = _message(error, field)
                if message not in problems:
                    problems.append(message)
        if problems:
            raise ClientInputError("invalid input: " + "; ".join(problems))

    @staticmethod
    def _coerce(param: _QueryParam, raw: str) -> Any:
        kind = param.kind
        if kind == "array":
            return [part for part in raw.split(",") if part != ""]
        if kind == "boolean":
            low = raw.strip().lower()
            if low in _TRUE:
                return True
            if low in _FALSE:
                return False
            return _BAD_BOOL
        if kind == "integer":
            try:
                return int(raw)
            except ValueError:
                return raw
        if kind == "number":
            try:
                return float(raw)
            except ValueError:
                return raw
        return raw


_BAD_BOOL = object()


class BodyChecker:
    """Per request map: the compiled v2 schema and the v2 -> v1 field names for its messages."""

    def __init__(self, mappings: Mappings) -> None:
        requests = list(mappings.requests.values())
        validators = _validators("urn:v1bridge:v2", load_schema("v2")["components"],
                                 [{"$ref": f"#/components/schemas/{request.v2_schema}"} for request in requests])
        self._validators: dict[str, Any] = {request.id: validator for request, validator in zip(requests, validators)}
        self._v1_names: dict[str, dict[str, str]] = {}
        for request in requests:
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
