"""The two translators: requests forward (v1 -> v2), responses backward (v2 -> v1).

Both are compiled from the mapping data once, at start-up, into plain lists of
steps, so the per-request work is a walk over precomputed closures. They are
synchronous and pure; anything that needs the network is asked for through
`NeedsLookup` so the proxy can fetch it and call again.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping as TMapping

from mappings.converters import (
    COMPOSERS,
    DEFAULT_FACTORIES,
    FINALIZERS,
    REQUEST_CONVERTERS,
    RESPONSE_CONVERTERS,
    Catalog,
    ComposeContext,
    InvalidValue,
    NeedsLookup,
    ResponseContext,
    engages,
    get_path,
    set_path,
)
from mappings.errors import PolicyRefused, Unsupported
from mappings.loader import Mappings, default_mappings
from mappings.records import aggregate_records, is_unset
from mappings.models import RequestMap, ResponseMap

__all__ = [
    "Catalog",
    "InvalidValue",
    "NeedsLookup",
    "PolicyRefused",
    "RequestTranslation",
    "ResponseContext",
    "Translators",
    "translators",
]


@dataclass
class RequestTranslation:
    body: dict[str, Any]
    emulations: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    # v2 path -> the remaining v1 choices, in order (GPU / CPU fallback walks)
    alternatives: dict[str, list[Any]] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)
    # v1 fields the mapping marks `unsupported: ignore`, sent by the client: served without, and named
    unhonoured: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # v1 fields whose policy asks for a follow-up call after the main one (locked)
    follow_up: dict[str, Any] = field(default_factory=dict)


def _policy_mode(policy: str, strict: TMapping[str, bool], mappings: Mappings) -> str:
    if policy in strict:
        return "strict" if strict[policy] else "emulate"
    return mappings.policies[policy].default


class _CompiledRequest:
    """One request map turned into direct steps."""

    def __init__(self, spec: RequestMap, mappings: Mappings) -> None:
        self.spec = spec
        self.mappings = mappings
        self.fields = spec.fields
        self.composed = {name: f for name, f in spec.fields.items() if f.compose}
        self.defaults = {name: f for name, f in spec.fields.items() if f.has_default}
        self.unset = {name: f.unset for name, f in spec.fields.items() if f.unset}
        self.composers = [COMPOSERS[name] for name in spec.composers]
        self.finalizers = [FINALIZERS[name] for name in spec.finalizers]

    def translate(
        self,
        body: dict[str, Any],
        *,
        strict: TMapping[str, bool],
        current: dict[str, Any] | None,
        catalog: Catalog | None,
        template: dict[str, Any] | None = None,
    ) -> RequestTranslation:
        if not isinstance(body, dict):
            raise InvalidValue("the request body must be a JSON object")
        spec = self.spec
        fields = self.fields
        # v1's spellings of "not set" (requests.yaml `unset`, per field) count as omitted
        if self.unset:
            body = {name: value for name, value in body.items()
                    if name not in self.unset or not is_unset(value, self.unset[name])}
        templated = bool(spec.template_field and body.get(spec.template_field))
        family = None
        if spec.compute_field:
            family = body.get(spec.compute_field) or spec.compute_default
            if family not in ("GPU", "CPU"):
                raise InvalidValue(f"{spec.compute_field} must be GPU or CPU")
        out: dict[str, Any] = {}
        result = RequestTranslation(body=out)
        engaged: list[str] = []
        rules: list[str] = []

        def engage(policy: str | None) -> None:
            if policy is None or policy in engaged:
                return
            if _policy_mode(policy, strict, self.mappings) == "strict":
                raise PolicyRefused(policy, self.mappings.policies[policy].strict_message)
            engaged.append(policy)

        values: dict[str, Any] = {}
        explicit: set[str] = set()
        for name, value in body.items():
            rule = fields.get(name)
            if rule is None:
                result.ignored.append(name)
                continue
            if rule.only_for and rule.only_for != family:
                result.ignored.append(name)
                continue
            explicit.add(name)
            if rule.rule and rule.rule not in rules:
                rules.append(rule.rule)
            if rule.unsupported == "strict":
                raise Unsupported(f"{name} cannot be honoured on v2" + (f" ({rule.rule})" if rule.rule else ""),
                                  rule=rule.rule)
            if rule.unsupported:
                result.unhonoured.append(name)
                continue
            if rule.selects:
                continue
            # a field with a v1 default names the policy that applies that default, not its use,
            # unless the default has its own (default_policy)
            if rule.policy and (not rule.has_default or rule.default_policy) and engages(rule.convert, value):
                engage(rule.policy)
                if rule.policy == "locked-after-create" and value:
                    result.follow_up[name] = value
            values[name] = value
        if spec.mode == "create":
            for name, rule in self.defaults.items():
                if name in explicit or (rule.only_for and rule.only_for != family):
                    continue
                if templated and rule.template_provides:
                    continue  # the referenced template supplies it; a v1 default would overwrite the template's
                if rule.default_from:
                    values[name] = DEFAULT_FACTORIES[rule.default_from](body, catalog)
                else:
                    values[name] = copy.deepcopy(rule.default)
                if rule.default_policy:
                    engage(rule.default_policy)
                elif not rule.compose:
                    engage(rule.policy)
        for name, value in values.items():
            rule = self.fields[name]
            if rule.compose or rule.to is None:
                continue
            converted = value
            if rule.convert:
                try:
                    converted = REQUEST_CONVERTERS[rule.convert](value)
                except InvalidValue as exc:
                    raise InvalidValue(f"{name}: {exc}") from None
                if isinstance(value, list) and rule.convert == "first_item" and len(value) > 1:
                    result.alternatives[rule.to] = list(value)
            set_path(out, rule.to, converted)
        ctx = ComposeContext(mode=spec.mode, family=family, explicit=explicit, current=current, catalog=catalog,
                             templated=templated, template=template)
        for composer in self.composers:
            composer(values, out, ctx)
        for name, constant in spec.constants.items():
            if name not in out:
                out[name] = copy.deepcopy(constant.value)
                engage(constant.policy)
        for finalizer in self.finalizers:
            finalizer(values, out, ctx)
        for policy in ctx.engaged:
            engage(policy)
        result.emulations = sorted(engaged)
        result.rules = rules
        result.notes = ctx.notes
        return result


_Getter = Callable[[dict[str, Any], ResponseContext], Any]


def _fresh(value: list[Any] | dict[str, Any]) -> _Getter:
    """A new copy per answer (callers may mutate it); empty containers skip deepcopy's machinery."""
    if not value:
        kind = type(value)
        return lambda obj, ctx: kind()
    return lambda obj, ctx: copy.deepcopy(value)


