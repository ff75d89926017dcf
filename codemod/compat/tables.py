"""The mapping data as the plain Python tables the compat module runs on.

Each table is cut from one file of `mappings/data/` (and the page sizes from v2.json), keeping the data's
own names, so a reader can put a table of the module next to its YAML. v2 paths are written relative to the
v2 base (`/pods/{id}/action`, not `/v2/pods/{id}/action`): the rewrite moves the client's base to `.../v2`,
and the module sends its paths through the client's own call on that base.
"""
from __future__ import annotations

import pprint
from typing import Any

from mappings.index import paginated_lists
from mappings.loader import Mappings, load_schema

WIDTH = 116


def _relative(path: str, prefix: str) -> str:
    return path[len(prefix):] if path == prefix or path.startswith(prefix + "/") else path


def _dump(model: Any, *, exclude: set[str] | None = None) -> dict[str, Any]:
    """A model as the data file spells it (aliases, no defaults, no prose notes)."""
    return model.model_dump(mode="json", by_alias=True, exclude_defaults=True, exclude={"note", *(exclude or ())})


def operations(m: Mappings) -> list[dict[str, Any]]:
    prefix = m.conventions.v2_prefix
    table = []
    for op in m.operations:
        row: dict[str, Any] = {"id": op.id, "v1": [op.v1.method, op.v1.path], "policy": op.policy}
        if op.v2 is not None:
            row["v2"] = [op.v2.method, _relative(op.v2.path, prefix)]
            if op.v2.body:
                row["body"] = op.v2.body
        for name in ("resource", "request", "response", "query", "emulation"):
            value = getattr(op, name)
            if value:
                row[name] = value
        row["shape"] = op.shape
        row["v1_status"] = op.v1_status
        if op.path_params:
            row["path_params"] = op.path_params
        if op.steps:
            row["steps"] = op.steps
        if op.settle is not None:
            row["settle"] = _dump(op.settle)
        if op.status is not None and op.status.errors:
            row["status_errors"] = dict(op.status.errors)
        if op.rules:
            row["rules"] = op.rules
        table.append(row)
    return table


def request_maps(m: Mappings) -> dict[str, Any]:
    table = {}
    for key, spec in m.requests.items():
        table[key] = {
            "mode": spec.mode,
            "compute_field": spec.compute_field,
            "compute_default": spec.compute_default,
            "template_field": spec.template_field,
            "fields": {name: _dump(f, exclude={"orders"}) for name, f in spec.fields.items()},
            "constants": {name: _dump(c, exclude={"rule"}) for name, c in spec.constants.items()},
            "composers": list(spec.composers),
            "finalizers": list(spec.finalizers),
        }
    return table


def response_maps(m: Mappings) -> dict[str, Any]:
    table = {}
    for key, spec in m.responses.items():
        fields = {}
        for name, f in spec.fields.items():
            if f.omit:
                continue  # no v2 source: v1 clients never get the key (the rule says why)
            row = _dump(f, exclude={"rule", "convert_if_absent", "omit"})
            if "from" in row:
                row["from"] = f.sources
            fields[name] = row
        table[key] = {"fields": fields, "aliases": dict(spec.aliases),
                      "aggregate": _dump(spec.aggregate) if spec.aggregate else None}
    return table


def _v1_query_enums(m: Mappings) -> dict[str, dict[str, list[str]]]:
    """By query map: the values v1.json allows for each parameter (a v1 grouping drops the other ones)."""
    spec = load_schema("v1")
    found: dict[str, dict[str, list[str]]] = {}
    for op in m.operations:
        if not op.query:
            continue
        operation = spec.get("paths", {}).get(op.v1.path, {}).get(op.v1.method.lower()) or {}
        for param in operation.get("parameters", []):
            if isinstance(param, dict) and param.get("in") == "query":
                schema = param.get("schema") or {}
                enum = schema.get("enum") or (schema.get("items") or {}).get("enum")
                if enum:
                    found.setdefault(op.query, {})[param["name"]] = list(enum)
    return found


def query_maps(m: Mappings) -> dict[str, Any]:
    enums = _v1_query_enums(m)
    table = {}
    for key, spec in m.queries.items():
        params = {}
        for name, p in spec.params.items():
            row = _dump(p, exclude={"rule", "policy"})
            if p.emulated_by and name in enums.get(key, {}):
                row["v1_values"] = enums[key][name]
            params[name] = row
        table[key] = params
    return table


def value_maps(m: Mappings) -> dict[str, Any]:
    return {key: _dump(spec, exclude={"id"}) for key, spec in m.values.items()}


