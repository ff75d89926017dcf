"""Everything the mappings target exists in v2.json, and every value they produce is allowed there.

Guards against a mapping that points at a v2 field, path or enum value that
does not exist (the proxy would send a body the real service refuses).
"""
from __future__ import annotations

import pytest

from mappings import default_mappings, load_schema
from tests.mappings.tools import descend, enum_values, properties, resolve

V1 = load_schema("v1")
V2 = load_schema("v2")
MAPPINGS = default_mappings()
# v2 serves its schema at /v2/openapi.json (migration guide), but v2.json does not list that path.
V2_PATHS_NOT_IN_SCHEMA = {("GET", "/v2/openapi.json")}


def v2_schema(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def v2_operation(method: str, path: str) -> dict:
    return V2["paths"][path][method.lower()]


@pytest.mark.parametrize("op", MAPPINGS.operations, ids=lambda op: op.id)
def test_v2_targets_exist(op):
    if op.v2 is None:
        assert op.policy in ("gone", "emulate"), f"{op.id}: no v2 target needs an emulation or 'gone'"
        return
    key = (op.v2.method, op.v2.path)
    if key in V2_PATHS_NOT_IN_SCHEMA:
        return
    assert op.v2.path in V2["paths"], f"{op.id}: {op.v2.path} is not a v2 path"
    assert op.v2.method.lower() in V2["paths"][op.v2.path], f"{op.id}: {op.v2.method} {op.v2.path} is not a v2 operation"
    if op.v2.body:
        body_ref = v2_operation(*key)["requestBody"]["content"]["application/json"]["schema"]
        for field, value in op.v2.body.items():
            sub = descend(V2, body_ref, field)
            assert sub is not None, f"{op.id}: fixed body field {field!r} not in v2"
            allowed = enum_values(V2, sub)
            assert allowed is None or value in allowed, f"{op.id}: {field}={value!r} not in {allowed}"


def test_billing_endpoints_trap_is_routed_to_serverless():
    """v1 /billing/endpoints is serverless spend; v2 /billing/endpoints is another product (Q01)."""
    op = MAPPINGS.operations_by_id["billing.endpoints"]
    assert (op.v2.method, op.v2.path) == ("GET", "/v2/billing/serverless")
    assert "Q01" in op.rules


@pytest.mark.parametrize("request_map", MAPPINGS.requests.values(), ids=lambda r: r.id)
def test_request_targets_exist_in_v2(request_map):
    schema = v2_schema(request_map.v2_schema)
    assert request_map.v2_schema in V2["components"]["schemas"]
    for name, field in request_map.fields.items():
        if field.to is None:
            continue
        assert descend(V2, schema, field.to) is not None, f"{request_map.id}.{name} -> {field.to} is not in {request_map.v2_schema}"
    for name, constant in request_map.constants.items():
        sub = descend(V2, schema, name)
        assert sub is not None, f"{request_map.id}: constant {name} not in v2"
        allowed = enum_values(V2, sub)
        assert allowed is None or constant.value in allowed


@pytest.mark.parametrize("response_map", MAPPINGS.responses.values(), ids=lambda r: r.id)
def test_response_sources_exist_in_v2(response_map):
    schema = v2_schema(response_map.v2_schema)
    assert response_map.v2_schema in V2["components"]["schemas"]
    for name, field in response_map.fields.items():
        for source in field.sources:
            assert descend(V2, schema, source) is not None, f"{response_map.id}.{name} <- {source} is not in {response_map.v2_schema}"


def test_value_maps_match_both_enums():
    pod_status = enum_values(V2, v2_schema("PodStatus"))
    desired = enum_values(V1, properties(V1, {"$ref": "#/components/schemas/Pod"})["desiredStatus"])
    values = MAPPINGS.values["pod_status"]
    assert set(values.backward) == pod_status, "every v2 pod status needs a v1 desiredStatus"
    assert set(values.backward.values()) <= desired
    assert set(values.filter) == desired
    assert {s for group in values.filter.values() for s in group} <= pod_status
    flashboot = enum_values(V2, v2_schema("FlashBoot"))
    assert set(MAPPINGS.values["flashboot"].forward.values()) <= flashboot
    assert set(MAPPINGS.values["flashboot"].backward) == flashboot


def test_native_query_parameters_exist_in_v2():
    for op in MAPPINGS.operations:
        if not op.query or op.v2 is None:
            continue
        v2_op = v2_operation(op.v2.method, op.v2.path)
        names = set()
        for param in v2_op.get("parameters", []):
            names.add(resolve(V2, param)["name"])
        for name, param in MAPPINGS.queries[op.query].params.items():
            if param.to:
                assert param.to in names, f"{op.id}: {name} -> {param.to} is not a parameter of {op.v2.path}"


def test_list_keys_match_v2_envelopes():
    for op in MAPPINGS.operations:
        if op.shape != "list":
            continue
        v2_op = v2_operation(op.v2.method, op.v2.path)
        body = v2_op["responses"]["200"]["content"]["application/json"]["schema"]
        key = MAPPINGS.list_key(op.resource)
        assert key in properties(V2, body), f"{op.id}: v2 list has no {key!r}"


def _query_param_cases():
    for op in MAPPINGS.operations:
        if op.query:
            for name, spec in MAPPINGS.queries[op.query].params.items():
                yield pytest.param(op, name, spec, id=f"{op.id}:{name}")


@pytest.mark.parametrize("op,name,spec", list(_query_param_cases()))
def test_emulated_query_defaults_are_v1s(op, name, spec):
    """A v1 default the proxy must apply (the parameter is emulated, v2 does not know it) is in the mapping,
    and equals v1.json's."""
    params = V1["paths"][op.v1.path][op.v1.method.lower()].get("parameters", [])
    v1_default = next((p.get("schema", {}).get("default") for p in params if p.get("name") == name), None)
    if spec.emulated_by and v1_default is not None:
        assert spec.default == v1_default, f"{op.id}: {name} defaults to {v1_default!r} in v1.json"
    if spec.default is not None:
        assert spec.default == v1_default


@pytest.mark.parametrize("op,name,spec", [c for c in _query_param_cases() if c.values[2].native is not None])
def test_native_query_values_are_values_v1_accepts(op, name, spec):
    """A value the rewrite drops because v2 does it natively (`native`) is one v1.json allows for the parameter,
    and v2.json has no parameter of that name on the v2 operation (nothing to forward it to)."""
    params = V1["paths"][op.v1.path][op.v1.method.lower()].get("parameters", [])
    schema = next(p.get("schema", {}) for p in params if p.get("name") == name)
    assert set(spec.native.values) <= set(schema.get("enum", ())), f"{op.id}: {name} enum is {schema.get('enum')}"
    v2_params = v2_operation(op.v2.method, op.v2.path).get("parameters", [])
    assert name not in {p.get("name") for p in v2_params if "name" in p}
    assert spec.native.ref.startswith("v1-to-v2.md ")
