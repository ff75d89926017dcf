"""The v2 OpenAPI document, compiled once: request, query and response validators per operation.

Validation is delegated to jsonschema_rs (a maintained Rust implementation of
JSON Schema 2020-12, the dialect of OpenAPI 3.1), never hand-written checks.
"""
from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema_rs
import orjson

_DIALECT = "https://json-schema.org/draft/2020-12/schema"

# What the service stores an integer in (SQLite INTEGER, a signed 64-bit value): a request integer outside
# it is refused with 422 like any other schema failure, never stored as a float (3.1e20) and echoed back.
STORED_INTEGER = {"minimum": -(2**63), "maximum": 2**63 - 1}


def bounded(node: Any) -> Any:
    """A copy of a schema tree in which every integer schema is held to STORED_INTEGER (tighter bounds stay)."""
    if isinstance(node, list):
        return [bounded(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: bounded(value) for key, value in node.items()}
    kind = node.get("type")
    if kind == "integer" or (isinstance(kind, list) and "integer" in kind):
        low, high = out.get("minimum"), out.get("maximum")
        out["minimum"] = STORED_INTEGER["minimum"] if low is None else max(low, STORED_INTEGER["minimum"])
        out["maximum"] = STORED_INTEGER["maximum"] if high is None else min(high, STORED_INTEGER["maximum"])
    return out


def spec_path() -> Path:
    """Locate mappings/schemas/v2.json without importing the mappings package."""
    found = importlib.util.find_spec("mappings")
    if found is not None and found.submodule_search_locations:
        for base in found.submodule_search_locations:
            candidate = Path(base) / "schemas" / "v2.json"
            if candidate.is_file():
                return candidate
    return Path(__file__).resolve().parents[1] / "mappings" / "schemas" / "v2.json"


@lru_cache(maxsize=1)
def load_spec() -> dict[str, Any]:
    return orjson.loads(spec_path().read_bytes())


@lru_cache(maxsize=1)
def spec_bytes() -> bytes:
    return spec_path().read_bytes()


class Validator:
    """One compiled schema plus the error wording of the real service."""

    __slots__ = ("_v", "_doc")

    def __init__(self, schema: dict[str, Any], components: dict[str, Any]) -> None:
        doc = {"$schema": _DIALECT, **schema, "components": components}
        self._doc = doc
        self._v = jsonschema_rs.Draft202012Validator(doc, validate_formats=True)

    def _declared(self, schema_path: list[Any]) -> set[str]:
        """The property names the schema holding `unevaluatedProperties` declares (through allOf, anyOf, oneOf,
        if/then/else and $ref): a declared property is "unevaluated" only because a sibling subschema failed,
        and that failure (a missing `name`) is the error to report, not the property."""
        node: Any = self._doc
        for step in schema_path[:-1]:
            node = node[step]
        names: set[str] = set()
        seen: set[int] = set()
        todo = [node]
        while todo:
            current = todo.pop()
            if not isinstance(current, dict) or id(current) in seen:
                continue
            seen.add(id(current))
            names.update(current.get("properties", {}))
            ref = current.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/"):
                target: Any = self._doc
                for part in ref[2:].split("/"):
                    target = target[part]
                todo.append(target)
            for key in ("allOf", "anyOf", "oneOf"):
                todo.extend(current.get(key, []))
            todo.extend(current[key] for key in ("then", "else") if key in current)
        return names

    def is_valid(self, instance: Any) -> bool:
        return self._v.is_valid(instance)

    def errors(self, instance: Any, prefix: str = "$") -> list[str]:
        out: list[str] = []
        for err in self._v.iter_errors(instance):
            path = prefix + "".join(
                f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.instance_path
            )
            kind = err.kind
            name = type(kind).__name__
            if name == "Required":
                msg = f"missing property '{kind.property}'"
            elif name in ("AdditionalProperties", "UnevaluatedProperties"):
                unexpected = list(kind.unexpected)
                if name == "UnevaluatedProperties":
                    declared = self._declared(list(err.schema_path))
                    unexpected = [n for n in unexpected if n not in declared]
                    if not unexpected:
                        continue
                names = ", ".join(f"'{n}'" for n in unexpected)
                msg = f"additional properties {names} not allowed"
            elif name == "Enum":
                allowed = ", ".join(orjson.dumps(o).decode() for o in kind.options)
                msg = f"{orjson.dumps(err.instance).decode()} is not one of {allowed}"
            else:
                msg = err.message
            out.append(f"{path}: {msg}")
        return out


@dataclass
class QueryParam:
    name: str
    schema: dict[str, Any]
    validator: Validator
    kind: str  # "array" | "integer" | "number" | "boolean" | "string"
    item_kind: str = "string"
    default: Any = None


@dataclass
class ResponseSpec:
    content_type: str | None
    validator: Validator | None
    headers: tuple[str, ...] = ()


@dataclass
class Operation:
    operation_id: str
    method: str
    path: str
    body: Validator | None = None
    query: list[QueryParam] = field(default_factory=list)
    responses: dict[str, ResponseSpec] = field(default_factory=dict)

    def response_for(self, status: int) -> ResponseSpec | None:
        return self.responses.get(str(status)) or self.responses.get("default")


def _deref(obj: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    while isinstance(obj, dict) and "$ref" in obj and len(obj) == 1:
        parts = obj["$ref"].lstrip("#/").split("/")
        node: Any = spec
        for part in parts:
            node = node[part]
        obj = node
    return obj


def _schema_kind(schema: dict[str, Any], spec: dict[str, Any]) -> str:
    schema = _deref(schema, spec)
    t = schema.get("type")
    if t is None and "allOf" in schema:
        return _schema_kind(schema["allOf"][0], spec)
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    return t or "string"


def _to_aiohttp_path(path: str) -> str:
    return path


class CompiledSpec:
    """Operations indexed by operationId, with every validator built up front."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.raw = spec
        self.components = spec["components"]
        self.request_components = bounded(self.components)  # bodies and queries: integers as stored
        self.operations: dict[str, Operation] = {}
        self._schemas: dict[str, Validator] = {}
        for path, item in spec["paths"].items():
            shared = item.get("parameters", [])
            for method, op in item.items():
                if method == "parameters":
                    continue
                self.operations[op["operationId"]] = self._compile(path, method, op, shared)

    def schema(self, name: str) -> Validator:
        if name not in self._schemas:
            self._schemas[name] = Validator({"$ref": f"#/components/schemas/{name}"}, self.components)
        return self._schemas[name]

    def _compile(self, path: str, method: str, op: dict, shared: list) -> Operation:
        spec = self.raw
        result = Operation(op["operationId"], method.upper(), _to_aiohttp_path(path))
        body = op.get("requestBody")
        if body:
            schema = body["content"]["application/json"]["schema"]
            result.body = Validator(bounded(schema), self.request_components)
        for param in list(shared) + list(op.get("parameters", [])):
            param = _deref(param, spec)
            if param.get("in") != "query":
                continue
            schema = param["schema"]
            kind = _schema_kind(schema, spec)
            item_kind = "string"
            if kind == "array":
                item_kind = _schema_kind(_deref(schema, spec).get("items", {}), spec)
            result.query.append(
                QueryParam(
                    name=param["name"],
                    schema=schema,
                    validator=Validator(bounded(schema), self.request_components),
                    kind=kind,
                    item_kind=item_kind,
                    default=_deref(schema, spec).get("default"),
                )
            )
        for status, resp in op.get("responses", {}).items():
            resp = _deref(resp, spec)
            content = resp.get("content") or {}
            headers = tuple((resp.get("headers") or {}).keys())
            if not content:
                result.responses[status] = ResponseSpec(None, None, headers)
                continue
            ctype, media = next(iter(content.items()))
            schema = media.get("schema")
            validator = Validator(schema, self.components) if schema and ctype.endswith("json") else None
            result.responses[status] = ResponseSpec(ctype, validator, headers)
        return result


@lru_cache(maxsize=1)
def compiled() -> CompiledSpec:
    return CompiledSpec(load_spec())


_INT_RE = re.compile(r"^[+-]?\d+$")


def _coerce(value: str, kind: str) -> Any:
    if kind == "integer":
        return int(value) if _INT_RE.match(value) else value
    if kind == "number":
        try:
            return float(value)
        except ValueError:
            return value
    if kind == "boolean":
        low = value.lower()
        if low == "true":
            return True
        if low == "false":
            return False
        return value
    return value


def parse_query(op: Operation, query: Any) -> tuple[dict[str, Any], list[str]]:
    """Coerce and validate the declared query parameters; unknown ones are ignored, as in v2."""
    values: dict[str, Any] = {}
    errors: list[str] = []
    for param in op.query:
        raw = query.getall(param.name, None) if hasattr(query, "getall") else query.get(param.name)
        if raw is None:
            if param.default is not None:
                values[param.name] = param.default
            continue
        if isinstance(raw, str):
            raw = [raw]
        if param.kind == "array":
            items: list[str] = []
            for chunk in raw:
                items.extend(chunk.split(","))
            value: Any = [_coerce(i, param.item_kind) for i in items]
        else:
            value = _coerce(raw[-1], param.kind)
        errs = param.validator.errors(value, prefix=f"query.{param.name}")
        if errs:
            errors.extend(errs)
        else:
            values[param.name] = value
    return values, errors
