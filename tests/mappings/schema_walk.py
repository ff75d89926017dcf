"""Walk OpenAPI schemas the way the drift and coverage tests need: follow $ref and merge allOf/anyOf/oneOf."""
from __future__ import annotations

from typing import Any


def resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        ref = schema["$ref"]
        node: Any = doc
        for part in ref.lstrip("#/").split("/"):
            node = node[part]
        schema = {**node, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def properties(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """All properties a schema allows, across composition keywords."""
    schema = resolve(doc, schema)
    found: dict[str, dict[str, Any]] = {}
    for keyword in ("allOf", "anyOf", "oneOf"):
        for part in schema.get(keyword, []):
            for name, sub in properties(doc, part).items():
                found.setdefault(name, sub)
    for name, sub in schema.get("properties", {}).items():
        found[name] = sub
    return found


def descend(doc: dict[str, Any], schema: dict[str, Any], dotted: str) -> dict[str, Any] | None:
    """The sub-schema at a dotted path (numeric steps go into array items); None if the path does not exist."""
    current = resolve(doc, schema)
    for part in dotted.split("."):
        if part.isdigit():
            variants = [current] + [resolve(doc, s) for s in current.get("anyOf", []) + current.get("oneOf", [])]
            items = next((v["items"] for v in variants if "items" in v), None)
            if items is None:
                return None
            current = resolve(doc, items)
            continue
        props = properties(doc, current)
        if part not in props:
            variants = [resolve(doc, s) for s in current.get("anyOf", []) + current.get("oneOf", [])]
            props = {}
            for variant in variants:
                props.update(properties(doc, variant))
            if part not in props:
                return None
        current = resolve(doc, props[part])
    return current


def enum_values(doc: dict[str, Any], schema: dict[str, Any]) -> set[Any] | None:
    schema = resolve(doc, schema)
    if "enum" in schema:
        return set(schema["enum"])
    if "const" in schema:
        return {schema["const"]}
    for keyword in ("allOf", "anyOf", "oneOf"):
        for part in schema.get(keyword, []):
            values = enum_values(doc, part)
            if values is not None:
                return values
    return None
