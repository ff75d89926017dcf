"""L02 field-renames: flat v1 request bodies become nested v2 bodies; renamed answer fields are read by their v2 name.

Bodies go through `mappings.translate.translators().request(...)`, the call
the proxy makes, so the rewritten code sends what the proxy would send.
Values that are expressions travel through it as opaque markers when their
field is a plain move or rename. The conversions of L03, L07, Q07, Q09, Q31,
Q39 and R06 are the translator's own (rules.yaml: `rewrite: {by: L02}`); a
rule module with a `body-field` stage (Q04) decides a value of its field
itself. A converter that meets a value only known at run time, and a field
the translation drops because v2 has no place for it, are flagged with the
field's rule.

Answer reads: `pod["workersMin"]` -> `pod["workers"]["min"]`, `.get(...)` chains
likewise, under the field's rule (Q13 desiredStatus, Q14 costPerHr, Q25 billing
records).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

import libcst as cst

from codemod import compat_call
from codemod.analysis.facts import CallFact, Read
from codemod.analysis.syntax import str_of
from codemod.changes import Edit
from codemod.render import Code, KeyIf, Spread, When, render
from codemod.rules.edits import drop_data
from mappings.converters import Catalog
from mappings.translate import InvalidValue, NeedsLookup, PolicyRefused, translators


class _Marker(str):
    """An expression whose value is only known at run time, carried through the translator as a sentinel string.

    A str (the translator checks types), compared by identity afterwards: a marker found in the v2 body as
    the same object was moved or renamed, and its source is put back; a sentinel found inside another string
    was consumed by a conversion, which a value only known at run time does not allow.
    """

    code: str

    def __new__(cls, code: str, n: int):
        self = super().__new__(cls, f"\x00v1bridge-value-{n}\x00")
        self.code = code
        return self


_SENTINEL = "\x00v1bridge-value-"


class _ListMarker(list):
    """An expression known to be a list at run time (`list(x)`, `sorted(x)`, a list comprehension), carried as an
    empty list: a field that passes a list through keeps this very object; one that reads its items does not,
    and a marker missing from the result counts as consumed."""

    def __init__(self, code: str) -> None:
        super().__init__()
        self.code = code

    def __eq__(self, other) -> bool:
        return self is other

    __hash__ = object.__hash__


_LIST_BUILDERS = {"list", "sorted"}


def _substitute(value):
    if isinstance(value, (_Marker, _ListMarker)):
        return Code(value.code)
    if isinstance(value, When):
        return When(value.test, _substitute(value.then), _substitute(value.otherwise))
    if isinstance(value, dict):
        return {k: _substitute(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v) for v in value]
    return value


def has_marker(value) -> bool:
    if isinstance(value, (_Marker, _ListMarker)):
        return True
    if isinstance(value, dict):
        return any(has_marker(v) for v in value.values())
    if isinstance(value, list):
        return any(has_marker(v) for v in value)
    return False


def _consumed(value, lists: list | None = None) -> bool:
    """A sentinel inside a value that is not the marker itself, or a list marker that is not in the value any
    more: a conversion used a run-time value."""
    if lists and any(not _contains_object(value, marker) for marker in lists):
        return True
    if isinstance(value, (_Marker, _ListMarker)):
        return False
    if isinstance(value, str):
        return _SENTINEL in value
    if isinstance(value, dict):
        return any(_consumed(k) or _consumed(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_consumed(v) for v in value)
    return False


def _contains_object(value, target) -> bool:
    if value is target:
        return True
    if isinstance(value, dict):
        return any(_contains_object(v, target) for v in value.values())
    if isinstance(value, list) and not isinstance(value, _ListMarker):
        return any(_contains_object(v, target) for v in value)
    return False


def _list_markers(value) -> list:
    if isinstance(value, _ListMarker):
        return [value]
    if isinstance(value, dict):
        return [m for v in value.values() for m in _list_markers(v)]
    if isinstance(value, list):
        return [m for v in value for m in _list_markers(v)]
    return []


def _value(node: cst.BaseExpression, src, counter: list) -> object:
    """The JSON value of an expression: literals as they are, lists and dicts element by element, anything
    else a marker for its source."""
    if isinstance(node, (cst.List, cst.Tuple)) and all(isinstance(e, cst.Element) for e in node.elements):
        return [_value(e.value, src, counter) for e in node.elements]
    if isinstance(node, cst.Dict) and all(isinstance(e, cst.DictElement) and str_of(e.key) is not None
                                          for e in node.elements):
        return {str_of(e.key): _value(e.value, src, counter) for e in node.elements}
    code = src.code_of(node).strip()
    if isinstance(node, cst.ListComp) or isinstance(node, cst.Call) and isinstance(node.func, cst.Name) \
            and node.func.value in _LIST_BUILDERS and src.function(node.func.value) is None:
        return _ListMarker(code)
    try:
        value = ast.literal_eval(code)
        if isinstance(value, (str, int, float, bool, type(None))):
            return value
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    counter.append(None)
    return _Marker(code, len(counter))


class Replace:
    """A body-field hook's answer: the v2 value of the field, written by the rule itself (the translator skips it)."""

    def __init__(self, value) -> None:
        self.value = value


def _body_flag(cf: CallFact, plan) -> None:
    plan.flag(cf.call, "L02", "body-field", cf.route,
              "request body built elsewhere; convert it to the v2 shape (" + plan.rule_text("L02") + ")")


def plan_call(cf: CallFact, plan) -> None:
    route = cf.route
    map_id = route.op.request
    if map_id is None or cf.site.body_expr is None:
        return
    if cf.body is None:  # built where the rewrite cannot see it: converted when it runs, or flagged
        _plan_compat_body(cf, plan, cf.call, "L02", "request body built elsewhere; convert it to the v2 shape ("
                          + plan.rule_text("L02") + ")")
        return
    plan_body(cf, plan, map_id, cf.body)
    compat = plan.scratch.get("compat-create", {}).get(plan.unit)
    at_run_time = plan.scratch.get("compat-body", {}).pop(plan.unit, None)
    if at_run_time is not None:  # converted when it runs: with_v1_body walks a fallback list itself
        _plan_compat_body(cf, plan, *at_run_time)
    elif compat is not None:
        _plan_compat_create(cf, plan, compat)


