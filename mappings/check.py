"""`v1bridge mappings check`: does a v2 OpenAPI document still carry what the mapping depends on?

The v2 contract has changed without a version bump (both the August and the current document say
`info.version: 2.0.0`), so documents are compared by content, never by version. Every mapping entry is
turned into the schema elements it depends on (an operation, a parameter, a request or response field
with its type, enum, bounds and required flag, a list envelope key, the pagination block); each element
is fingerprinted in the document the mapping was built on (`mappings/schemas/v2.json`) and in the other
one. An entry whose elements are missing or fingerprint differently is reported with its rule IDs. Prose
(`description`, `summary`, examples, `x-*`) never counts.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from mappings.converters import RESPONSE_READS
from mappings.errors import UsageError
from mappings.loader import Mappings

# keys of a schema that are contract (prose and code-generation hints are not)
_CONTRACT = ("type", "enum", "const", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
             "minLength", "maxLength", "pattern", "minItems", "maxItems", "minProperties", "default", "nullable")
_HTTP = ("get", "put", "post", "patch", "delete")


class SchemaError(UsageError):
    """The document is not an OpenAPI document this check can read."""


@dataclass(frozen=True)
class Dependency:
    """One schema element a mapping entry relies on."""

    kind: str  # operation | parameter | field | list-key | request-schema | status
    where: str  # human label: "GET /v2/pods parameter 'cursor'", "CreatePodRequest.cmd"
    locate: tuple  # how to find it (resolved by _fingerprint)


@dataclass
class Finding:
    file: str
    entry: str
    field: str | None
    rules: list[str]
    target: str
    change: str  # missing | changed | added
    old: Any = None
    new: Any = None

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "entry": self.entry, "field": self.field, "rules": self.rules,
                "target": self.target, "change": self.change, "old": self.old, "new": self.new}

    def text(self) -> str:
        name = f"{self.entry}.{self.field}" if self.field else self.entry
        rules = f" [{', '.join(self.rules)}]" if self.rules else ""
        if self.change == "missing":
            what = f"{self.target} is missing"
        elif self.change == "added":
            what = f"{self.target} appeared (the mapping was built without it): {_short(self.new)}"
        else:
            what = f"{self.target} changed: {_short(self.old)} -> {_short(self.new)}"
        return f"{self.file}: {name}{rules}: {what}"


@dataclass
class Report:
    base: str
    candidate: str
    findings: list[Finding] = field(default_factory=list)
    checked: int = 0  # dependencies compared

    @property
    def changed(self) -> bool:
        return bool(self.findings)

    def as_dict(self) -> dict[str, Any]:
        return {"schema": "v1bridge.mappings.check/1", "base": self.base, "candidate": self.candidate,
                "checked": self.checked, "changed": self.changed,
                "entries": len({(f.file, f.entry, f.field) for f in self.findings}),
                "findings": [f.as_dict() for f in self.findings]}


def _short(value: Any) -> str:
    import json

    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return text if len(text) <= 160 else text[:157] + "..."


# ------------------------------------------------------------------ documents


class Document:
    """An OpenAPI document with $ref resolution and merged (allOf) object views."""

    def __init__(self, raw: Any) -> None:
        if not isinstance(raw, dict) or not isinstance(raw.get("paths"), dict) or "openapi" not in raw:
            raise SchemaError("not an OpenAPI document (no 'openapi' and 'paths')")
        self.raw = raw

    def deref(self, node: Any) -> Any:
        seen = 0
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            if not isinstance(ref, str) or not ref.startswith("#/"):
                raise SchemaError(f"unsupported $ref {ref!r}")
            target: Any = self.raw
            for part in ref[2:].split("/"):
                part = part.replace("~1", "/").replace("~0", "~")
                if not isinstance(target, dict) or part not in target:
                    return None
                target = target[part]
            node = target
            seen += 1
            if seen > 64:
                raise SchemaError(f"$ref cycle at {ref!r}")
        return node

    def merged(self, schema: Any, depth: int = 0) -> tuple[dict[str, Any], set[str], bool]:
        """(properties, required names, closed) of an object schema, allOf merged, oneOf/anyOf unioned."""
        schema = self.deref(schema)
        if not isinstance(schema, dict) or depth > 32:
            return {}, set(), False
        props = dict(schema.get("properties") or {})
        required = set(schema.get("required") or [])
        closed = schema.get("additionalProperties") is False or schema.get("unevaluatedProperties") is False
        for sub in schema.get("allOf") or []:
            p, r, c = self.merged(sub, depth + 1)
            for name, value in p.items():
                props.setdefault(name, value)
            required |= r
            closed = closed or c
        for key in ("oneOf", "anyOf"):
            for sub in schema.get(key) or []:
                p, _, _ = self.merged(sub, depth + 1)
                for name, value in p.items():
                    props.setdefault(name, value)
        return props, required, closed

    def items(self, schema: Any) -> Any:
        schema = self.deref(schema)
        if not isinstance(schema, dict):
            return None
        if "items" in schema:
            return schema["items"]
        for sub in schema.get("allOf") or []:
            found = self.items(sub)
            if found is not None:
                return found
        return None

    def operation(self, method: str, path: str) -> dict[str, Any] | None:
        item = self.raw["paths"].get(path)
        if not isinstance(item, dict):
            return None
        op = item.get(method.lower())
        return op if isinstance(op, dict) else None

    def parameter(self, method: str, path: str, name: str) -> dict[str, Any] | None:
        item = self.raw["paths"].get(path) or {}
        op = self.operation(method, path) or {}
        for param in list(item.get("parameters") or []) + list(op.get("parameters") or []):
            param = self.deref(param)
            if isinstance(param, dict) and param.get("name") == name and param.get("in") == "query":
                return param
        return None

    def component(self, name: str) -> Any:
        return (self.raw.get("components") or {}).get("schemas", {}).get(name)

    def response_schema(self, method: str, path: str) -> Any:
        op = self.operation(method, path) or {}
        responses = op.get("responses") or {}
        for code in sorted(c for c in responses if str(c).startswith("2")):
            content = (self.deref(responses[code]) or {}).get("content") or {}
            for media, body in content.items():
                if "json" in media and isinstance(body, dict):
                    return body.get("schema")
        return None

    def walk(self, schema: Any, path: str) -> tuple[Any, bool | None]:
        """The schema at a dotted path (`.0.` or an array on the way: its items), and whether it is required."""
        node, required = schema, None
        for part in path.split("."):
            node = self.deref(node)
            if part.isdigit():
                node = self.items(node)
                if node is None:
                    return None, None
                continue
            if isinstance(node, dict) and (node.get("type") == "array" or "items" in node):
                node = self.items(node)
            props, req, _ = self.merged(node)
            if part not in props:
                return None, None
            required = part in req
            node = props[part]
        return node, required

    def fingerprint(self, schema: Any, depth: int = 0) -> Any:
        """The contract of a schema: type, enum, bounds, format, default; items and object shape, no prose."""
        schema = self.deref(schema)
        if not isinstance(schema, dict):
            return None
        out: dict[str, Any] = {}
        for sub in [schema, *(self.deref(s) for s in schema.get("allOf") or [])]:
            if not isinstance(sub, dict):
                continue
            for key in _CONTRACT:
                if key in sub and key not in out:
                    value = sub[key]
                    out[key] = sorted(value, key=str) if key in ("enum", "type") and isinstance(value, list) else value
        for key in ("oneOf", "anyOf"):
            if schema.get(key) and depth < 3:
                out[key] = sorted((self.fingerprint(s, depth + 1) for s in schema[key]), key=str)
        items = self.items(schema)
        if items is not None and depth < 3:
            out["items"] = self.fingerprint(items, depth + 1)
        props, required, closed = self.merged(schema)
        if props and depth < 2:
            out["properties"] = {name: self.fingerprint(value, depth + 1) for name, value in sorted(props.items())}
            out["required"] = sorted(required)
        elif props:
            out["properties"] = sorted(props)
        if closed:
            out["closed"] = True
        return out


# ---------------------------------------------------------------- dependencies


def _resolve(doc: Document, dep: Dependency) -> Any:
    """The fingerprint of a dependency in one document; None when it is missing."""
    kind, locate = dep.kind, dep.locate
    if kind == "operation":
        return {"exists": True} if doc.operation(*locate) is not None else None
    if kind == "status":
        op = doc.operation(*locate)
        if op is None:
            return None
        return sorted(c for c in (op.get("responses") or {}) if str(c).startswith("2"))
    if kind == "parameter":
        method, path, name = locate
        if doc.operation(method, path) is None:
            return None
        param = doc.parameter(method, path, name)
        if param is None:
            return None
        return {"required": bool(param.get("required")), "style": param.get("style"), "explode": param.get("explode"),
                "schema": doc.fingerprint(param.get("schema"))}
    if kind == "list-key":  # the envelope key itself; the fields of its items are the response maps' business
        method, path, key = locate
        schema, required = doc.walk(doc.response_schema(method, path), key)
        if schema is None:
            return None
        shape = doc.fingerprint(schema) if "." in key else {k: v for k, v in doc.fingerprint(schema).items()
                                                            if k in ("type", "required")}
        if "." not in key and "properties" in (doc.fingerprint(schema) or {}):
            shape["properties"] = sorted(doc.merged(schema)[0])  # the block's own keys (pagination)
        return {"required": required, "schema": shape}
    if kind == "field":
        source, path = locate  # ("schema", name) or ("response", method, path)
        root = doc.component(source[1]) if source[0] == "schema" else doc.response_schema(*source[1:])
        if root is None:
            return None
        schema, required = doc.walk(root, path)
        return None if schema is None else {"required": required, "schema": doc.fingerprint(schema)}
    if kind == "request-schema":
        (name,) = locate
        root = doc.component(name)
        if root is None:
            return None
        props, required, closed = doc.merged(root)
        return {"required": sorted(required), "closed": closed, "exists": True}
    raise ValueError(kind)  # pragma: no cover


@dataclass
class _Entry:
    file: str
    entry: str
    field: str | None
    rules: list[str]
    deps: list[Dependency]


def _entries(m: Mappings, base: Document) -> Iterator[_Entry]:
    """Every mapping entry with the schema elements it depends on."""
    conv = m.conventions
    pag = conv.pagination
    pag_rules = [pag.rule] if pag.rule else []

    def list_deps(method: str, path: str, key: str | None) -> list[Dependency]:
        deps = [
            Dependency("parameter", f"{method} {path} parameter {pag.cursor!r}", (method, path, pag.cursor)),
            Dependency("parameter", f"{method} {path} parameter {pag.limit!r}", (method, path, pag.limit)),
            Dependency("list-key", f"{method} {path} response field {pag.block!r}", (method, path, pag.block)),
        ]
        if key:
            deps.append(Dependency("list-key", f"{method} {path} response field {key!r}", (method, path, key)))
        return deps

    for op in m.operations:
        if op.v2 is None or op.policy in ("local", "gone"):
            continue
        method, path = op.v2.method, op.v2.path
        deps = [Dependency("operation", f"{method} {path}", (method, path)),
                Dependency("status", f"{method} {path} success statuses", (method, path))]
        rules = list(op.rules)
        if op.shape == "list" and op.resource:
            deps += list_deps(method, path, conv.list_keys.get(op.resource))
            rules += [r for r in pag_rules if r not in rules]
        if op.shape == "billing" and op.resource:
            key = conv.list_keys.get(op.resource)
            deps.append(Dependency("list-key", f"{method} {path} response field {key!r}", (method, path, key)))
        if op.query:
            for name, spec in m.queries[op.query].params.items():
                if spec.to:
                    deps.append(Dependency("parameter", f"{method} {path} parameter {spec.to!r}", (method, path, spec.to)))
        if op.v2.body:
            body_schema = (((base.operation(method, path) or {}).get("requestBody") or {}).get("content") or {})
            ref = (body_schema.get("application/json") or {}).get("schema") or {}
            name = ref.get("$ref", "").rsplit("/", 1)[-1]
            for key in op.v2.body:
                if name:
                    deps.append(Dependency("field", f"{name}.{key}", (("schema", name), key)))
        yield _Entry("operations.yaml", op.id, None, rules, deps)
    for request in m.requests.values():
        schema = request.v2_schema
        yield _Entry("requests.yaml", request.id, None, [],
                     [Dependency("request-schema", f"{schema} (required fields, closed)", (schema,))])
        for name, spec in request.fields.items():
            if spec.to is None:
                continue
            yield _Entry("requests.yaml", request.id, name, [spec.rule] if spec.rule else [],
                         [Dependency("field", f"{schema}.{spec.to}", (("schema", schema), spec.to))])
        for name, const in request.constants.items():
            yield _Entry("requests.yaml", request.id, name, [const.rule] if const.rule else [],
                         [Dependency("field", f"{schema}.{name}", (("schema", schema), name))])
    for response in m.responses.values():
        schema = response.v2_schema
        for name, spec in response.fields.items():
            paths = list(spec.sources) + list(RESPONSE_READS.get(spec.convert or "", ()))
            if not paths:
                continue
            yield _Entry("responses.yaml", response.id, name, [spec.rule] if spec.rule else [],
                         [Dependency("field", f"{schema}.{p}", (("schema", schema), p)) for p in dict.fromkeys(paths)])
    lookup_rules: dict[str, list[str]] = {}
    for qmap in m.queries.values():
        for spec in qmap.params.values():
            for name in spec.expand:
                if spec.rule and spec.rule not in lookup_rules.setdefault(name, []):
                    lookup_rules[name].append(spec.rule)
    for name, spec in conv.lookups.items():
        path = spec.path
        deps = [Dependency("operation", f"GET {path}", ("GET", path))]
        for param in spec.query:
            deps.append(Dependency("parameter", f"GET {path} parameter {param!r}", ("GET", path, param)))
        if not spec.ids_from:  # a whole-list read: a list that starts (or stops) paging matters
            deps += list_deps("GET", path, spec.key)
        elif spec.key:
            deps.append(Dependency("list-key", f"GET {path} response field {spec.key!r}", ("GET", path, spec.key)))
        if spec.key and spec.value:
            deps.append(Dependency("list-key", f"GET {path} response field {spec.key}.{spec.value}",
                                   ("GET", path, f"{spec.key}.{spec.value}")))
        rules = list(lookup_rules.get(name, []))
        if not spec.ids_from:
            rules += [r for r in pag_rules if r not in rules]
        yield _Entry("conventions.yaml", f"lookups.{name}", None, rules, deps)


def check(m: Mappings, base_raw: Any, candidate_raw: Any, *, base_label: str, candidate_label: str) -> Report:
    """Compare what the mapping depends on in `base_raw` (what it was built on) with `candidate_raw`."""
    base, candidate = Document(base_raw), Document(candidate_raw)
    report = Report(base_label, candidate_label)
    for entry in _entries(m, base):
        gone: list[str] = []  # operations of this entry found missing: their parts are not reported again
        for dep in entry.deps:
            report.checked += 1
            if any(dep.where.startswith(prefix + " ") for prefix in gone):
                continue
            old, new = _resolve(base, dep), _resolve(candidate, dep)
            if old == new:
                continue
            if dep.kind == "operation" and new is None:
                gone.append(dep.where)
            change = "missing" if new is None else "added" if old is None else "changed"
            report.findings.append(Finding(entry.file, entry.entry, entry.field, entry.rules, dep.where, change, old, new))
    return report
