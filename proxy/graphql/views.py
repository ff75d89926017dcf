"""The GraphQL view of v2 records (graphql.yaml `views`), and completing a value into exactly the selected fields.

Each view field is compiled once into a getter over the v2 record (a dotted path, the first set of several, a
value map, a converter, a constant, or null where v2 has no value). Completion walks the selection: only the
selected fields are read, aliases name the keys, `__typename` is answered, lists and non-null types follow
GraphQL's rules (a null where the schema forbids it becomes an error and nulls the nearest nullable parent),
and every leaf is checked against its scalar or enum, so an answer never carries a value its type cannot hold.
"""
from __future__ import annotations

import math
from typing import Any, Callable

from graphql import (
    FieldNode,
    FragmentSpreadNode,
    GraphQLEnumType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLSkipDirective,
    GraphQLIncludeDirective,
    InlineFragmentNode,
)
from graphql.execution.values import get_directive_values

from mappings.errors import MappingError
from mappings.graphql_converters import VIEWS
from mappings.loader import Mappings
from mappings.models import GraphQLViewField

from proxy.graphql.schema import Prepared, error_object

Getter = Callable[[Any], Any]


def _path_getter(path: str) -> Getter:
    if path == "":
        return lambda record: record
    parts = [int(p) if p.isdigit() else p for p in path.split(".")]
    if len(parts) == 1:
        key = parts[0]
        return lambda record: record.get(key) if isinstance(record, dict) else None

    def get(record: Any) -> Any:
        for part in parts:
            if isinstance(part, int):
                if not isinstance(record, list) or part >= len(record):
                    return None
                record = record[part]
            elif isinstance(record, dict):
                record = record.get(part)
            else:
                return None
        return record

    return get


def compile_field(spec: GraphQLViewField, m: Mappings) -> Getter:
    if spec.none is not None:
        return lambda record: None
    if spec.const is not None:
        const = spec.const
        return lambda record: const
    sources = spec.from_ if isinstance(spec.from_, list) else [spec.from_ or ""]
    getters = [_path_getter(s) for s in sources]
    if len(getters) == 1:
        read = getters[0]
    else:
        def read(record: Any) -> Any:
            for get in getters:
                value = get(record)
                if value is not None:
                    return value
            return None
    steps: list[Getter] = []
    if spec.values:
        table = m.values[spec.values].backward
        steps.append(lambda v: table.get(v, v) if v is not None else None)
    if spec.convert:
        if spec.convert not in VIEWS:
            raise MappingError(f"graphql.yaml views: no converter {spec.convert!r}")
        steps.append(VIEWS[spec.convert])
    fallback = spec.fallback
    if not steps and fallback is None:
        return read

    def get(record: Any) -> Any:
        value = read(record)
        for step in steps:
            value = step(value)
        return fallback if value is None else value

    return get


