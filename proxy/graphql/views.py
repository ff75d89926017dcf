"""The GraphQL view of v2 records (graphql.yaml `views`), and completing a value into exactly the selected fields.

Each view field is compiled once into a getter over the v2 record (a dotted path, the first set of several, a
value map, a converter, a constant, or null where v2 has no value). Completion walks the selection: only the
selected fields are read, aliases name the keys, `__typename` is answered, lists and non-null types follow
GraphQL's rules (a null where the schema forbids it becomes an error and nulls the nearest nullable parent),
and every leaf is checked against its scalar or enum, so an answer never carries a value its type cannot hold.
"""
from __future__ import annotations

import math
from contextvars import ContextVar
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

from mappings.converters import get_path
from mappings.errors import MappingError
from mappings.graphql_converters import VIEWS
from mappings.loader import Mappings
from mappings.models import GraphQLViewField

from proxy.graphql.schema import Prepared, error_object
from proxy.graphql.typed import LEAF_TYPES, Reads, TypedSelection

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
        self.fetches: dict[tuple[str, str], Fetch] = {}
        for type_name, fields in views.items():
            gtype = schema.type_map[type_name]
            for name, spec in fields.items():
                ftype = gtype.fields[name].type
                named = _named_type(ftype)
                if isinstance(named, GraphQLObjectType) and spec.view != named.name:
                    raise MappingError(f"graphql.yaml views.{type_name}.{name}: a field of type {named.name} needs "
                                       f"`view: {named.name}` (its nested resolver)")
                if spec.fetch is not None:
                    self.fetches[(type_name, name)] = Fetch(f"{type_name}.{name}", spec, gtype.fields[name], views)

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
        key = ("completer", *map(id, nodes), id(gtype))
        found = prepared.collected.get(key)
        if found is None:
            found = prepared.collected[key] = self._compile(prepared, gtype, nodes, variables)
        return found

    def typed(self, prepared: Prepared, gtype: Any, nodes: list[FieldNode]) -> TypedSelection | None:
        """The typed reading of one field's selection (typed.py): structs holding only the v2 keys it reads and its
        completer compiled over them; None where the dict path must answer (directives, a value read whole at the
        top, a key that is not a plain name). Made once per document."""
        if prepared.has_directives:
            return None
        key = ("typed", *map(id, nodes), id(gtype))
        found = prepared.collected.get(key, _NONE)
        if found is _NONE:
            reads = Reads()
            self._reads(prepared, gtype, nodes, reads)
            found = None
            if reads.typed() and reads.plain():
                named = _named_type(gtype)
                emitter = _Emitter(self, prepared, None)
                complete = emitter.function(gtype, nodes, reads)
                if not emitter.fetches:  # nested records to fetch are filled in after completion: not serialised yet
                    found = TypedSelection(f"gql_{named.name}", reads, complete, _Slow)
            prepared.collected[key] = found
        return found

    def nested_fetches(self, prepared: Prepared, gtype: Any, nodes: Any, variables: Any) -> list[Fetch]:
        """The nested records a selection reads by their own v2 call (`v1bridge translate` names them)."""
        named = _named_type(gtype)
        out: list[Fetch] = []
        if not isinstance(named, GraphQLObjectType) or named.name not in self.specs:
            return out
        for fnodes in self.collect(prepared, named, nodes, variables).values():
            name = fnodes[0].name.value
            if name == "__typename":
                continue
            fetch = self.fetches.get((named.name, name))
            if fetch is not None and fetch.needed(self, prepared, fnodes, variables) and fetch not in out:
                out.append(fetch)
            out.extend(f for f in self.nested_fetches(prepared, named.fields[name].type, fnodes, variables)
                       if f not in out)
        return out

    def _reads(self, prepared: Prepared, gtype: Any, nodes: Any, reads: Reads) -> None:
        """Mark in `reads` the v2 paths that completing `gtype` selected by `nodes` reads."""
        while isinstance(gtype, GraphQLNonNull):
            gtype = gtype.of_type
        if isinstance(gtype, GraphQLList):
            self._reads(prepared, gtype.of_type, nodes, reads.item())
            return
        if not isinstance(gtype, GraphQLObjectType):
            reads.whole = True
            return
        for fnodes in self.collect(prepared, gtype, nodes, None).values():
            name = fnodes[0].name.value
            if name == "__typename":
                continue
            spec = self.specs[gtype.name][name]
            if spec.none is not None or spec.const is not None:
                continue
            sources = spec.from_ if isinstance(spec.from_, list) else [spec.from_ or ""]
            ftype = gtype.fields[name].type
            fetch = self.fetches.get((gtype.name, name))
            if fetch is not None and fetch.needed(self, prepared, fnodes, None):  # its own call: here only its id
                reads.at(fetch.id).read_as(None)
                continue
            if spec.view and not spec.convert and len(sources) == 1:  # a nested record: its own reads, below
                self._reads(prepared, ftype, fnodes, reads.at(sources[0]))
                continue
            named = _named_type(ftype)
            plain = not spec.convert and not spec.values and not isinstance(_strip_non_null(ftype), GraphQLList)
            for source in sources:
                reads.at(source).read_as(named.name if plain else None)

    def _compile(self, prepared: Prepared, gtype: Any, nodes: Any, variables: Any,
                 reads: Reads | None = None) -> Callable[[Any], Any]:
        """The completer of a type and selection, over dicts (`reads` None) or over the structs of `reads`."""
        return _Emitter(self, prepared, variables).function(gtype, nodes, reads)

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
            fetch = self.fetches.get((gtype.name, name)) if self.fetches else None
            if fetch is not None and fetch.needed(self, prepared, fnodes, variables):
                ident = fetch.read_id(record)
                out[key] = None
                if ident is not None:
                    PENDING.get().append((fetch, fnodes, out, key, ident, list(path)))
                path.pop()
                continue
            try:
                out[key] = self.complete(prepared, gtype.fields[name].type, fnodes, getters[name](record), path,
                                         variables, errors)
            except _Null:  # a non-null field of this object is null: the object is null (its caller decides further)
                path.pop()
                return None
            path.pop()
        return out


