"""Every part of the v1 surface has a disposition in mappings/.

A schema update that adds a v1 operation, field or parameter must fail here
until somebody decides what v1bridge does with it.
"""
from __future__ import annotations

import pytest

from mappings import default_mappings, load_schema
from tests.mappings.tools import properties, resolve

V1 = load_schema("v1")
MAPPINGS = default_mappings()
HTTP_METHODS = {"get", "post", "put", "patch", "delete"}


def v1_operations():
    for path, item in V1["paths"].items():
        for method, op in item.items():
            if method in HTTP_METHODS:
                yield method.upper(), path, op


def mapped(method: str, path: str):
    for op in MAPPINGS.operations:
        if op.v1.method == method and op.v1.path == path:
            return op
    return None


def body_schema_name(op: dict) -> str | None:
    content = op.get("requestBody", {}).get("content", {})
    for media in content.values():
        ref = media.get("schema", {}).get("$ref")
        if ref:
            return ref.rsplit("/", 1)[-1]
    return None


def success_schema(op: dict) -> dict | None:
    for status, response in op.get("responses", {}).items():
        if status.startswith("2"):
            for media in response.get("content", {}).values():
                if "schema" in media:
                    return media["schema"]
    return None


ALL_V1_OPS = list(v1_operations())


def test_every_v1_operation_is_mapped_exactly_once():
    missing = [f"{m} {p}" for m, p, _ in ALL_V1_OPS if mapped(m, p) is None]
    assert missing == [], f"v1 operations without a mapping: {missing}"
    v1_keys = {(m, p) for m, p, _ in ALL_V1_OPS}
    stale = [f"{op.v1.method} {op.v1.path}" for op in MAPPINGS.operations if (op.v1.method, op.v1.path) not in v1_keys]
    assert stale == [], f"mapped operations that v1.json does not have: {stale}"
    assert len(MAPPINGS.operations) == len(ALL_V1_OPS) == 37


@pytest.mark.parametrize("method,path,op", ALL_V1_OPS, ids=[f"{m} {p}" for m, p, _ in ALL_V1_OPS])
def test_request_body_fields_have_a_disposition(method, path, op):
    name = body_schema_name(op)
    if name is None:
        return
    operation = mapped(method, path)
    assert operation.request, f"{method} {path} takes {name} but has no request map"
    request = MAPPINGS.requests[operation.request]
    assert request.v1_schema == name
    v1_fields = set(properties(V1, {"$ref": f"#/components/schemas/{name}"}))
    assert v1_fields - set(request.fields) == set(), f"{name} fields without a disposition"
    assert set(request.fields) - v1_fields == set(), f"{request.id} maps fields {name} does not have"


def test_update_in_place_inputs_are_covered():
    """v1.json also defines *UpdateInPlaceInput schemas; their fields must be covered by an update map."""
    schemas = [n for n in V1["components"]["schemas"] if n.endswith("Input")]
    covered = {r.v1_schema for r in MAPPINGS.requests.values()} | {c for r in MAPPINGS.requests.values() for c in r.covers}
    assert sorted(set(schemas) - covered) == []
    for request in MAPPINGS.requests.values():
        for name in request.covers:
            fields = set(properties(V1, {"$ref": f"#/components/schemas/{name}"}))
            assert fields - set(request.fields) == set(), f"{name} not covered by {request.id}"


@pytest.mark.parametrize("method,path,op", ALL_V1_OPS, ids=[f"{m} {p}" for m, p, _ in ALL_V1_OPS])
def test_response_fields_have_a_source(method, path, op):
    schema = success_schema(op)
    operation = mapped(method, path)
    if schema is None or operation.shape == "raw" or operation.policy == "gone":
        return
    schema = resolve(V1, schema)
    if schema.get("type") == "array":
        schema = resolve(V1, schema["items"])
    assert operation.response, f"{method} {path} returns a body but has no response map"
    response = MAPPINGS.responses[operation.response]
    v1_fields = set(properties(V1, schema))
    assert v1_fields - set(response.fields) == set(), f"{response.id}: v1 fields without a source"
    assert set(response.fields) - v1_fields == set(), f"{response.id}: maps fields v1 does not return"


@pytest.mark.parametrize("method,path,op", ALL_V1_OPS, ids=[f"{m} {p}" for m, p, _ in ALL_V1_OPS])
def test_query_parameters_have_a_disposition(method, path, op):
    operation = mapped(method, path)
    params = {p["name"] for p in op.get("parameters", []) if p.get("in") == "query"}
    path_params = {p["name"] for p in op.get("parameters", []) if p.get("in") == "path"}
    assert path_params == set(operation.path_params), f"{method} {path}: path parameters"
    if not params:
        assert operation.query is None
        return
    assert operation.query, f"{method} {path} has query parameters {sorted(params)} but no query map"
    query = MAPPINGS.queries[operation.query]
    assert params - set(query.params) == set()
    assert set(query.params) - params == set()


def test_list_operations_name_their_envelope_key():
    for op in MAPPINGS.operations:
        if op.shape == "list":
            assert MAPPINGS.list_key(op.resource), op.id
