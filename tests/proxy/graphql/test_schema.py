"""The schema, the mapping and the resolvers agree: every operation of the schema has a resolver and a
graphql.yaml entry (the audit's G rule) and the reverse; each G rule's v2 route is the route its resolver calls;
every view covers its type's fields."""
from __future__ import annotations

import pytest
from graphql import GraphQLObjectType

from mappings import default_mappings
from mappings.errors import MappingError
from proxy.graphql.schema import schema
from proxy.graphql.service import check_schema, operations
from proxy.graphql.views import Views
from proxy.routes import RouteTable


@pytest.fixture(scope="module")
def ops():
    m = default_mappings()
    return operations(m, RouteTable(m))


def schema_operations() -> set[tuple[str | None, str]]:
    s = schema()
    containers = set(default_mappings().graphql.containers)
    out = set()
    for root in (s.query_type, s.mutation_type):
        for name, field in root.fields.items():
            if name in containers:
                out.update((name, sub) for sub in field.type.fields)
            else:
                out.add((None, name))
    return out


def test_every_schema_operation_has_a_resolver_and_a_rule_and_the_reverse(ops):
    m = default_mappings()
    assert set(ops) == schema_operations()
    entries = {(op.parent, op.field) for op in m.graphql.operations}
    assert entries == schema_operations()
    for op in m.graphql.operations:
        assert op.id in m.rules and m.rules[op.id].rule_class == "retiring"


def test_the_rules_v2_routes_are_the_routes_the_resolvers_call(ops):
    for (parent, name), resolver in ops.items():
        op = resolver.op
        if op.v2_route is None:
            # no v2 equivalent: answered null, named as a gap, or emulated under a policy the entry names
            serve = op.serve
            assert serve.answer in ("none", "gap", "sum") or serve.policy or resolver.route.op_emulation, op.id
            continue
        assert op.v2_route in resolver.routes, (op.id, op.v2_route, resolver.routes)


def test_the_check_refuses_a_schema_field_without_a_resolver(ops):
    fewer = {k: v for k, v in ops.items() if k != (None, "podStop")}
    with pytest.raises(MappingError, match="podStop"):
        check_schema(schema(), fewer, frozenset({"myself"}))


def test_every_view_covers_its_type_and_every_object_type_has_a_view():
    views = Views(default_mappings(), schema())
    s = schema()
    objects = {n for n, t in s.type_map.items() if isinstance(t, GraphQLObjectType) and not n.startswith("__")}
    assert objects - {"Query", "Mutation", "User"} == set(views.getters)
    for name, getters in views.getters.items():
        assert set(getters) == set(s.type_map[name].fields)
