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

        def one(record: Any) -> Any:
            return record.get(key) if isinstance(record, dict) else None
        one.key = key  # type: ignore[attr-defined]  # read inline by compiled completers
        return one

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
        steps.append(lambda v: table.get(v, v) if v.__class__ is str else v)
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
        self.specs = views
        self.m = m
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

    def completer(self, prepared: Prepared, gtype: Any, nodes: list[FieldNode], variables: Any) -> Callable[[Any], Any]:
        """`value -> completed value` for one field's type and selection, compiled once per document (without
        directives): plain closures, no path bookkeeping. Anything unusual (a value of another type, a null where
        the schema forbids it) raises _Slow, and the caller completes that field with `complete`, which reports
        errors with their paths and nulls exactly as GraphQL says."""
        if prepared.has_directives:
            raise _Slow
        key = ("completer", tuple(id(n) for n in nodes), str(gtype))
        found = prepared.collected.get(key)
        if found is None:
            found = prepared.collected[key] = self._compile(prepared, gtype, nodes, variables)
        return found

    def _compile(self, prepared: Prepared, gtype: Any, nodes: Any, variables: Any) -> Callable[[Any], Any]:
        if isinstance(gtype, GraphQLNonNull):
            inner = self._compile(prepared, gtype.of_type, nodes, variables)

            def non_null(value: Any) -> Any:
                done = inner(value)
                if done is None:
                    raise _Slow
                return done
            return non_null
        if isinstance(gtype, GraphQLList):
            item = self._compile(prepared, gtype.of_type, nodes, variables)

            def listed(value: Any) -> Any:
                if value is None:
                    return None
                if value.__class__ is not list:
                    raise _Slow
                return [item(v) for v in value]
            return listed
        if isinstance(gtype, GraphQLObjectType):
            fields = []
            for out_key, fnodes in self.collect(prepared, gtype, nodes, variables).items():
                name = fnodes[0].name.value
                if name == "__typename":
                    fields.append((out_key, None, None, None))
                    continue
                ftype = gtype.fields[name].type
                fields.append((out_key, self.specs[gtype.name][name], ftype,
                               self._compile(prepared, ftype, fnodes, variables)))
            return _generate(gtype.name, fields, self.m)
        return _fast_leaf(gtype)

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


def _read_code(path: str, target: str) -> list[str]:
    """Statements reading a dotted v2 path (list indexes allowed) from `record` into `target`, None when absent."""
    if path == "":
        return [f"{target} = record"]
    lines = []
    current = "record"
    for n, part in enumerate(path.split(".")):
        if part.isdigit():
            lines.append(f"{target} = {current}[{part}] if {current}.__class__ is list and len({current}) > {part} "
                         "else None")
        elif n == 0:
            lines.append(f"{target} = record.get({part!r})")
        else:
            lines.append(f"{target} = {current}.get({part!r}) if {current}.__class__ is dict else None")
        current = target
    return lines


def _generate(type_name: str, fields: list[tuple[str, Any, Any, Any]], m: Mappings) -> Callable[[Any], Any]:
    """The compiled completer of one object selection as straight-line Python (one function, no per-field call
    for plain reads of the common scalars): each selected field read from the v2 record as its view says, checked
    against its type inline, nested selections by their own completers. Anything unusual raises _Slow."""
    names: dict[str, Any] = {"_Slow": _Slow}
    body = ["def obj(record):", "    if record is None:", "        return None",
            "    if record.__class__ is not dict:", "        raise _Slow"]
    out = []
    for i, (out_key, spec, ftype, complete) in enumerate(fields):
        v = f"v{i}"
        out.append(f"{out_key!r}: {v}")
        if spec is None:
            body.append(f"    {v} = {type_name!r}")
            continue
        if spec.none is not None:
            body.append(f"    {v} = None")
            continue
        if spec.const is not None:
            names[f"c{i}"] = spec.const
            body.append(f"    {v} = c{i}")
        else:
            sources = spec.from_ if isinstance(spec.from_, list) else [spec.from_ or ""]
            indent = "    "
            for k, source in enumerate(sources):
                body.extend(indent + line for line in _read_code(source, v))
                if k < len(sources) - 1:
                    body.append(f"{indent}if {v} is None:")
                    indent += "    "
            if spec.values:
                names[f"t{i}"] = m.values[spec.values].backward
                body.append(f"    if {v}.__class__ is str:")
                body.append(f"        {v} = t{i}.get({v}, {v})")
            if spec.convert:
                names[f"f{i}"] = VIEWS[spec.convert]
                body.append(f"    {v} = f{i}({v})")
            if spec.fallback is not None:
                names[f"b{i}"] = spec.fallback
                body.append(f"    if {v} is None:")
                body.append(f"        {v} = b{i}")
        names[f"k{i}"] = complete
        kind = _LEAF_CLASSES.get(getattr(ftype, "name", None))
        if kind is float:  # an integral v2 number is a Float as it is
            body.append(f"    if {v}.__class__ is int:")
            body.append(f"        {v} = float({v})")
            body.append(f"    elif {v} is not None and {v}.__class__ is not float:")
            body.append(f"        {v} = k{i}({v})")
        elif kind is not None:
            names[f"K{i}"] = kind
            body.append(f"    if {v} is not None and {v}.__class__ is not K{i}:")
            body.append(f"        {v} = k{i}({v})")
        else:
            body.append(f"    {v} = k{i}({v})")
    body.append("    return {" + ", ".join(out) + "}")
    exec("\n".join(body), names)  # noqa: S102 - source built here from the mapping's field names only
    return names["obj"]


class _Slow(Exception):
    """The compiled completer met something only the exact completion handles."""


# leaf types whose values pass as they are when already of this class (checked inline)
_LEAF_CLASSES = {"String": str, "ID": str, "Int": int, "Boolean": bool, "Float": float}


def _same(value: Any) -> Any:
    return value


def _fast_leaf(gtype: Any) -> Callable[[Any], Any]:
    name = gtype.name
    kinds = {"String": str, "ID": str, "Int": int, "Boolean": bool}
    if name in kinds:
        kind = kinds[name]

        def leaf(value: Any) -> Any:
            if value is None or value.__class__ is kind:
                return value
            raise _Slow
        return leaf
    if name == "Float":
        def number(value: Any) -> Any:
            if value is None or value.__class__ is float:
                return value
            if value.__class__ is int:
                return float(value)
            raise _Slow
        return number
    if name == "Void":
        return lambda value: None
    if isinstance(gtype, GraphQLEnumType):
        names = frozenset(gtype.values)

        def enum(value: Any) -> Any:
            if value is None or (value.__class__ is str and value in names):
                return value
            raise _Slow
        return enum

    def other(value: Any) -> Any:
        raise _Slow
    return other


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