def lookups(m: Mappings) -> dict[str, Any]:
    prefix = m.conventions.v2_prefix
    table = {}
    for name, spec in m.conventions.lookups.items():
        row = _dump(spec)
        row["path"] = _relative(spec.path, prefix)
        table[name] = row
    return table


def fallbacks(m: Mappings) -> dict[str, Any]:
    """By the v2 path a fallback list fills (gpu.id, cpu.id): when to move on, when to wait, how v1 ordered it."""
    table: dict[str, Any] = {}
    for spec in m.requests.values():
        for name, f in spec.fields.items():
            policy = m.policies.get(f.policy) if f.policy else None
            if policy is None or not policy.walk_on or not f.to or f.to in table:
                continue
            row: dict[str, Any] = {
                "v1_field": name,
                "walk_on": [_dump(w, exclude={"meaning"}) for w in policy.walk_on],
                "wait_on": [_dump(w, exclude={"meaning"}) for w in policy.wait_on],
                "order": None,
            }
            for priority, other in spec.fields.items():
                if other.orders is not None and other.orders.field == name:
                    order = _dump(other.orders, exclude={"field"})
                    order["priority_field"] = priority
                    row["order"] = order
            table[f.to] = row
    return table


def conventions(m: Mappings) -> dict[str, Any]:
    conv = m.conventions
    schema = load_schema("v2")
    return {
        "v1_prefix": conv.v1_prefix,
        "v2_prefix": conv.v2_prefix,
        "hosts": {"v1": list(conv.hosts.v1), "v2": list(conv.hosts.v2)},
        "v1_error_key": conv.v1_error_key,
        "v2_error_key": conv.v2_error_key,
        "v2_error_media_type": conv.v2_error_media_type,
        "list_keys": dict(conv.list_keys),
        "neutral_spellings": dict(conv.neutral_spellings),
        "pagination": _dump(conv.pagination, exclude={"rule"}) | {"max_pages": conv.pagination.max_pages},
        "page_limits": {_relative(path, conv.v2_prefix): most
                        for path, most in sorted(paginated_lists(schema, conv.pagination.cursor,
                                                                 conv.pagination.limit).items())},
    }


def converter_names(m: Mappings) -> dict[str, list[str]]:
    """The named conversions the data refers to, by kind (what the module must carry of converters.py)."""
    request, composers, finalizers, factories, response = set(), set(), set(), set(), set()
    for spec in m.requests.values():
        composers.update(spec.composers)
        finalizers.update(spec.finalizers)
        for f in spec.fields.values():
            if f.convert:
                request.add(f.convert)
            if f.default_from:
                factories.add(f.default_from)
    for rspec in m.responses.values():
        response.update(f.convert for f in rspec.fields.values() if f.convert and not f.omit)
    return {"REQUEST_CONVERTERS": sorted(request), "COMPOSERS": sorted(composers),
            "FINALIZERS": sorted(finalizers), "DEFAULT_FACTORIES": sorted(factories),
            "RESPONSE_CONVERTERS": sorted(response)}


TABLES = {
    "OPERATIONS": ("operations.yaml: every v1 route, its v2 route (relative to the v2 base) and how it is served",
                   operations),
    "REQUEST_MAPS": ("requests.yaml: every v1 body field and where it goes in the v2 body", request_maps),
    "RESPONSE_MAPS": ("responses.yaml: every v1 answer field and the v2 field or conversion that yields it",
                      response_maps),
    "QUERY_MAPS": ("queries.yaml: every v1 query parameter and how its meaning is kept", query_maps),
    "VALUE_MAPS": ("values.yaml: enum values between v1 and v2", value_maps),
    "LOOKUPS": ("conventions.yaml lookups: the v2 reads some v1 answers and bodies need", lookups),
    "POLICIES": ("policies.yaml: v1 behaviours v2 dropped; a strict one is refused with its message",
                 lambda m: {key: {"default": p.default, "strict_message": p.strict_message}
                            for key, p in m.policies.items()}),
    "FALLBACKS": ("policies.yaml + requests.yaml: fallback lists (R02): when to try the next choice, when to wait",
                  fallbacks),
    "CONVENTIONS": ("conventions.yaml: facts of the whole API (list keys, pagination, errors)", conventions),
}


def render(m: Mappings) -> str:
    blocks = []
    for name, (what, build) in TABLES.items():
        text = pprint.pformat(build(m), width=WIDTH, sort_dicts=False)
        blocks.append(f"# {what}\n{name} = {text}\n")
    return "\n".join(blocks)