class _CompiledResponse:
    """One response map: compiled to one function, with the per-field steps kept as its reference."""

    def __init__(self, spec: ResponseMap, mappings: Mappings) -> None:
        self.spec = spec
        self.mappings = mappings
        self.steps: list[tuple[str, _Getter, str | None, bool]] = []
        self.rules: list[tuple[str, Any]] = []
        for name, rule in spec.fields.items():
            if rule.omit:
                continue
            self.steps.append((name, self._getter(rule, mappings), rule.include, rule.nullable))
            self.rules.append((name, rule))
        self.aliases = list(spec.aliases.items())
        self.translate = self._compile()  # type: ignore[method-assign]

    def _compile(self) -> Callable[[dict[str, Any], ResponseContext], dict[str, Any]]:
        """The map as one straight-line function (a list of N objects runs it N times).

        Every field is inlined from its rule (path reads, converter call, value map,
        fallback, constant), so no per-field closure call is left on the hot path.
        Same result as `_translate_steps`, which tests/mappings/test_translate.py
        checks on every map.
        """
        lines = ["def translate(obj, ctx):", "    out = {}", "    includes = ctx.includes"]
        namespace: dict[str, Any] = {"_deepcopy": copy.deepcopy}
        for index, (name, rule) in enumerate(self.rules):
            pad = "    "
            if rule.include is not None:
                lines.append(f"    if {rule.include!r} in includes:")
                pad = "        "
            lines.extend(pad + line for line in self._field_code(index, rule, namespace))
            if rule.nullable:
                lines.append(f"{pad}out[{name!r}] = v")
            else:
                lines.append(f"{pad}if v is not None:")
                lines.append(f"{pad}    out[{name!r}] = v")
        for alias, target in self.aliases:
            lines.append(f"    if {target!r} in out:")
            lines.append(f"        out[{alias!r}] = out[{target!r}]")
        lines.append("    return out")
        exec(compile("\n".join(lines), f"<response map {self.spec.id}>", "exec"), namespace)  # noqa: S102 - data is packaged
        return namespace["translate"]

    def _field_code(self, index: int, rule: Any, namespace: dict[str, Any]) -> list[str]:
        """Statements leaving the v1 value of one field in `v` (None: leave the key out)."""
        if rule.has_const:
            return [f"v = {self._fresh_code(index, rule.const, namespace, 'k')}"]
        code: list[str] = []
        if rule.source is None:
            code.append("v = None")
        for n, source in enumerate(rule.sources):
            pad = "" if n == 0 else "    "
            if n:  # the next alternative, only while every earlier one was null
                code.append("if v is None:")
            first, *rest = source.split(".")
            code.append(f"{pad}v = obj.get({first!r})")
            for part in rest:  # as get_path: None as soon as a step is missing or of the wrong kind
                if part.isdigit():
                    code.append(f"{pad}v = v.get({part!r}) if isinstance(v, dict) else "
                                f"((v[{part}] if len(v) > {part} else None) if isinstance(v, list) else None)")
                else:
                    code.append(f"{pad}v = v.get({part!r}) if isinstance(v, dict) else None")
        if rule.convert:
            namespace[f"c{index}"] = RESPONSE_CONVERTERS[rule.convert]
            code.append(f"v = c{index}(v, obj, ctx)")
        if rule.values:
            namespace[f"b{index}"] = self.mappings.values[rule.values].backward
            code.append(f"if v is not None: v = b{index}.get(v, v)")
        if rule.has_fallback and rule.fallback is not None:
            code.append(f"if v is None: v = {self._fresh_code(index, rule.fallback, namespace, 'f')}")
        return code

    @staticmethod
    def _fresh_code(index: int, value: Any, namespace: dict[str, Any], kind: str) -> str:
        """An expression giving `value` anew on each call (answers never share a mutable object)."""
        if isinstance(value, (list, dict)):
            if not value:
                return "[]" if isinstance(value, list) else "{}"
            namespace[f"{kind}{index}"] = value
            return f"_deepcopy({kind}{index})"
        namespace[f"{kind}{index}"] = value
        return f"{kind}{index}"

    @staticmethod
    def _getter(rule: Any, mappings: Mappings) -> _Getter:
        if rule.has_const:
            const = rule.const
            if isinstance(const, (list, dict)):
                return _fresh(const)
            return lambda obj, ctx: const
        sources = rule.sources
        convert = RESPONSE_CONVERTERS[rule.convert] if rule.convert else None
        backward = mappings.values[rule.values].backward if rule.values else None
        fallback = rule.fallback if rule.has_fallback else None

        def getter(obj: dict[str, Any], ctx: ResponseContext) -> Any:
            value = None
            for source in sources:
                value = get_path(obj, source)
                if value is not None:
                    break
            if convert is not None:
                value = convert(value, obj, ctx)
            if backward is not None and value is not None:
                value = backward.get(value, value)
            if value is None and fallback is not None:
                return copy.deepcopy(fallback) if isinstance(fallback, (list, dict)) else fallback
            return value

        return getter

    def _translate_steps(self, obj: dict[str, Any], ctx: ResponseContext) -> dict[str, Any]:
        """The reference the compiled `translate` is tested against (tests/mappings/test_translate.py)."""
        out: dict[str, Any] = {}
        includes = ctx.includes
        for name, getter, include, nullable in self.steps:
            if include is not None and include not in includes:
                continue
            value = getter(obj, ctx)
            if value is not None or nullable:
                out[name] = value
        for alias, target in self.aliases:
            if target in out:
                out[alias] = out[target]
        return out

    def translate_records(self, records: list[dict[str, Any]], ctx: ResponseContext) -> list[dict[str, Any]]:
        aggregate = self.spec.aggregate
        if aggregate is not None:
            records = aggregate_records(records, aggregate.by, aggregate.sum)
        return [self.translate(record, ctx) for record in records]


