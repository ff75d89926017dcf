"""The GraphQL schema (mappings/data/graphql.graphql) and documents checked against it, once per query text.

A document is parsed by graphql-core with a bound on its tokens, measured (depth through fragments, fields,
aliases, root fields) before validation, so a hostile document costs a bounded amount of work and is refused
before graphql-core's validation rules (some of them quadratic in the fields of one selection) run over it;
then validated by graphql-core's standard rules. The outcome, a prepared document or the errors, is cached per
(query text, operation name): a client that sends the same document again pays for neither.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    OperationType,
    build_schema,
    parse,
    validate,
)

import mappings
from mappings import default_mappings
from mappings.errors import ClientInputError
from mappings.models import GraphQLLimits

DATA = Path(mappings.__file__).resolve().parent / "data"


class GraphQLRequestError(ClientInputError):
    """The request cannot be executed at all (syntax, validation, limits, variables): answered with `errors` only.
    `errors` are GraphQL error objects ({message, locations, extensions: {code}})."""

    def __init__(self, errors: list[dict[str, Any]], status: int = 400) -> None:
        super().__init__("; ".join(e["message"] for e in errors), status=status)
        self.errors = errors


def error_object(message: str, code: str, node: Any = None, path: list[Any] | None = None,
                 **extensions: Any) -> dict[str, Any]:
    """One entry of `errors` in GraphQL's shape."""
    out: dict[str, Any] = {"message": message}
    loc = getattr(node, "loc", None)
    if loc is not None and loc.source is not None:
        where = loc.source.get_location(loc.start)
        out["locations"] = [{"line": where.line, "column": where.column}]
    if path is not None:
        out["path"] = path
    out["extensions"] = {"code": code, **{k: v for k, v in extensions.items() if v is not None}}
    return out


def _from_graphql_error(error: GraphQLError, code: str) -> dict[str, Any]:
    out: dict[str, Any] = {"message": error.message}
    if error.locations:
        out["locations"] = [{"line": loc.line, "column": loc.column} for loc in error.locations]
    out["extensions"] = {"code": code}
    return out


@lru_cache(maxsize=1)
def schema() -> GraphQLSchema:
    """The provider's schema as far as clients use it (graphql.yaml `schema`)."""
    name = default_mappings().graphql.schema_file or "graphql.graphql"
    return build_schema((DATA / name).read_text(encoding="utf-8"))


@dataclass
class Prepared:
    """A parsed, measured and validated document, with the operation to run."""

    document: DocumentNode
    operation: OperationDefinitionNode
    fragments: dict[str, FragmentDefinitionNode]
    kind: str  # query | mutation
    has_directives: bool
    # field collections per (selection nodes, type): filled as the document runs (only without directives)
    collected: dict[Any, Any] = field(default_factory=dict)


class Documents:
    """Prepared documents per (query text, operation name), least recently used dropped past `limits.cache`."""

    def __init__(self, limits: GraphQLLimits, max_bytes: int) -> None:
        self.limits = limits
        self.max_bytes = max_bytes
        self.schema = schema()
        self._cache: OrderedDict[tuple[str, str | None], Prepared | GraphQLRequestError] = OrderedDict()

    def prepare(self, query: str, operation_name: str | None) -> Prepared:
        key = (query, operation_name)
        found = self._cache.get(key)
        if found is None:
            try:
                found = self._prepare(query, operation_name)
            except GraphQLRequestError as exc:
                found = exc
            self._cache[key] = found
            if len(self._cache) > self.limits.cache:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        if isinstance(found, GraphQLRequestError):
            raise found
        return found

    def _prepare(self, query: str, operation_name: str | None) -> Prepared:
        limits = self.limits
        if len(query) > limits.query_bytes:
            raise GraphQLRequestError([error_object(
                f"the query is {len(query)} characters long; at most {limits.query_bytes} are served",
                "QUERY_TOO_LARGE")])
        nesting = _nesting(query)
        if nesting > limits.depth * 3:  # graphql-core's parser recurses per level: refuse before it does
            raise GraphQLRequestError([error_object(
                f"the document is nested {nesting} levels deep; at most {limits.depth} levels of fields are served",
                "QUERY_TOO_COMPLEX")])
        try:
            document = parse(query, max_tokens=limits.tokens)
        except RecursionError:
            raise GraphQLRequestError([error_object("the document is nested too deeply to parse",
                                                    "QUERY_TOO_COMPLEX")]) from None
        except GraphQLError as exc:
            code = "GRAPHQL_PARSE_FAILED"
            if "token limit" in exc.message.lower() or "tokens" in exc.message.lower():
                raise GraphQLRequestError([_from_graphql_error(exc, "QUERY_TOO_LARGE")]) from None
            raise GraphQLRequestError([_from_graphql_error(exc, code)]) from None
        operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
        fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
        measure(document, fragments, limits)
        errors = validate(self.schema, document, max_errors=20)
        if errors:
            raise GraphQLRequestError([_from_graphql_error(e, "GRAPHQL_VALIDATION_FAILED") for e in errors])
        if operation_name is None:
            if len(operations) != 1:
                raise GraphQLRequestError([error_object(
                    "the document holds several operations: name the one to run in operationName",
                    "BAD_REQUEST")])
            operation = operations[0]
        else:
            named = [o for o in operations if o.name is not None and o.name.value == operation_name]
            if not named:
                raise GraphQLRequestError([error_object(f"no operation named {operation_name!r} in the document",
                                                        "BAD_REQUEST")])
            operation = named[0]
        if operation.operation == OperationType.SUBSCRIPTION:
            raise GraphQLRequestError([error_object("subscriptions are not served", "BAD_REQUEST", operation)])
        return Prepared(document, operation, fragments, operation.operation.value,
                        has_directives="@" in query)