def _run_time_value(cf: CallFact, plan, node: cst.CSTNode, rule_id: str, why: str | None = None) -> None:
    """A v1 body the rewrite cannot convert where it is written (a value only known at run time that a conversion
    needs, fields set over several statements that combine in the v2 body): it is converted when it runs
    (`_plan_compat_body`, after the body's plan), or flagged (with WHY) where the call cannot carry that."""
    plan.scratch.setdefault("compat-body", {})[plan.unit] = (node, rule_id, why)


def _plan_compat_body(cf: CallFact, plan, node: cst.CSTNode, rule_id: str, why: str | None = None) -> None:
    """The call on its v2 route (the other rules' path and method edits stand) inside `v1bridge_compat.with_v1_body`,
    which converts only its body, when it runs; flagged as before when the call cannot carry it (the body not an
    argument of the call, a PATCH of an existing record whose conversion reads it, no send for the catalog)."""
    site, route, src = cf.site, cf.route, plan.facts.source
    body = next((i for i, a in enumerate(cf.call.args) if a.value is site.body_expr), None)
    wrapped = src.client_send(site)  # (None also when the body is not the call's JSON body)
    ids = compat_call.record_id(src, site) if route.op.path_params else {}  # an update: the record it converts against
    # the conversion's own v2 reads (the GPU catalog) go through a send taking paths on the client's v2 base: a
    # helper's (its paths are relative to its base), else the client's request on the call's base
    send = wrapped if wrapped is not None and site.library == "helper" else compat_call.relative_send(src, site)
    if send is not None and f"{compat_call.MODULE_NAME}.by_method(" in send and "get=" not in send:
        send = None  # per-verb helpers with no GET: the conversion's reads could not be made
    if body is None or cf.call.args[body].star or wrapped is None or send is None or ids is None \
            or isinstance(src.parent(cf.call), cst.WithItem) or route.op.v2 is None or route.op.steps:
        plan.flag(node, rule_id, "body-field", route, why or "a v1 body value only known at run time needs a "
                  "conversion: " + plan.rule_text(rule_id))
        return
    fn = compat_call.AWITH_V1_BODY if site.is_async else compat_call.WITH_V1_BODY
    plan.change("compat-body", cf.call, rule_id, compat_call.BodyWrap(body, route.op.id, send, site.is_async, ids))
    plan.change("compat-import", src.module, "compat", plan.compat_import)
    built = "built or read where the rewrite cannot convert it" if cf.body is None else \
        "values only known at run time" if why is None else "fields set over several statements"
    plan.find(cf.call, rule_id, "body-field", f"v2 {route.v2_label()} through v1bridge_compat.{fn}: its v1 body "
              f"({built}) converted when it runs", True, route)
    plan.scratch.setdefault("compat-created", {})[plan.unit] = (
        f"v2 route; v1bridge_compat.{fn} converts its v1 body ({built}) when it runs")


def _plan_compat_create(cf: CallFact, plan, compat: CompatCreate) -> None:
    """The create as plain v2 code inside `v1bridge_compat.create_with_fallback`, which keeps only what v2 lacks
    (the walk over the choices, the PATCH of `locked` after it); flagged as before when the call's shape cannot
    carry it (the walk needs the create as a call of the v2 body, the PATCH a send on the client's base)."""
    site, route, src = cf.site, cf.route, plan.facts.source
    body = next((i for i, a in enumerate(cf.call.args) if a.value is site.body_expr), None)
    # through the client's own helper (its body parameter is the JSON body): the walk repeats the helper's call,
    # and the ranking and the PATCH go through the helper too (the send call_v1 would be handed)
    helper_body = site.library == "helper" and site.helper is not None and site.body_kw == site.helper.body_param
    send = src.client_send(site) if helper_body else compat_call.relative_send(src, site)
    why = None
    if body is None or (site.body_kw not in (None, "json") and not helper_body) or cf.call.args[body].star \
            or isinstance(src.parent(cf.call), cst.WithItem):
        why = "the create's body is not a json= argument of a call the compat module can repeat"
    elif compat.after and send is None:
        why = "the PATCH after the create needs the client's own call on its base, which the rewrite cannot read here"
    if why is not None:
        rule = compat.rules[-1] if compat.after and send is None else compat.rules[0]
        plan.flag(cf.call, rule, "body-field", route, f"{why}: {plan.rule_text(rule)}")
        return
    fn = compat_call.ACREATE_WITH_FALLBACK if site.is_async else compat_call.CREATE_WITH_FALLBACK
    kept = " and ".join(filter(None, [
        f"the choices tried in order at {compat.at}" + ("" if not compat.ranked else
                                                        " (ranked by availability)" if send else
                                                        " (in the order given: v1 ranked them by availability)")
        if compat.at else "", f"{compat.after} PATCHed after the create" if compat.after else ""]))
    plan.change("compat-create", cf.call, compat.rules[0],
                compat_call.CreateWrap(body, compat.choices, compat.at, compat.ranked and send is not None,
                                       compat.after, send, site.is_async))
    plan.change("compat-import", src.module, "compat", plan.compat_import)
    plan.find(cf.call, compat.rules[0], "body-field", f"v2 create through v1bridge_compat.{fn}: {kept}", True, route)
    plan.scratch.setdefault("compat-created", {})[plan.unit] = f"v2 create; v1bridge_compat.{fn} keeps {kept}"


def _literal_body(cf: CallFact, plan, node: cst.Dict, counter: list) -> tuple[dict, str] | None:
    """The v1 body of a dict literal (values or markers) and the quote its keys use; None when flagged."""
    body: dict = {}
    quote = '"'
    for element in node.elements:
        key = str_of(element.key) if isinstance(element, cst.DictElement) else None
        if key is None:
            _body_flag(cf, plan)
            return None
        if isinstance(element.key, cst.SimpleString):
            quote = element.key.quote if len(element.key.quote) == 1 else quote
        body[key] = _value(element.value, plan.facts.source, counter)
    return body, quote