class Translators:
    """All compiled translators of one Mappings."""

    def __init__(self, mappings: Mappings) -> None:
        self.mappings = mappings
        self.requests = {key: _CompiledRequest(spec, mappings) for key, spec in mappings.requests.items()}
        self.responses = {key: _CompiledResponse(spec, mappings) for key, spec in mappings.responses.items()}

    def request(
        self,
        map_id: str,
        body: dict[str, Any],
        *,
        strict: TMapping[str, bool] | None = None,
        current: dict[str, Any] | None = None,
        catalog: Catalog | None = None,
        template: dict[str, Any] | None = None,
    ) -> RequestTranslation:
        """v1 request body -> v2 body. Raises InvalidValue, PolicyRefused or NeedsLookup."""
        return self.requests[map_id].translate(body, strict=strict or {}, current=current, catalog=catalog,
                                               template=template)

    def response(self, map_id: str, obj: dict[str, Any], ctx: ResponseContext | None = None) -> dict[str, Any]:
        return self.responses[map_id].translate(obj, ctx or ResponseContext())

    def records(self, map_id: str, records: list[dict[str, Any]], ctx: ResponseContext | None = None) -> list[dict[str, Any]]:
        return self.responses[map_id].translate_records(records, ctx or ResponseContext())


_DEFAULT: Translators | None = None


def translators() -> Translators:
    """Translators over the packaged mappings, compiled once per process."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Translators(default_mappings())
    return _DEFAULT