def _read_code(path: str, target: str, root: str, reads: Reads | None) -> list[str]:
    """Statements reading a dotted v2 path (list indexes allowed) from the record `root` into `target`, None when
    absent: from dicts (`reads` None), or from the structs `reads` describes (typed.py: a struct's key is an
    attribute, a list's item an index; below a value read whole, its dicts and lists are read as dicts)."""
    if path == "":
        return [f"{target} = {root}"]
    lines = []
    current = root
    node: Reads | None = reads
    for n, part in enumerate(path.split(".")):
        if node is not None and node.struct() and not part.isdigit():
            lines.append(f"{target} = {root}.{part}" if n == 0 else
                         f"{target} = {current}.{part} if {current} is not None else None")
            node = node.keys[part]
            current = target
            continue
        if node is not None and node.typed() and node.items is not None and part.isdigit():
            lines.append(f"{target} = ({current}[{part}] if len({current}) > {part} else None) if {current} is not None "
                         "else None")
            node = node.items
            current = target
            continue
        node = None
        if part.isdigit():
            lines.append(f"{target} = {current}[{part}] if {current}.__class__ is list and len({current}) > {part} "
                         "else None")
        elif n == 0:
            lines.append(f"{target} = {current}.get({part!r})")
        else:
            lines.append(f"{target} = {current}.get({part!r}) if {current}.__class__ is dict else None")
        current = target
    return lines