def _translate(cf: CallFact, plan, map_id: str, node: cst.CSTNode, body: dict, probes: dict | None = None) -> dict | None:
    """The v2 body (markers for run-time values, `When`/`KeyIf` where a composed field's run-time value may be v1's
    "not set") the proxy's translator makes of `body`; None when flagged on `node` (a field not mapped, a
    conversion a run-time value does not allow, a field v2 removed). PROBES gets {test: the falsy value probed}."""
    kb, route = plan.kb, cf.route
    spec = kb.mappings.requests[map_id]
    replaced: dict = {}  # v1 key -> v2 value a rule module wrote itself
    for key, value in body.items():
        field = spec.fields.get(key)
        if field is None:
            plan.flag(node, "L02", "body-field", route, f"v1 body field {key!r} is not in the mapping; check it by hand")
            return None
        owner = plan.rewriters.get(field.rule or "")
        verdict = owner.plan_body_field(field, value, plan) if owner and owner.plan_body_field else True
        if isinstance(verdict, Replace):
            replaced[key] = verdict.value
            continue
        if not verdict:
            plan.flag(node, field.rule or "L02", "body-field", route,
                      f"v1 body field {key!r} needs a conversion its run-time value does not allow here: "
                      + plan.rule_text(field.rule or "L02"))
            return None
    compat = _compat_fields(plan, spec, body)
    plan.scratch.setdefault("compat-create", {}).pop(plan.unit, None)
    if compat is not None:
        body = compat.rest
    strict = {policy: False for policy in kb.mappings.policies}
    parts = _run_time_parts(cf, plan, spec, body)
    catalog = None
    if parts:  # their composer runs on a stand-in catalog; the part it writes is then the compat module's call
        body = {**body, **{key: [_STAND_IN_TYPE] for key in parts}}
        catalog = Catalog({_STAND_IN_TYPE: _STAND_IN_POOL})
    try:
        result = translators().request(map_id, {k: v for k, v in body.items() if k not in replaced}, strict=strict,
                                       catalog=catalog)
    except NeedsLookup:
        rule_id = next((f.rule for k, f in spec.fields.items() if k in body and f.compose and f.rule), "L02")
        plan.flag(node, rule_id, "body-field", route)
        return None
    except (InvalidValue, PolicyRefused) as exc:
        named = next((k for k in body if str(exc).startswith(k)), None)  # the translator names the field first
        rule_id = (spec.fields[named].rule if named else None) or "L02"
        plan.flag(node, rule_id, "body-field", route, f"v1 body cannot be translated: {exc}")
        return None
    except Exception:  # a converter that needs the value itself (arithmetic, parsing) met a run-time value
        rule_id = next((spec.fields[k].rule for k, v in body.items() if has_marker(v) and spec.fields[k].rule), "L02")
        _run_time_value(cf, plan, node, rule_id)
        return None
    # what the translation drops or cannot express is a person's decision
    left_out: dict[str, list[str]] = {}  # rule -> fields left out as the proxy leaves them out (named in the summary)
    for key in body:
        field = spec.fields[key]
        rule_id = field.rule
        if field.unset and any(body[key] == value and type(body[key]) is type(value) for value in field.unset):
            continue  # v1's "not set" (`"readme": ""`): left out, nothing of it is lost
        policy = kb.mappings.policies.get(field.policy) if field.policy else None
        engaged = policy is not None and policy.id in result.emulations and body[key] not in (False, None)
        if rule_id and kb.mappings.rules[rule_id].rule_class == "removed" and engaged \
                and policy.rewrite == "leave-out":
            left_out.setdefault(rule_id, []).append(key)
        elif rule_id and kb.mappings.rules[rule_id].rule_class == "removed" and (
            engaged or (field.to is None and policy is None)
        ):
            plan.flag(node, rule_id, "body-field", route, f"v1 body field {key!r}: {plan.rule_text(rule_id)}")
    for rule_id, keys in left_out.items():
        why = (f"v1 body field{'s' if len(keys) > 1 else ''} {', '.join(map(repr, keys))} left out of the v2 body, as "
               f"the proxy leaves {'them' if len(keys) > 1 else 'it'} out (no v2 field): {plan.rule_text(rule_id)}")
        plan.note(node, rule_id, why)
        plan.find(node, rule_id, "body-field", why, True, route)  # the audit names it too
    if _consumed(result.body, [m for v in body.values() for m in _list_markers(v)]):
        rule_id = next((spec.fields[k].rule for k, v in body.items() if has_marker(v) and spec.fields[k].rule), "L02")
        _run_time_value(cf, plan, node, rule_id)
        return None
    v2_body, chosen = _when_falsy(map_id, spec, {k: v for k, v in body.items() if k not in replaced}, strict,
                                  catalog, result.body, _falsy_defaults(plan.facts.source, cf.call), probes)
    if chosen is not None:
        _run_time_value(cf, plan, node, spec.fields[chosen].rule or "L02")
        return None
    if compat is not None:
        _drop_path(v2_body, compat.at)
        plan.scratch["compat-create"][plan.unit] = compat
    if parts and not _put_parts(cf, plan, spec, v2_body, parts):
        plan.flag(node, spec.fields[next(iter(parts))].rule or "L02", "body-field", route)
        return None
    for key, value in replaced.items():
        target = v2_body
        parts = spec.fields[key].to.split(".")
        for part in parts[:-1]:
            target = target.setdefault(part, {})
        target[parts[-1]] = value
    return v2_body


def _falsy_defaults(src, call: cst.Call) -> dict[str, object]:
    """{parameter: its default} of the function around CALL whose default is a value that says "not set" (0, "",
    None, False): the code itself expects to be called with it."""
    fn = src.scope_of(call)
    while fn is not None and not isinstance(fn, cst.FunctionDef):
        fn = src.scope_of(fn)
    out: dict[str, object] = {}
    for param in (*fn.params.params, *fn.params.kwonly_params) if fn is not None else ():
        try:
            value = ast.literal_eval(src.code_of(param.default).strip()) if param.default is not None else 1
        except (ValueError, SyntaxError):
            continue
        if value in (0, "", None, False) and not isinstance(value, (list, dict, tuple)):
            out[param.name.value] = value
    return out