class Views:
    """Compiled views and the completion of values against one schema."""

    def __init__(self, m: Mappings, schema: GraphQLSchema) -> None:
        self.schema = schema
        views = m.graphql.views
        self.getters: dict[str, dict[str, Getter]] = {}
        for type_name, fields in views.items():
            gtype = schema.type_map.get(type_name)
            if not isinstance(gtype, GraphQLObjectType):
                raise MappingError(f"graphql.yaml views: {type_name!r} is not an object type of the schema")
            missing = set(gtype.fields) - set(fields)
            extra = set(fields) - set(gtype.fields)
            if missing or extra:
                raise MappingError(f"graphql.yaml views.{type_name}: fields without a view {sorted(missing)}, "
                                   f"views without a field {sorted(extra)}")
            self.getters[type_name] = {name: compile_field(spec, m) for name, spec in fields.items()}

    # ------------------------------------------------------------------ selection

    def collect(self, prepared: Prepared, gtype: GraphQLObjectType, nodes: list[FieldNode] | tuple[Any, ...],
                variables: Any) -> dict[str, list[FieldNode]]:
        """Response key -> the field nodes selecting it, under `nodes`' selection sets (fragments and @skip /
        @include applied); cached per selection when the document has no directives."""
        key = (tuple(id(n) for n in nodes), gtype.name)
        if not prepared.has_directives:
            found = prepared.collected.get(key)
            if found is not None:
                return found
        out: dict[str, list[FieldNode]] = {}
        stack = [n.selection_set for n in reversed(nodes) if n.selection_set is not None]
        self._collect(prepared, gtype, stack, variables, out, set())
        if not prepared.has_directives:
            prepared.collected[key] = out
        return out

    def _collect(self, prepared: Prepared, gtype: GraphQLObjectType, sets: list[Any], variables: Any,
                 out: dict[str, list[FieldNode]], seen: set[str]) -> None:
        for selection_set in reversed(sets):
            for sel in selection_set.selections:
                if prepared.has_directives and not _included(sel, variables):
                    continue
                if isinstance(sel, FieldNode):
                    out.setdefault(sel.alias.value if sel.alias else sel.name.value, []).append(sel)
                elif isinstance(sel, InlineFragmentNode):
                    if sel.type_condition is None or sel.type_condition.name.value == gtype.name:
                        self._collect(prepared, gtype, [sel.selection_set], variables, out, seen)
                elif isinstance(sel, FragmentSpreadNode):
                    name = sel.name.value
                    fragment = prepared.fragments.get(name)
                    if name in seen or fragment is None or fragment.type_condition.name.value != gtype.name:
                        continue
                    seen.add(name)
                    self._collect(prepared, gtype, [fragment.selection_set], variables, out, seen)

    # ------------------------------------------------------------------ completion

    def complete(self, prepared: Prepared, gtype: Any, nodes: list[FieldNode], value: Any, path: list[Any],
                 variables: Any, errors: list[dict[str, Any]]) -> Any:
        """`value` (a v2 record, list or scalar already read) as GraphQL `gtype`, selected by `nodes`.
        Raises _Null when a non-null position is null (the caller nulls its own field)."""
        if isinstance(gtype, GraphQLNonNull):
            done = self.complete(prepared, gtype.of_type, nodes, value, path, variables, errors)
            if done is None:
                errors.append(error_object(f"v2 has no value for the non-null field {path[-1]}", "BAD_UPSTREAM_VALUE",
                                           nodes[0], list(path)))
                raise _Null
            return done
        if value is None:
            return None
        if isinstance(gtype, GraphQLList):
            if not isinstance(value, list):
                value = [value]
            out = []
            for index, item in enumerate(value):
                path.append(index)
                try:
                    out.append(self.complete(prepared, gtype.of_type, nodes, item, path, variables, errors))
                except _Null:
                    out.append(None)
                path.pop()
            return out
        if isinstance(gtype, GraphQLObjectType):
            return self.object(prepared, gtype, nodes, value, path, variables, errors)
        try:
            return _leaf(gtype, value)
        except (TypeError, ValueError) as exc:
            errors.append(error_object(f"{gtype.name} cannot represent the v2 value {value!r}: {exc}",
                                       "BAD_UPSTREAM_VALUE", nodes[0], list(path)))
            return None

    def object(self, prepared: Prepared, gtype: GraphQLObjectType, nodes: list[FieldNode], record: Any,
               path: list[Any], variables: Any, errors: list[dict[str, Any]]) -> dict[str, Any] | None:
        getters = self.getters[gtype.name]
        out: dict[str, Any] = {}
        for key, fnodes in self.collect(prepared, gtype, nodes, variables).items():
            name = fnodes[0].name.value
            if name == "__typename":
                out[key] = gtype.name
                continue
            path.append(key)
            try:
                out[key] = self.complete(prepared, gtype.fields[name].type, fnodes, getters[name](record), path,
                                         variables, errors)
            except _Null:  # a non-null field of this object is null: the object is null (its caller decides further)
                path.pop()
                return None
            path.pop()
        return out


class _Null(Exception):
    """A non-null position completed to null: its nearest nullable parent becomes null."""


def _included(sel: Any, variables: Any) -> bool:
    if not sel.directives:
        return True
    skip = get_directive_values(GraphQLSkipDirective, sel, variables)
    if skip is not None and skip.get("if") is True:
        return False
    include = get_directive_values(GraphQLIncludeDirective, sel, variables)
    return not (include is not None and include.get("if") is False)


def _leaf(gtype: Any, value: Any) -> Any:
    """A leaf value checked as its type (the common scalars without a call into graphql-core)."""
    name = gtype.name
    if name == "String" or name == "ID":
        if isinstance(value, str):
            return value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return str(value)
        raise TypeError("not a string")
    if name == "Int":
        if isinstance(value, bool):
            raise TypeError("a boolean is not an Int")
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer() and math.isfinite(value):
            return int(value)
        raise TypeError("not an integer")
    if name == "Float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError("not a number")
        return float(value)
    if name == "Boolean":
        if isinstance(value, bool):
            return value
        raise TypeError("not a boolean")
    if name == "Void":
        return None
    if isinstance(gtype, GraphQLEnumType):
        if isinstance(value, str) and value in gtype.values:
            return value
        raise ValueError(f"not one of {', '.join(gtype.values)}")
    if isinstance(gtype, GraphQLScalarType):
        return gtype.serialize(value)
    raise TypeError(f"no leaf type {name}")