class _Emitter:
    """One completer as straight-line Python: the selection's objects inlined into one function per list item
    type (no call per nested object, per non-null check or per leaf), each field read from the v2 record as its
    view says, checked against its type inline. Anything unusual raises _Slow (the exact completion answers it)."""

    def __init__(self, views: Views, prepared: Prepared, variables: Any) -> None:
        self.views = views
        self.prepared = prepared
        self.variables = variables
        self.names: dict[str, Any] = {"_Slow": _Slow}
        self.functions: list[str] = []
        self.count = 0
        self.fetches = False  # the completer leaves nested records to fetch (PENDING)

    def _name(self, prefix: str, value: Any = None) -> str:
        self.count += 1
        name = f"{prefix}{self.count}"
        if value is not None:
            self.names[name] = value
        return name

    def function(self, gtype: Any, nodes: Any, reads: Reads | None) -> Callable[[Any], Any]:
        name = self._function(gtype, nodes, reads)
        exec("\n\n".join(self.functions), self.names)  # noqa: S102 - built here from the mapping's names only
        return self.names[name]

    def _function(self, gtype: Any, nodes: Any, reads: Reads | None) -> str:
        name = self._name("complete")
        lines = [f"def {name}(value):"]
        self.emit(gtype, nodes, reads, "value", lines, "    ")
        lines.append("    return value")
        self.functions.append("\n".join(lines))
        return name

    def emit(self, gtype: Any, nodes: Any, reads: Reads | None, t: str, lines: list[str], pad: str) -> None:
        """Code turning the value in variable `t` into its completed value, in place."""
        if isinstance(gtype, GraphQLNonNull):
            self.emit(gtype.of_type, nodes, reads, t, lines, pad)
            lines += [f"{pad}if {t} is None:", f"{pad}    raise _Slow"]
            return
        if isinstance(gtype, GraphQLList):
            lines += [f"{pad}if {t} is not None:",
                      f"{pad}    if {t}.__class__ is not list:", f"{pad}        raise _Slow"]
            item_type = _strip_non_null(gtype.of_type)
            kind = LEAF_TYPES.get(getattr(item_type, "name", ""))
            if kind is not None and kind is not float:  # items that pass as they are: checked, the list kept
                x = self._name("x")
                test = f"{x}.__class__ is not {kind.__name__}"
                if not isinstance(gtype.of_type, GraphQLNonNull):
                    test = f"{x} is not None and {test}"
                lines += [f"{pad}    for {x} in {t}:", f"{pad}        if {test}:", f"{pad}            raise _Slow"]
                return
            item = self._function(gtype.of_type, nodes, reads.items if reads is not None and reads.typed() else None)
            lines.append(f"{pad}    {t} = [{item}(x) for x in {t}]")
            return
        if isinstance(gtype, GraphQLObjectType):
            lines.append(f"{pad}if {t} is not None:")
            self._object(gtype, nodes, reads if reads is not None and reads.struct() else None, t, lines, pad + "    ")
            return
        self._leaf(gtype, t, lines, pad)

    def _object(self, gtype: GraphQLObjectType, nodes: Any, reads: Reads | None, t: str, lines: list[str],
                pad: str) -> None:
        views = self.views
        record = self._name("r")
        if reads is None:
            lines += [f"{pad}if {t}.__class__ is not dict:", f"{pad}    raise _Slow"]
        lines.append(f"{pad}{record} = {t}")
        out = []
        pending = []
        for out_key, fnodes in views.collect(self.prepared, gtype, nodes, self.variables).items():
            name = fnodes[0].name.value
            v = self._name("v")
            out.append(f"{out_key!r}: {v}")
            if name == "__typename":
                lines.append(f"{pad}{v} = {gtype.name!r}")
                continue
            spec = views.specs[gtype.name][name]
            ftype = gtype.fields[name].type
            fetch = views.fetches.get((gtype.name, name)) if views.fetches else None
            if fetch is not None and fetch.needed(views, self.prepared, fnodes, self.variables):
                # read by its own v2 call once this completion is done (the executor's nested fetches)
                lines.extend(pad + line for line in _read_code(fetch.id, v, record, reads))
                self.fetches = True
                out[-1] = f"{out_key!r}: None"
                pending.append((self._name("p", _Pend(fetch, fnodes)), out_key, v))
                continue
            if spec.none is not None:
                lines.append(f"{pad}{v} = None")
                continue
            if spec.const is not None:
                lines.append(f"{pad}{v} = {self._name('c', spec.const)}")
                if _holds(ftype, spec.const):  # checked here, once
                    continue
            else:
                sources = spec.from_ if isinstance(spec.from_, list) else [spec.from_ or ""]
                indent = pad
                for k, source in enumerate(sources):
                    lines.extend(indent + line for line in _read_code(source, v, record, reads))
                    if k < len(sources) - 1:
                        lines.append(f"{indent}if {v} is None:")
                        indent += "    "
                if spec.values:
                    table = self._name("t", views.m.values[spec.values].backward)
                    lines += [f"{pad}if {v}.__class__ is str:", f"{pad}    {v} = {table}.get({v}, {v})"]
                if spec.convert:
                    lines.append(f"{pad}{v} = {self._name('f', VIEWS[spec.convert])}({v})")
                if spec.fallback is not None:
                    lines += [f"{pad}if {v} is None:", f"{pad}    {v} = {self._name('b', spec.fallback)}"]
            child = None
            if reads is not None and spec.view and not spec.convert and isinstance(spec.from_ or "", str):
                child = reads.find(spec.from_ or "")
            if reads is not None and self._decoded_as_is(spec, ftype, reads):  # msgspec checked its type
                if isinstance(ftype, GraphQLNonNull):
                    lines += [f"{pad}if {v} is None:", f"{pad}    raise _Slow"]
                continue
            self.emit(ftype, fnodes, child, v, lines, pad)
        lines.append(f"{pad}{t} = {{" + ", ".join(out) + "}")
        for pend, out_key, v in pending:
            lines += [f"{pad}if {v} is not None:", f"{pad}    {pend}({t}, {out_key!r}, {v})"]

    @staticmethod
    def _decoded_as_is(spec: GraphQLViewField, ftype: Any, reads: Reads) -> bool:
        """The field's value is one its scalar holds as it is: every source decoded as that scalar by msgspec
        (typed.py `Reads.leaf`), read without a converter or value map, and its fallback of that class too."""
        named = _strip_non_null(ftype)
        kind = LEAF_TYPES.get(getattr(named, "name", ""))
        if kind is None or spec.convert or spec.values or spec.const is not None or spec.none is not None:
            return False
        if spec.fallback is not None and spec.fallback.__class__ is not kind:
            return False
        sources = spec.from_ if isinstance(spec.from_, list) else [spec.from_ or ""]
        return all(source and reads.leaf_at(source) == named.name for source in sources)

    def _leaf(self, gtype: Any, t: str, lines: list[str], pad: str) -> None:
        name = gtype.name
        kind = LEAF_TYPES.get(name)
        if kind is float:  # an integral v2 number is a Float as it is
            lines += [f"{pad}if {t}.__class__ is int:", f"{pad}    {t} = float({t})",
                      f"{pad}elif {t} is not None and {t}.__class__ is not float:", f"{pad}    raise _Slow"]
        elif kind is not None:
            lines += [f"{pad}if {t} is not None and {t}.__class__ is not {kind.__name__}:", f"{pad}    raise _Slow"]
        elif name == "Void":
            lines.append(f"{pad}{t} = None")
        elif isinstance(gtype, GraphQLEnumType):
            names = self._name("e", frozenset(gtype.values))
            lines += [f"{pad}if {t} is not None and ({t}.__class__ is not str or {t} not in {names}):",
                      f"{pad}    raise _Slow"]
        else:  # any other scalar: the exact completion serialises it
            lines.append(f"{pad}raise _Slow")


