"""Load and cross-check the mapping data once; every reader shares the result.

A bad mapping must stop the program at start-up with the file and the entry
named, never surface later as a silently untranslated field.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, get_args

import yaml
from pydantic import BaseModel, ValidationError

from mappings import converters
from mappings.models import (
    Conventions,
    GraphQLInventory,
    Operation,
    Policy,
    QueryMap,
    ReadKind,
    RequestMap,
    ResponseMap,
    Rule,
    ValueMap,
)

from mappings.errors import MappingError

DATA_DIR = Path(__file__).parent / "data"
SCHEMA_DIR = Path(__file__).parent / "schemas"


class _UniqueKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """YAML silently keeps the last of two equal keys; a mapping must not.

    libyaml's parser when PyYAML has it: the pure-Python one took a third of every command's start-up."""


def _construct_unique_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise MappingError(f"line {key_node.start_mark.line + 1}: duplicate key {key!r}")
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_unique_mapping)


@dataclass(frozen=True)
class CompiledRoute:
    """A v1 path template compiled once, so matching a request is one regex call."""

    operation: Operation
    pattern: re.Pattern[str]
    param_names: tuple[str, ...]


@dataclass
class Mappings:
    """The whole v1 -> v2 knowledge, indexed for the proxy, the rewrite and the audit."""

    conventions: Conventions
    rules: dict[str, Rule]
    policies: dict[str, Policy]
    operations: list[Operation]
    requests: dict[str, RequestMap]
    responses: dict[str, ResponseMap]
    queries: dict[str, QueryMap]
    values: dict[str, ValueMap]
    source_dir: Path
    graphql: GraphQLInventory | None = None
    operations_by_id: dict[str, Operation] = field(default_factory=dict)
    routes: list[CompiledRoute] = field(default_factory=list)
    _v1_names: dict[str, list[tuple[str, tuple[str, ...]]]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.operations_by_id = {op.id: op for op in self.operations}
        self.routes = [compile_route(op) for op in self.operations]

    def match_v1(self, method: str, path: str) -> tuple[Operation, dict[str, str]] | None:
        """The v1 operation for METHOD PATH (path without the /v1 prefix), with its path parameters."""
        method = method.upper()
        for route in self.routes:
            if route.operation.v1.method != method:
                continue
            found = route.pattern.fullmatch(path)
            if found:
                return route.operation, dict(zip(route.param_names, found.groups()))
        return None

    def methods_for_path(self, path: str) -> list[str]:
        return sorted({r.operation.v1.method for r in self.routes if r.pattern.fullmatch(path)})

    def rule(self, rule_id: str) -> Rule:
        return self.rules[rule_id]

    def v1_names(self, map_id: str) -> list[tuple[str, tuple[str, ...]]]:
        """The reverse index of one request map: each v2 path (and every parent of it) -> the v1 fields that
        land there, in mapping order, longest path first. Error messages put v2 names back to v1 names with it:
        `gpu` -> gpuTypeIds, `mounts.network` -> networkVolumeId, `$.image` -> imageName."""
        cached = self._v1_names.get(map_id)
        if cached is not None:
            return cached
        index: dict[str, list[str]] = {}
        for v1_name, spec in self.requests[map_id].fields.items():
            if not spec.to:
                continue
            parts = spec.to.split(".")
            for end in range(len(parts), 0, -1):
                if parts[end - 1].isdigit():
                    continue
                prefix = ".".join(parts[:end])
                for spelling in {prefix, re.sub(r"\.(\d+)(?=\.|$)", r"[\1]", prefix)}:
                    names = index.setdefault(spelling, [])
                    if v1_name not in names:
                        names.append(v1_name)
        result = sorted(((k, tuple(v)) for k, v in index.items()), key=lambda item: -len(item[0]))
        self._v1_names[map_id] = result
        return result

    def list_key(self, resource: str) -> str:
        return self.conventions.list_keys[resource]


_PARAM = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def compile_route(operation: Operation) -> CompiledRoute:
    names: list[str] = []

    def _group(found: re.Match[str]) -> str:
        names.append(found.group(1))
        return "([^/]+)"

    escaped = re.escape(operation.v1.path).replace(r"\{", "{").replace(r"\}", "}")
    return CompiledRoute(operation, re.compile(_PARAM.sub(_group, escaped)), tuple(names))


def _read_yaml(path: Path) -> Any:
    try:
        with path.open(encoding="utf-8") as handle:
            return yaml.load(handle, Loader=_UniqueKeyLoader)  # noqa: S506 - a safe loader's subclass
    except MappingError as exc:
        raise MappingError(f"{path.name}: {exc}") from None
    except yaml.YAMLError as exc:
        raise MappingError(f"{path.name}: not valid YAML: {exc}") from None


def _entry_label(entry: Any, index: int) -> str:
    if isinstance(entry, dict) and "id" in entry:
        return f"entry {entry['id']!r}"
    return f"entry #{index + 1}"


def _parse_list(path: Path, model: type[BaseModel]) -> list[Any]:
    raw = _read_yaml(path)
    if not isinstance(raw, list):
        raise MappingError(f"{path.name}: expected a list of entries")
    parsed = []
    for index, entry in enumerate(raw):
        try:
            parsed.append(model.model_validate(entry))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(entry)'}: {err['msg']}" for err in exc.errors()
            )
            raise MappingError(f"{path.name}: {_entry_label(entry, index)}: {problems}") from None
    return parsed


def _index(path: Path, entries: Iterable[Any]) -> dict[str, Any]:
    indexed: dict[str, Any] = {}
    for entry in entries:
        if entry.id in indexed:
            raise MappingError(f"{path.name}: duplicate id {entry.id!r}")
        indexed[entry.id] = entry
    return indexed


def load(data_dir: Path | str = DATA_DIR) -> Mappings:
    """Read, validate and cross-check every mapping file in `data_dir`."""
    data_dir = Path(data_dir)
    try:
        conventions = Conventions.model_validate(_read_yaml(data_dir / "conventions.yaml"))
    except ValidationError as exc:
        raise MappingError(f"conventions.yaml: {exc}") from None
    files = {
        "rules": (data_dir / "rules.yaml", Rule),
        "policies": (data_dir / "policies.yaml", Policy),
        "operations": (data_dir / "operations.yaml", Operation),
        "requests": (data_dir / "requests.yaml", RequestMap),
        "responses": (data_dir / "responses.yaml", ResponseMap),
        "queries": (data_dir / "queries.yaml", QueryMap),
        "values": (data_dir / "values.yaml", ValueMap),
    }
    loaded = {name: _index(path, _parse_list(path, model)) for name, (path, model) in files.items()}
    graphql = _load_graphql(data_dir / "graphql.yaml")
    for rule in graphql.rules():
        if rule.id in loaded["rules"]:
            raise MappingError(f"graphql.yaml: rule id {rule.id!r} is also in rules.yaml")
        loaded["rules"][rule.id] = rule
    mappings = Mappings(
        conventions=conventions,
        rules=loaded["rules"],
        policies=loaded["policies"],
        operations=list(loaded["operations"].values()),
        requests=loaded["requests"],
        responses=loaded["responses"],
        queries=loaded["queries"],
        values=loaded["values"],
        source_dir=data_dir,
        graphql=graphql,
    )
    _cross_check(mappings)
    return mappings


def _load_graphql(path: Path) -> GraphQLInventory:
    """graphql.yaml: the GraphQL operations and their v2 routes; every v2 route must be in v2.json."""
    try:
        inventory = GraphQLInventory.model_validate(_read_yaml(path))
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors())
        raise MappingError(f"graphql.yaml: {problems}") from None
    paths = load_schema("v2").get("paths", {})
    seen: set[str] = set()
    for op in inventory.operations:
        if op.id in seen or op.id == inventory.endpoint.id:
            raise MappingError(f"graphql.yaml: duplicate id {op.id!r}")
        seen.add(op.id)
        route = op.v2_route
        if route and route[0].lower() not in paths.get(route[1], {}):
            raise MappingError(f"graphql.yaml: entry {op.id!r}: {op.v2!r} is not a v2.json operation")
    return inventory


def _v2_success(op: Operation) -> int | None:
    """The lowest 2xx v2.json documents for the operation's v2 target (None: local, gone, or not in v2.json)."""
    if op.v2 is None or op.policy in ("local", "gone"):
        return None
    operation = load_schema("v2").get("paths", {}).get(op.v2.path, {}).get(op.v2.method.lower()) or {}
    codes = sorted(int(c) for c in operation.get("responses", {}) if c.isdigit() and c.startswith("2"))
    return codes[0] if codes else None