_OPEN = {"{": 1, "(": 1, "[": 1, "}": -1, ")": -1, "]": -1}


def _nesting(query: str) -> int:
    """The deepest nesting of braces, parentheses and brackets outside strings and comments (a linear scan)."""
    deepest = level = 0
    in_string = in_comment = False
    i, n = 0, len(query)
    while i < n:
        c = query[i]
        if in_comment:
            in_comment = c not in "\r\n"
        elif in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "#":
            in_comment = True
        else:
            step = _OPEN.get(c)
            if step is not None:
                level += step
                if level > deepest:
                    deepest = level
        i += 1
    return deepest


def measure(document: DocumentNode, fragments: dict[str, FragmentDefinitionNode], limits: GraphQLLimits) -> None:
    """Refuse a document past the limits before validation: depth (through fragments), fields, aliases, root
    fields. Iterative, and each fragment's depth is computed once (a cycle is left to validation to name)."""
    fields = aliases = 0
    problems: list[dict[str, Any]] = []
    depth_of: dict[str, int] = {}

    def depth(selection_set: Any, visiting: frozenset[str]) -> int:
        # the deepest chain of fields below this selection set; fragments expanded once each
        best = 0
        stack = [(selection_set, 1)]
        while stack:
            current, level = stack.pop()
            for sel in current.selections:
                if isinstance(sel, FieldNode):
                    best = max(best, level)
                    if sel.selection_set is not None:
                        stack.append((sel.selection_set, level + 1))
                elif isinstance(sel, InlineFragmentNode):
                    stack.append((sel.selection_set, level))
                elif isinstance(sel, FragmentSpreadNode):
                    name = sel.name.value
                    if name in visiting or name not in fragments:
                        continue
                    if name not in depth_of:
                        depth_of[name] = depth(fragments[name].selection_set, visiting | {name})
                    best = max(best, level - 1 + depth_of[name])
            if best > limits.depth:
                return best
        return best

    stack: list[Any] = [d.selection_set for d in document.definitions if hasattr(d, "selection_set")]
    while stack:
        current = stack.pop()
        for sel in current.selections:
            if isinstance(sel, FieldNode):
                fields += 1
                aliases += sel.alias is not None
            if getattr(sel, "selection_set", None) is not None:
                stack.append(sel.selection_set)
        if fields > limits.fields:
            break
    if fields > limits.fields:
        problems.append(error_object(f"the document selects more than {limits.fields} fields", "QUERY_TOO_COMPLEX"))
    if aliases > limits.aliases:
        problems.append(error_object(f"the document uses {aliases} aliases; at most {limits.aliases} are served",
                                     "QUERY_TOO_COMPLEX"))
    if not problems:
        for definition in document.definitions:
            if isinstance(definition, OperationDefinitionNode):
                roots = len(definition.selection_set.selections)
                if roots > limits.root_fields:
                    problems.append(error_object(
                        f"the operation selects {roots} root fields; at most {limits.root_fields} are served",
                        "QUERY_TOO_COMPLEX", definition))
                deepest = depth(definition.selection_set, frozenset())
                if deepest > limits.depth:
                    problems.append(error_object(
                        f"the document is nested deeper than {limits.depth} levels", "QUERY_TOO_COMPLEX", definition))
    if problems:
        raise GraphQLRequestError(problems)