# The values v1 read as "not set" that a run-time value may hold; a composer branches on them (volumeInGb 0: no mount).
_FALSY = (0, None, "", False)
_ABSENT = object()


def _when_falsy(map_id: str, spec, body: dict, strict: dict, catalog, translated: dict, falsy: dict,
                probes: dict | None) -> tuple[dict, str | None]:
    """TRANSLATED with the falsy case of each run-time value a composer reads written in: translated again with the
    value 0, None, "" and False, the v2 keys that differ from the marker's translation become `When(value, ...)`,
    or `KeyIf` where the falsy case leaves the key out (`volume_gb`: `**({"mounts": ...} if volume_gb else {})`).
    (_, the field) when that cannot be written as plain code: the falsy values disagree, the value is not a name
    read twice safely, two values decide one key, a parameter's own falsy default is refused by itself (FALSY)."""
    out = dict(translated)
    taken: set[str] = set()
    for key, value in body.items():
        field = spec.fields.get(key)
        if not isinstance(value, _Marker) or field is None or not field.compose:
            continue
        forms = []  # (probe, its v2 body, or None where it is the marker's translation with the probe put in)
        for probe in _FALSY:
            try:
                probed = translators().request(map_id, {**body, key: probe}, strict=strict, catalog=catalog).body
            except Exception:  # noqa: BLE001 - refused by itself: only the function's own default matters
                if value.code in falsy and falsy[value.code] == probe and type(falsy[value.code]) is type(probe):
                    return out, key
                continue
            forms.append((probe, None if probed == _put_value(translated, value, probe) else probed))
        differing = [f for _p, f in forms if f is not None]
        if not differing:
            continue
        if len(differing) != len(forms) or any(f != differing[0] for f in differing) or not _plain_test(value.code):
            return out, key
        otherwise = differing[0]
        for k in [k for k in {**translated, **otherwise}
                  if translated.get(k, _ABSENT) != otherwise.get(k, _ABSENT)]:
            if k in taken or k not in translated:
                return out, key
            taken.add(k)
            if k in otherwise:
                out[k] = When(value.code, translated[k], otherwise[k])
            else:
                out = {KeyIf(k, value.code) if name == k else name: v for name, v in out.items()}
        if probes is not None:
            probes[value.code] = forms[0][0]
    return out, None


def _plain_test(code: str) -> bool:
    """A name, attribute or literal-key subscript: read twice (the test and the value) without a side effect."""
    try:
        tree = ast.parse(code, mode="eval").body
    except SyntaxError:
        return False
    while isinstance(tree, (ast.Attribute, ast.Subscript)):
        if isinstance(tree, ast.Subscript) and not isinstance(tree.slice, ast.Constant):
            return False
        tree = tree.value
    return isinstance(tree, ast.Name)


def _put_value(value, marker, probe):
    if isinstance(value, dict):
        return {k: _put_value(v, marker, probe) for k, v in value.items()}
    if isinstance(value, list) and not isinstance(value, _ListMarker):
        return [_put_value(v, marker, probe) for v in value]
    return probe if isinstance(value, _Marker) and value is marker else value


# A stand-in GPU type and pool: the composer of a field whose v2 part is made when the code runs (an endpoint's pools
# from the catalog) runs on them, and what it wrote is replaced by the compat module's call.
_STAND_IN_TYPE = "\x00v1bridge-type\x00"
_STAND_IN_POOL = "\x00v1bridge-pool\x00"


def _run_time_parts(cf: CallFact, plan, spec, body: dict) -> dict:
    """{v1 key: the code of the compat call making its v2 part} for the body's fields whose conversion reads v2
    data (their policy names a `compat` function in policies.yaml: gpuTypeIds -> gpu_pools through the catalog),
    when the call has a send on the client's base for that read; {} otherwise (the translation asks for the data
    and the call is flagged as before)."""
    policies = plan.kb.mappings.policies
    wanted = {key: policies[spec.fields[key].policy].compat for key in body
              if spec.fields.get(key) is not None and spec.fields[key].compose and spec.fields[key].policy
              and policies[spec.fields[key].policy].compat}
    if not wanted:
        return {}
    site, src = cf.site, plan.facts.source
    # (the send with_v1_body would be given: a helper's own, else the client's request on the call's base)
    send = src.client_send(site) if site.library == "helper" else compat_call.relative_send(src, site)
    if send is None or (f"{compat_call.MODULE_NAME}.by_method(" in send and "get=" not in send):
        return {}
    out = {}
    for key, fn in wanted.items():
        value = render(_substitute(body[key]))
        call = f"{compat_call.MODULE_NAME}.{'a' + fn if site.is_async else fn}({send}, {value})"
        out[key] = (fn, f"(await {call})" if site.is_async else call)
    return out


def _holder(body: dict, parents: list[str]) -> dict:
    """The dict holding the last of PARENTS."""
    for part in parents[:-1]:
        body = body[part]
    return body