def _cross_check(m: Mappings) -> None:
    """Every name one file uses must be defined in another."""
    problems: list[str] = []

    def need(kind: str, name: str | None, known: Iterable[str], where: str) -> None:
        if name is not None and name not in known:
            problems.append(f"{where}: unknown {kind} {name!r}")

    for policy in m.policies.values():
        need("rule", policy.rule, m.rules, f"policies.yaml: entry {policy.id!r}")
    read_owners: dict[str, list[str]] = {kind: [] for kind in get_args(ReadKind)}
    for rule in m.rules.values():
        for kind in rule.rewrite.reads if rule.rewrite is not None else ():
            read_owners[kind].append(rule.id)
    for kind, owners in read_owners.items():
        if len(owners) != 1:
            problems.append(f"rules.yaml: the {kind} reads of an answer are planned by {' and '.join(owners) or 'no rule'}"
                            " (rewrite.reads: exactly one rule)")
    for rule in m.rules.values():
        by = rule.rewrite.by if rule.rewrite is not None else None
        need("rule", by, m.rules, f"rules.yaml: entry {rule.id!r}: rewrite")
        if by in m.rules and (m.rules[by].rewrite is None or m.rules[by].rewrite.module is None):
            problems.append(f"rules.yaml: entry {rule.id!r}: rewrite by {by!r}, a rule without a module of its own")
    need("rule", m.conventions.pagination.rule, m.rules, "conventions.yaml: pagination")
    seen_routes: set[tuple[str, str]] = set()
    for op in m.operations:
        where = f"operations.yaml: entry {op.id!r}"
        key = (op.v1.method, op.v1.path)
        if key in seen_routes:
            problems.append(f"{where}: duplicate v1 route {op.v1.method} {op.v1.path}")
        seen_routes.add(key)
        for rule_id in op.rules:
            need("rule", rule_id, m.rules, where)
        need("policy", op.emulation, m.policies, where)
        need("request map", op.request, m.requests, where)
        need("response map", op.response, m.responses, where)
        need("query map", op.query, m.queries, where)
        for step in op.steps:
            need("operation (step)", step, {o.id for o in m.operations}, where)
        if op.policy in ("translate", "local") and op.v2 is None:
            problems.append(f"{where}: policy {op.policy!r} needs a v2 target")
        if op.policy == "emulate" and op.emulation is None:
            problems.append(f"{where}: policy 'emulate' needs an emulation")
        if op.status is not None:
            need("policy", op.status.policy, m.policies, where)
        v2_success = _v2_success(op)
        if v2_success is not None and v2_success != op.v1_status and op.status is None:
            problems.append(f"{where}: v1 answered {op.v1_status} where v2 answers {v2_success}; "
                            "name the policy under `status`")
        if op.resource is not None and op.shape == "list":
            need("list key for resource", op.resource, m.conventions.list_keys, where)
        for v1_name, v2_name in op.path_params.items():
            if "{" + v1_name + "}" not in op.v1.path:
                problems.append(f"{where}: path parameter {v1_name!r} is not in {op.v1.path}")
            if op.v2 and "{" + v2_name + "}" not in op.v2.path:
                problems.append(f"{where}: path parameter {v2_name!r} is not in {op.v2.path}")
    for request in m.requests.values():
        for name, spec in request.fields.items():
            where = f"requests.yaml: entry {request.id!r}: field {name!r}"
            need("rule", spec.rule, m.rules, where)
            need("policy", spec.policy, m.policies, where)
            need("converter", spec.convert, converters.REQUEST_CONVERTERS, where)
            need("composer", spec.compose, converters.COMPOSERS, where)
            need("default factory", spec.default_from, converters.DEFAULT_FACTORIES, where)
            need("policy", spec.default_policy, m.policies, where)
            if (spec.template_provides or spec.default_policy) and not spec.has_default:
                problems.append(f"{where}: template_provides and default_policy qualify a default; the field has none")
            if spec.template_provides and request.template_field is None:
                problems.append(f"{where}: template_provides needs the entry's template_field")
            if spec.compose and spec.compose not in request.composers:
                problems.append(f"{where}: composer {spec.compose!r} is not listed in the entry's composers")
            if spec.orders is not None:
                need("ordered field", spec.orders.field, request.fields, where)
                need("lookup", spec.orders.by, m.conventions.lookups, where)
                if spec.orders.field in request.fields and request.fields[spec.orders.field].to is None:
                    problems.append(f"{where}: the ordered field {spec.orders.field!r} has no v2 target")
            if spec.to is None and spec.rule is None and not spec.selects:
                problems.append(f"{where}: a dropped field needs the rule that explains it")
        if request.template_field is not None:
            need("template field", request.template_field, request.fields, f"requests.yaml: entry {request.id!r}")
        for name in request.composers:
            need("composer", name, converters.COMPOSERS, f"requests.yaml: entry {request.id!r}")
        for name in request.finalizers:
            need("finalizer", name, converters.FINALIZERS, f"requests.yaml: entry {request.id!r}")
        for name, const in request.constants.items():
            where = f"requests.yaml: entry {request.id!r}: constant {name!r}"
            need("rule", const.rule, m.rules, where)
            need("policy", const.policy, m.policies, where)
    for response in m.responses.values():
        for name, spec in response.fields.items():
            where = f"responses.yaml: entry {response.id!r}: field {name!r}"
            need("rule", spec.rule, m.rules, where)
            need("value map", spec.values, m.values, where)
            need("response converter", spec.convert, converters.RESPONSE_CONVERTERS, where)
            if spec.convert in converters.RESPONSE_CONVERTERS and spec.convert not in converters.RESPONSE_READS:
                problems.append(f"{where}: converter {spec.convert!r} does not declare what it reads (RESPONSE_READS)")
            sources = sum([spec.source is not None or spec.convert is not None, spec.has_const, spec.omit])
            if sources != 1:
                problems.append(f"{where}: needs exactly one of from/convert, const or omit")
            if spec.omit and spec.rule is None:
                problems.append(f"{where}: an omitted field needs the rule that explains it")
        for alias, target in response.aliases.items():
            if target not in response.fields:
                problems.append(f"responses.yaml: entry {response.id!r}: alias {alias!r} targets unknown {target!r}")
    for query in m.queries.values():
        need("policy", query.policy, m.policies, f"queries.yaml: entry {query.id!r}")
        for name, spec in query.params.items():
            where = f"queries.yaml: entry {query.id!r}: param {name!r}"
            need("policy", spec.policy, m.policies, where)
            need("rule", spec.rule, m.rules, where)
            need("value map", spec.values, m.values, where)
            if spec.native is not None:
                need("rule", spec.native.rule, m.rules, f"{where}: native")
                if spec.native.rule in m.rules and not m.rules[spec.native.rule].fixable:
                    problems.append(f"{where}: native: rule {spec.native.rule!r} drops the parameter, so it must be "
                                    "fixable")
            if not (spec.to or spec.filter or spec.expand or spec.emulated_by):
                problems.append(f"{where}: needs one of to, filter, expand or emulated_by")
            if spec.filter and spec.filter != "compute_type" and not spec.field:
                problems.append(f"{where}: filter {spec.filter!r} needs a field")
    if problems:
        raise MappingError("invalid mappings:\n  " + "\n  ".join(problems))


@functools.cache
def default_mappings() -> Mappings:
    """The packaged mappings, loaded once per process."""
    return load(DATA_DIR)


@functools.cache
def load_schema(version: str) -> dict[str, Any]:
    """The packaged OpenAPI document for 'v1' or 'v2'."""
    import json

    if version not in ("v1", "v2"):
        raise ValueError(f"unknown API version {version!r}")
    with (SCHEMA_DIR / f"{version}.json").open(encoding="utf-8") as handle:
        return json.load(handle)