def _holds(gtype: Any, value: Any) -> bool:
    """A constant its leaf type holds as it is (a plain scalar of that class, or one of its enum's values)."""
    gtype = _strip_non_null(gtype)
    kind = LEAF_TYPES.get(getattr(gtype, "name", ""))
    if kind is not None:
        return value.__class__ is kind
    return isinstance(gtype, GraphQLEnumType) and value.__class__ is str and value in gtype.values


def _strip_non_null(gtype: Any) -> Any:
    return gtype.of_type if isinstance(gtype, GraphQLNonNull) else gtype


def _named_type(gtype: Any) -> Any:
    while hasattr(gtype, "of_type"):
        gtype = gtype.of_type
    return gtype


_NONE = object()


class Fetch:
    """A nested object field whose record, or part of it, only its own v2 call gives (graphql.yaml `fetch`)."""

    def __init__(self, label: str, spec: GraphQLViewField, field_def: Any, specs: dict[str, Any]) -> None:
        fetch = spec.fetch
        assert fetch is not None
        method, path = fetch.v2.split()[:2]
        if method != "GET" or path.count("{id}") != 1 or isinstance(field_def.type, GraphQLNonNull) or not spec.view:
            raise MappingError(f"graphql.yaml views.{label}: fetch must be `GET /v2/...{{id}}` on a nullable "
                               "field with a `view`")
        unknown = set(fetch.needs) - set(specs[spec.view])
        if unknown or not fetch.needs:
            raise MappingError(f"graphql.yaml views.{label}: fetch.needs names no field of {spec.view} "
                               f"({sorted(unknown)})")
        self.label = label
        self.path = path
        self.id = fetch.id
        self.query = fetch.query
        self.needs = frozenset(fetch.needs)
        self.field_def = field_def
        self.type = _named_type(field_def.type)
        self.read_id = _path_getter(fetch.id)

    def call(self, ident: str, args: dict[str, Any]) -> tuple[str, tuple[tuple[str, str], ...]]:
        """The call for one record (path, query): `{id}` filled, `$argument.path` values from the field's arguments."""
        query = []
        for name, value in self.query.items():
            if isinstance(value, str) and value.startswith("$"):
                value = get_path(args, value[1:])
                if value is None:
                    continue
            query.append((name, str(value).lower() if isinstance(value, bool) else str(value)))
        return self.path.replace("{id}", ident), tuple(query)

    def needed(self, views: Views, prepared: Prepared, nodes: Any, variables: Any) -> bool:
        """A field only the call answers is selected (else the record in hand answers them all)."""
        return any(fnodes[0].name.value in self.needs
                   for fnodes in views.collect(prepared, self.type, nodes, variables).values())


# the nested records one completion leaves to fetch: (fetch, field nodes, parent dict, key, id, path or None)
PENDING: ContextVar[list[tuple[Any, ...]]] = ContextVar("v1bridge_graphql_pending")


class _Pend:
    """Called by compiled completers: a nested record to fetch for `out[key]` (its path found if it fails)."""

    __slots__ = ("fetch", "nodes")

    def __init__(self, fetch: Fetch, nodes: Any) -> None:
        self.fetch = fetch
        self.nodes = nodes

    def __call__(self, out: dict[str, Any], key: str, ident: Any) -> None:
        PENDING.get().append((self.fetch, self.nodes, out, key, ident, None))


class _Slow(Exception):
    """The compiled completer met something only the exact completion handles."""



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