def _holds_stand_in(value) -> bool:
    if isinstance(value, dict):
        return any(_holds_stand_in(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_stand_in(v) for v in value)
    return isinstance(value, str) and (_STAND_IN_POOL in value or _STAND_IN_TYPE in value)


def _put_parts(cf: CallFact, plan, spec, v2_body: dict, parts: dict) -> bool:
    """The stand-in's part of the v2 body (the keys beside the field's own under its parent: gpu.pools and
    gpu.excludedTypes) replaced by `**<compat call>`; False when the stand-in went anywhere else."""
    for key, (_fn, code) in parts.items():
        *parents, _last = (spec.fields[key].to or "").split(".")
        target = v2_body
        for part in parents:
            target = target.setdefault(part, {}) if isinstance(target, dict) else None
        if not isinstance(target, dict):
            return False
        for name in [k for k, v in target.items() if _holds_stand_in(v)]:
            del target[name]
        if target or not parents:
            target[Spread()] = Code(code)
        else:  # the part is all of its parent: `"gpu": v1bridge_compat.gpu_pools(...)`
            holder = _holder(v2_body, parents)
            holder[parents[-1]] = Code(code)
    if _holds_stand_in(v2_body):
        return False
    first = next(iter(parts))
    plan.change("compat-part", cf.call, spec.fields[first].rule or "L02",
                tuple(code for _fn, code in parts.values()))
    plan.change("compat-import", plan.facts.source.module, "compat", plan.compat_import)
    plan.scratch.setdefault("compat-created", {})[plan.unit] = "v2 body; " + ", ".join(
        f"v1bridge_compat.{fn} makes the v2 part of its {key} when it runs (from v2's own data)"
        for key, (fn, _code) in parts.items())
    return True


# The policy of the v1 fields v2 takes only after a create (R12 locked): the compat module PATCHes them on.
AFTER_CREATE = "locked-after-create"


@dataclass(frozen=True)
class CompatCreate:
    """What a v1 create needs that v2 lacks, kept by `v1bridge_compat.create_with_fallback` around plain v2 code:
    the choices of a fallback list (tried in order at `at`), v1's ranking of them, the fields PATCHed after it."""

    rest: dict  # the v1 body the translator converts: the list replaced by one stand-in choice, the rest without
    at: str | None  # the v2 path each choice is put at (gpu.id), None when there is no list
    choices: str | None  # the choices as code
    ranked: bool  # v1 ranked the choices by availability (its default priority)
    after: str | None  # the v1 fields set after the create, as code ({"locked": True})
    rules: tuple[str, ...]  # the rules of the fields it handles (R02, R12)


def _compat_fields(plan, spec, body: dict) -> CompatCreate | None:
    """The fallback list (a list of several choices, or a value only known at run time) and the after-create
    fields of a v1 create body, when the compat module can keep them; None when there are none or one cannot
    be kept (a priority only known at run time)."""
    if spec.mode != "create":
        return None
    policies = plan.kb.mappings.policies
    rest = dict(body)
    at = choices = None
    ranked = False
    rules: list[str] = []
    for key, value in body.items():
        field = spec.fields.get(key)
        policy = policies.get(field.policy) if field is not None and field.policy else None
        if policy is None or not field.to or not policy.walk_on:
            continue
        several = isinstance(value, list) and not isinstance(value, _ListMarker) and len(value) > 1
        if not (several or isinstance(value, (_Marker, _ListMarker))) or at is not None:
            continue
        order = next(((name, f.orders) for name, f in spec.fields.items() if f.orders and f.orders.field == key),
                      None)
        if order is not None:
            priority = body.get(order[0], order[1].default)
            if isinstance(priority, (_Marker, _ListMarker)):
                return None
            ranked = priority in order[1].when
            rest.pop(order[0], None)
        at, choices = field.to, render(_substitute(value))
        rest[key] = [_Marker(key, 0)]  # one stand-in choice: the translator converts the rest of the body
        rules.append(field.rule or "R02")
    after = {}
    for key, value in body.items():
        field = spec.fields.get(key)
        if field is not None and field.policy == AFTER_CREATE and value not in (False, None):
            after[key] = value
            rest.pop(key)
            rules.append(field.rule or "R12")
    if at is None and not after:
        return None
    return CompatCreate(rest, at, choices, ranked, render(_substitute(after)) if after else None,
                        tuple(dict.fromkeys(rules)))


def _drop_path(body: dict, at: str | None) -> None:
    """The stand-in choice out of the v2 body: create_with_fallback puts each choice there."""
    if at is None:
        return
    *parents, last = at.split(".")
    target = body
    for part in parents:
        target = target.get(part) if isinstance(target, dict) else None
    if isinstance(target, dict):
        target.pop(last, None)


def _changing_read_inside(plan, nodes: list) -> bool:
    """Does one of these expressions hold a read of a v1 answer that changes on v2 (`before["workersMax"]`)?
    A body value is moved as its source text, so an edit planned inside it would be lost."""
    src = plan.facts.source
    spans = [span for n in nodes if (span := src.span(n)) is not None]
    if not spans:
        return False
    responses = plan.kb.mappings.responses
    for other in plan.facts.calls:
        for read in other.reads:
            if src.span(read.node) is None:
                continue
            where = src.span(read.node).start
            if not any((s.start.line, s.start.column) <= (where.line, where.column) < (s.end.line, s.end.column)
                       for s in spans):
                continue
            if read.kind != "field":
                return True
            field = responses[read.route.op.response].fields.get(read.key) if read.route.op.response else None
            if field is None or field.source != read.key or field.omit or field.has_const or field.convert:
                return True
    return False


def plan_body(cf: CallFact, plan, map_id: str, node: cst.Dict) -> None:
    src, route = plan.facts.source, cf.route
    spec = plan.kb.mappings.requests[map_id]
    counter: list = []
    if _changing_read_inside(plan, [node, *(w.value for w in cf.body_writes)]):
        plan.flag(node, "L02", "body-field", route, "a body value reads a field of a v1 answer that v2 renames; "
                  "convert the body by hand (" + plan.rule_text("L02") + ")")
        return
    parsed = _literal_body(cf, plan, node, counter)
    if parsed is None:
        return
    body, quote = parsed
    if cf.body_writes:
        _plan_built_body(cf, plan, map_id, node, body, quote, counter)
        return
    v2_body = _translate(cf, plan, map_id, node, body)
    if v2_body is None:
        return
    _plan_dict(cf, plan, spec, node, body, v2_body, quote)


def _plan_dict(cf: CallFact, plan, spec, node: cst.Dict, body: dict, v2_body: dict, quote: str) -> None:
    """Decide that the v1 dict literal becomes its v2 form (built by `build_body`, comments carried)."""
    route = cf.route
    if _same_value(body, v2_body) and _render_body(plan.facts.source, node, spec, v2_body, quote) == plan.facts.source.code_of(node):
        return  # already written as its v2 form (a body whose values differ can never render as the original)
    plan.change("dict", node, "L02", V2Body(spec.id, v2_body, quote, whole=True))
    changed = [k for k in body if spec.fields[k].to != k]
    added = [name for k in v2_body if isinstance(name := k.key if isinstance(k, KeyIf) else k, str) and name not in body]
    detail = ", ".join(f"{k} -> {spec.fields[k].to or 'dropped'}" for k in changed)
    if added:
        detail += ("; " if detail else "") + "explicit v2 values for v1 defaults: " + ", ".join(added)
    plan.find(node, "L02", "body-field", f"v1 body -> v2 body ({detail})", True, route)


@dataclass(frozen=True)
class V2Body:
    """The decision on a body literal (WHOLE) or on one value set by `body["k"] = value`: its v2 value, markers
    standing for the expressions only known at run time."""

    map_id: str
    value: object
    quote: str
    whole: bool


def _same_value(a, b) -> bool:
    """Same keys in the same order and the same values (a run-time value: the same marker)?"""
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list) and not isinstance(a, _ListMarker) \
            and not isinstance(b, _ListMarker):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    return a is b or (type(a) is type(b) and not isinstance(a, _ListMarker) and a == b)


def _render_body(src, node: cst.Dict, spec, v2_body: dict, quote: str) -> str:
    new_body = _substitute(v2_body)
    original = src.code_of(node)
    multiline = "\n" in original
    # libcst indents continuation lines by the enclosing block itself: render relative to it, from the
    # indentation of the line the dict opens on (a dict inside a call's arguments sits deeper than its statement)
    level = _relative_indent(src, node) if multiline else ""
    code = render(new_body, quote=quote, indent="    " if multiline else None, level=level)
    if multiline:
        code = _carry_comments(node, code, spec, quote, level)
    return code


def build_body(change, plan) -> Edit:
    """The edit step of a body decision: the v2 source of the literal (or of the value of one statement)."""
    d: V2Body = change.data
    if d.whole:
        code = _render_body(plan.facts.source, change.node, plan.kb.mappings.requests[d.map_id], d.value, d.quote)
    else:
        code = render(_substitute(d.value), quote=d.quote)
    return Edit("dict", change.node, change.rule, code)


def _markers(value) -> set:
    if isinstance(value, _ListMarker):
        return {id(value)}
    if isinstance(value, _Marker):
        return {str(value)}
    if isinstance(value, When):
        return _markers(value.then) | _markers(value.otherwise)
    if isinstance(value, dict):
        return set().union(*(_markers(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_markers(v) for v in value)) if value else set()
    return set()


class _Quiet:
    """The plan as a check's translation sees it: the same knowledge and file, nothing recorded (what it would flag
    is a None translation)."""

    def __init__(self, plan) -> None:
        self.wrapped = plan
        self.scratch: dict = {}

    def __getattr__(self, name: str):
        return getattr(self.wrapped, name)

    def flag(self, *_args, **_kwargs) -> None:
        """Nothing: the check's caller decides."""

    find = note = change = flag


def _assume(value, known: dict):
    """VALUE with the tests KNOWN decides resolved: True takes a `When`'s then and keeps a `KeyIf` key; a falsy
    probe takes the otherwise, leaves the key out and stands for the run-time value itself."""
    if isinstance(value, _Marker):
        return known[value.code] if known.get(value.code, True) is not True else value
    if isinstance(value, When):
        if value.test in known:
            return _assume(value.then if known[value.test] is True else value.otherwise, known)
        return When(value.test, _assume(value.then, known), _assume(value.otherwise, known))
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if isinstance(k, KeyIf) and k.test in known:
                if known[k.test] is True:
                    out[k.key] = _assume(v, known)
                continue
            out[k] = _assume(v, known)
        return out
    if isinstance(value, list) and not isinstance(value, _ListMarker):
        return [_assume(v, known) for v in value]
    return value


@dataclass
class _Step:
    """What one statement (unconditional) or one `if` (its statements together) sets in the v2 body."""

    writes: list  # [(BodyWrite, v1 key, v1 value)]
    branch: cst.If | None  # the `if` the writes are under
    guard: str | None  # its test, when it is a plain name the v2 values may assume true
    sets: dict  # v2 key -> v2 value
    owners: dict  # v2 key -> the write that sets it


# Combinations of `if`s and "not set" values the check of a built body translates, at most (2 ** 6).
_MOST_CHOICES = 6


def _plan_built_body(cf: CallFact, plan, map_id: str, node: cst.Dict, literal: dict, quote: str, counter: list) -> None:
    """A body dict literal extended by `payload["k"] = v` statements (some under an `if`) before the call.

    An unconditional statement is converted on its own: what it adds to the v2 body, against the body without it,
    must be one top-level v2 key built from its own value only (`payload["containerDiskInGb"] = x` ->
    `payload["disk"] = x`), or nothing (`payload["volumeInGb"] = 0` goes). The statements under one `if` are
    converted together, as v1 fields set together may combine in one v2 key (`networkVolumeId` and
    `volumeMountPath` -> `mounts`): each v2 key they change is set by the first of them whose field goes there,
    the others go (the `if` too when nothing is left of it). The literal becomes the v2 body without the keys the
    unconditional statements set. The whole is checked against the translation of every combination of the `if`s
    taken and of the run-time values v1 read as "not set"; anything else is converted when it runs."""
    src, route = plan.facts.source, cf.route
    spec = plan.kb.mappings.requests[map_id]
    writes = [(w, str_of(w.key), _value(w.value, src, counter)) for w in cf.body_writes]
    base = dict(literal)
    for w, key, value in writes:
        if not w.conditional:
            base[key] = value
    probes: dict = {}  # a run-time value's code -> the falsy value it was translated with
    full = _translate(cf, plan, map_id, node, base, probes)
    if full is None:
        return
    quiet = _Quiet(plan)

    def by_hand(at: cst.CSTNode, why: str) -> None:
        _run_time_value(cf, plan, at, "L02", f"{why}; convert the body by hand (" + plan.rule_text("L02") + ")")

    steps: list[_Step] = []
    for w, key, value in writes:
        if not w.conditional:
            steps.append(_Step([(w, key, value)], None, None, {}, {}))
            continue
        branch = src.parent(src.parent(w.stmt))
        if steps and steps[-1].branch is branch:
            steps[-1].writes.append((w, key, value))
        else:
            guard = src.code_of(branch.test).strip()
            steps.append(_Step([(w, key, value)], branch, guard if _plain_test(guard) else None, {}, {}))
    for step in steps:
        own = set().union(*(_markers(v) for _w, _k, v in step.writes))
        if step.branch is None:  # against the body without it
            key = step.writes[0][1]
            without = dict(base)
            if key in literal:
                without[key] = literal[key]
            else:
                without.pop(key, None)
            before, after = _translate(cf, quiet, map_id, node, without, probes), full
        else:  # against the body without the `if`, its test true inside it
            before = full
            after = _translate(cf, quiet, map_id, node, {**base, **{k: v for _w, k, v in step.writes}}, probes)
            if after is not None and step.guard is not None:
                before, after = _assume(before, {step.guard: True}), _assume(after, {step.guard: True})
        if before is None or after is None:
            by_hand(step.writes[0][0].stmt, "the body's fields set over several statements cannot be translated "
                    "one by one")
            return
        changed = [k for k in {**before, **after} if before.get(k, _ABSENT) != after.get(k, _ABSENT)]
        if any(k not in after for k in before) or not all(isinstance(k, str) for k in changed) \
                or any(_markers(after[k]) - own for k in changed) or (step.branch is None and len(changed) > 1):
            by_hand(step.writes[0][0].stmt, f"the body field {step.writes[0][1]!r} set at this line changes more of "
                    "the v2 body than keys of its own")
            return
        for k in changed:
            owner = next((w for w, key, _v in step.writes if (spec.fields[key].to or "").split(".")[0] == k
                          and all(w is not taken for taken in step.owners.values())), None)
            if owner is None and step.branch is None:
                owner = step.writes[0][0]
            if owner is None:
                by_hand(step.writes[0][0].stmt, f"no body field set under this `if` goes to the v2 key {k!r}")
                return
            step.owners[k], step.sets[k] = owner, after[k]
    unconditional_keys = {k for step in steps if step.branch is None for k in step.sets}
    literal_out = {k: v for k, v in full.items() if k not in unconditional_keys}
    if not _checked(cf, quiet, map_id, node, base, literal_out, steps, probes):
        by_hand(node, "the body's fields set over several statements combine in the v2 body")
        return
    _plan_dict(cf, plan, spec, node, literal, literal_out, quote)
    for step in steps:
        kept = {id(owner) for owner in step.owners.values()}
        block = src.parent(step.writes[0][0].stmt)
        if step.branch is not None and not kept and step.guard is not None \
                and len(block.body) == len(step.writes) and "#" not in src.code_of(step.branch):
            plan.change("drop-statement", step.branch, "L02", None)  # nothing of the `if` is left
        for w, key, _v in step.writes:
            new_key = next((k for k, owner in step.owners.items() if owner is w), None)
            if new_key is None:
                if step.branch is not None and not kept and len(block.body) == 1 and step.guard is None:
                    plan.flag(w.stmt, "L02", "body-field", route, f"the body field {key!r} has no v2 place; remove "
                              "it by hand (" + plan.rule_text("L02") + ")")
                    continue
                if not (step.branch is not None and not kept and step.guard is not None
                        and len(block.body) == len(step.writes) and "#" not in src.code_of(step.branch)):
                    plan.change("drop-statement", w.stmt, "L02", drop_data(src, w.stmt))
                plan.find(w.stmt, "L02", "body-field", f"v1 body field {key!r}: not sent on v2 (statement removed)",
                          True, route)
                continue
            if new_key != key:
                plan.change("key", w.key, "L02", new_key)
            value = next(v for ww, _k, v in writes if ww is w)
            new_value = step.sets[new_key]
            if not (new_value is value or not isinstance(value, _ListMarker) and type(new_value) is type(value)
                    and new_value == value):
                plan.change("dict", w.value, "L02", V2Body(map_id, new_value, quote, whole=False))
            plan.find(w.stmt, "L02", "body-field", f"v1 body field {key!r} -> {new_key!r}", True, route)


def _checked(cf: CallFact, quiet, map_id: str, node: cst.CSTNode, base: dict, literal_out: dict, steps: list,
             probes: dict) -> bool:
    """Does the v2 body the rewritten statements build equal the translation of the v1 body the original ones
    build, for every combination of the `if`s taken and of the "not set" values (an `if` whose test is such a
    value decides it)?"""
    ifs = [step for step in steps if step.branch is not None]
    guards = {step.guard for step in ifs}
    free = [test for test in probes if test not in guards]
    if len(ifs) + len(free) > _MOST_CHOICES:
        return False
    for taken in range(2 ** len(ifs)):
        for truths in range(2 ** len(free)):
            known = {test: True if truths >> i & 1 else probes[test] for i, test in enumerate(free)}
            on = {id(step) for i, step in enumerate(ifs) if taken >> i & 1}
            for step in ifs:
                if step.guard in probes:
                    known[step.guard] = True if id(step) in on else probes[step.guard]
            v1, v2 = dict(base), dict(literal_out)
            for step in steps:
                if step.branch is None or id(step) in on:
                    v1.update({k: v for _w, k, v in step.writes})
                    v2.update(step.sets)
            got = _translate(cf, quiet, map_id, node, _assume(v1, known), {})
            if got is None or _assume(got, known) != _assume(v2, known):
                return False
    return True


def _comments_of(ws) -> tuple[str | None, list[str]]:
    """(comment on the same line, own-line comments after it) of a piece of whitespace."""
    if isinstance(ws, cst.ParenthesizedWhitespace):
        same = ws.first_line.comment.value if ws.first_line.comment is not None else None
        return same, [line.comment.value for line in ws.empty_lines if line.comment is not None]
    return None, []


def _relative_indent(src, node: cst.CSTNode) -> str:
    """Leading whitespace of the dict's first line beyond that of its statement's first line."""
    try:
        line = src.lines[src.span(node).start.line - 1]
        stmt = src.statement_of(node)
        first = src.lines[src.span(stmt).start.line - 1] if stmt is not None else line
    except (KeyError, IndexError):
        return ""
    own = line[: len(line) - len(line.lstrip(" \t"))]
    base = first[: len(first) - len(first.lstrip(" \t"))]
    return own[len(base):] if own.startswith(base) else ""


def _carry_comments(node: cst.Dict, code: str, spec, quote: str, level: str) -> str:
    """Put the comments of the v1 dict on the v2 entries their fields became (nothing is lost).

    A comment on a field's line goes to the end of the line of the v2 key the field moved into; an own-line
    comment above a field goes above that key; a comment whose field v2 drops goes above the closing brace.
    """
    elements = [el for el in node.elements if isinstance(el, cst.DictElement)]
    trailing: dict[int, list[str]] = {}
    leading: dict[int, list[str]] = {}
    head, own = _comments_of(node.lbrace.whitespace_after)
    leading.setdefault(0, []).extend(own)
    for i, el in enumerate(elements):
        ws = el.comma.whitespace_after if isinstance(el.comma, cst.Comma) else None
        if i == len(elements) - 1 and ws is None:
            ws = node.rbrace.whitespace_before
        same, own = _comments_of(ws)
        if same:
            trailing.setdefault(i, []).append(same)
        if own:
            leading.setdefault(i + 1, []).extend(own)
    if not (head or trailing or leading.get(0) or any(leading.values())):
        return code
    lines = code.split("\n")

    def line_of(v1_key: str) -> int | None:
        field = spec.fields.get(v1_key)
        target = (field.to or "").split(".")[0] if field is not None else ""
        for j, text in enumerate(lines):
            if text.startswith(f"{level}    {quote}{target}{quote}:"):
                return j
        return None

    before: dict[int | None, list[str]] = {}
    after: dict[int | None, list[str]] = {}
    for i, el in enumerate(elements):
        j = line_of(str_of(el.key) or "")
        before.setdefault(j, []).extend(leading.get(i, []))
        after.setdefault(j, []).extend(trailing.get(i, []))
    orphans = before.pop(None, []) + after.pop(None, []) + leading.get(len(elements), [])
    out = []
    for j, text in enumerate(lines):
        if j == 0 and head:
            text = f"{text}  {head}"
        if j == len(lines) - 1:
            out.extend(f"{level}    {c}" for c in orphans)
        out.extend(f"{level}    {c}" for c in before.get(j, []))
        if after.get(j):
            text = f"{text}  {'  '.join(after[j])}"
        out.append(text)
    return "\n".join(out)


def replace_body(node: cst.CSTNode, code: str) -> cst.CSTNode:
    """A v1 request dict replaced by its v2 form."""
    new = cst.parse_expression(code)
    return new.with_changes(lpar=getattr(node, "lpar", ()), rpar=getattr(node, "rpar", ()))


# ------------------------------------------------------------------ answer reads

def plan_read(read: Read, cf: CallFact, plan, rule_id: str) -> None:
    """A v1 answer field read by its v2 name (flat or nested), under RULE_ID (L02, or the field's own rule: Q13
    desiredStatus, Q14 costPerHr, Q25 a billing record's); flagged when v2 has no source for it."""
    route = read.route
    spec = plan.kb.mappings.responses[route.op.response].fields[read.key]
    name, node, how = read.key, read.node, read.how
    if spec.omit or spec.has_const or (spec.convert and not spec.convert_if_absent):
        if spec.rule is not None:
            plan.flag(node, spec.rule, "response-field", route, f"v1 field {name!r}: {plan.rule_text(spec.rule)}")
        return
    source = spec.source
    if source is None or source == name:
        return
    if isinstance(source, list):  # read from one of several v2 fields (cpu or gpu): a person picks
        plan.flag(node, rule_id, "response-field", route, f"v1 field {name!r} -> first of {', '.join(source)}")
        return
    if "." in source:
        parts = source.split(".")
        if any(part.isdigit() for part in parts):
            plan.flag(node, rule_id, "response-field", route, f"v1 field {name!r} -> {source}")
            return
        outer = plan.facts.source.parent(node)
        while outer is not None and not isinstance(outer, (cst.Subscript, cst.Call)):
            outer = plan.facts.source.parent(outer)
        if outer is None:
            return
        plan.change("path-read", outer, rule_id, (how, parts, node))
    else:
        plan.change("key", node, rule_id, source)
    plan.find(node, rule_id, "response-field", f"v1 field {name!r} -> {source!r}", True, route)


def _key(node: cst.SimpleString | None, text: str) -> cst.SimpleString:
    quote = node.quote if node is not None and len(node.quote) == 1 else '"'
    return cst.SimpleString(f"{quote}{text}{quote}")


def nest_read(node: cst.CSTNode, data) -> cst.CSTNode:
    """x["workersMin"] -> x["workers"]["min"]; x.get("workersMin") -> x.get("workers", {}).get("min")."""
    how, parts, key_node = data
    if how == "subscript" and isinstance(node, cst.Subscript):
        value = node.value
        for part in parts:
            value = cst.Subscript(value=value, slice=[cst.SubscriptElement(slice=cst.Index(value=_key(key_node, part)))])
        return value.with_changes(lpar=node.lpar, rpar=node.rpar)
    if how == "get" and isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        receiver = node.func.value
        rest = list(node.args[1:])
        expr: cst.BaseExpression = receiver
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            args = [cst.Arg(_key(key_node, part))]
            if not last:
                args = [cst.Arg(_key(key_node, part), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                        cst.Arg(cst.Dict([]))]
            elif rest:
                args = [cst.Arg(_key(key_node, part), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), *rest]
            expr = cst.Call(func=cst.Attribute(value=expr, attr=cst.Name("get")), args=args)
        return expr
    return node


BUILDS = {"dict": build_body}

def keep_call(node: cst.CSTNode, _parts) -> cst.CSTNode:
    """A `compat-part` decision edits nothing itself (the body's own edit writes the compat call); it ties the
    call's state 2 to that edit standing."""
    return node


APPLIES = {"dict": replace_body, "path-read": nest_read, "compat-part": keep_call}
