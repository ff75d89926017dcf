"""The planner: the rule modules judge one file's facts, the per-call decision follows, and only then the edits.

Which module rewrites which rule, in which order and for which stage, is data:
the `rewrite` entry of each rule in mappings/data/rules.yaml. At import the
planner loads the module each entry names (`codemod/rules/<module>.py`), checks
that it has exactly the stage functions the entry declares and that no module
of codemod/rules/ is left undeclared (`RuleRegistryError` otherwise).

`decide_file(analyzer, facts)` runs the stages on the facts: every v1 call
through the `call` modules in precedence order, every read of its answer
through the module of the read's rule (a list used bare, an error key: the rule
whose `reads` names it; a field: its rule in responses.yaml, else the rule
that plans `field` reads), then the `file` modules. What each call and read becomes is recorded in a
`codemod.changes.Plan` (changes and flags, no code); `codemod.decide` then puts
each call in state 1, 2 or 3 and drops the changes of the calls that stay.

`build_edits(plan)` is the edit step, for the rewrite only: each change left
becomes an `Edit` through the builder its rule module declares for its kind
(`BUILDS`), applied by that module's applier (`APPLIES`). The audit reads the
decisions (findings, flags) and builds nothing.
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING, Callable

from codemod import compat_call, decide, rules
from codemod.analysis.facts import CallFact, FileFacts, Read
from codemod.changes import Edit, Plan, Rewriter
from codemod.rules import edits
from mappings.errors import V1bridgeError
from mappings.index import index

if TYPE_CHECKING:  # pragma: no cover
    from codemod.analysis import Analyzer
    from mappings.models import Rule


class RuleRegistryError(V1bridgeError, RuntimeError):
    """The rule modules of codemod/rules/ and the `rewrite` entries of mappings/data/rules.yaml disagree."""


# the function of a rule module for each stage of mappings.models.RewriteStage
STAGE_FUNCTIONS = {"call": "plan_call", "read": "plan_read", "param": "plan_param", "body-field": "plan_body_field",
                   "file": "plan_file"}

# edit kinds in the order they apply on one node (a string span before a comment on the same statement)
ORDER = {kind: i for i, kind in enumerate(
    ["string", "name", "key", "path-read", "dict", "add-kwarg", "drop-operand", "drop-element", "verb-segment",
     "import-name",
     "drop-statement", "subscript",
     "page-call", "page-json", "page-loop", "page-import", "compat-call", "compat-pages", "compat-create", "compat-body", "compat-steps", "compat-part",
     "compat-regroup", "compat-error", "compat-view", "compat-import", "uncomment",
     "comment"])}


def rule_modules() -> set[str]:
    """The rule modules of codemod/rules/: `<rule id>_<name>.py` (shared helpers such as edits.py are not)."""
    return {info.name for info in pkgutil.iter_modules(rules.__path__)
            if info.name[:1].isalpha() and info.name[1:3].isdigit()}


def load(catalogue: dict[str, "Rule"]) -> tuple[dict[str, Rewriter], dict[str, Callable], dict[str, Callable]]:
    """(rule id -> its Rewriter, edit kind -> applier, edit kind -> builder) from the `rewrite` entries."""
    rewriters: dict[str, Rewriter] = {}
    appliers: dict[str, Callable] = {"string": edits.apply_string, "name": edits.apply_name, "key": edits.apply_key,
                                     "drop-statement": edits.drop_statement, "drop-element": edits.drop_element,
                                     "comment": edits.apply_comment, "uncomment": edits.apply_uncomment,
                                     "compat-call": compat_call.apply, "compat-create": compat_call.apply_create,
                                     "compat-body": compat_call.apply_body, "compat-pages": compat_call.apply_pages,
                                     "compat-view": compat_call.apply_view, "compat-import": compat_call.apply_import}
    builders: dict[str, Callable] = {"comment": edits.build_comment}
    declared = {r.id: r.rewrite for r in catalogue.values() if r.rewrite is not None and r.rewrite.module is not None}
    on_disk = rule_modules()
    missing = [f"{rule_id}'s rewrite module codemod/rules/{rw.module}.py does not exist"
               for rule_id, rw in declared.items() if rw.module not in on_disk]
    undeclared = sorted(on_disk - {rw.module for rw in declared.values()})
    if missing or undeclared:
        raise RuleRegistryError("; ".join(missing + (["codemod/rules/ holds modules no rule of "
                                                      f"mappings/data/rules.yaml names as its rewrite: "
                                                      f"{', '.join(undeclared)}"] if undeclared else [])))
    for rule_id, rw in declared.items():
        module = importlib.import_module(f"{rules.__name__}.{rw.module}")
        found = {stage for stage, fn in STAGE_FUNCTIONS.items() if callable(getattr(module, fn, None))}
        if found != set(rw.stages):
            raise RuleRegistryError(
                f"codemod/rules/{rw.module}.py plans the stages {sorted(found)}, rules.yaml declares "
                f"{sorted(rw.stages)} for {rule_id}")
        rewriters[rule_id] = Rewriter(rule_id, module.__name__, rw.precedence,
                                      **{STAGE_FUNCTIONS[s]: getattr(module, STAGE_FUNCTIONS[s]) for s in found})
        for registry, table in ((appliers, "APPLIES"), (builders, "BUILDS")):
            for kind, fn in getattr(module, table, {}).items():
                if kind in registry:
                    raise RuleRegistryError(f"edit kind {kind!r} in {table} of two modules")
                registry[kind] = fn
    for rule in catalogue.values():
        if rule.rewrite is not None and rule.rewrite.by is not None:
            rewriters[rule.id] = rewriters[rule.rewrite.by]
    return rewriters, appliers, builders


REWRITERS, APPLIERS, BUILDERS = load(index().mappings.rules)


def in_precedence(rewriters: dict[str, Rewriter], stage: str) -> list[Rewriter]:
    """The modules that plan STAGE, in the order rules.yaml gives them."""
    function = STAGE_FUNCTIONS[stage]
    own = {rw.module: rw for rw in rewriters.values() if getattr(rw, function) is not None}
    return sorted(own.values(), key=lambda rw: (rw.precedence, rw.rule))


CALL_STAGE = in_precedence(REWRITERS, "call")
FILE_STAGE = in_precedence(REWRITERS, "file")


# ----------------------------------------------------------------- dispatch

def plan_call(cf: CallFact, plan: Plan) -> None:
    route = cf.route
    if route.op.v2 is None or route.v2_segments is None:
        catalogue = plan.kb.mappings.rules
        rule = next((r for r in route.op.rules if catalogue[r].rule_class == "removed"),
                    route.op.rules[0] if route.op.rules else "L01")
        owner = plan.rewriters.get(rule)
        if owner is not None and owner.plan_call is not None:  # the removed rule's module keeps it (R01's steps)
            owner.plan_call(cf, plan)
        else:
            plan.flag(cf.call, rule, "call", route)
        return
    for rewriter in CALL_STAGE:
        rewriter.plan_call(cf, plan)


# read kind (mappings.models.ReadKind) -> the rule whose module plans it (rules.yaml `rewrite.reads`)
READ_OWNERS = {kind: rule.id for rule in index().mappings.rules.values()
               for kind in (rule.rewrite.reads if rule.rewrite is not None else ())}


def read_rule(read: Read, plan: Plan) -> str:
    """The rule a read of a v1 answer is planned under: a list used bare (a resource or a billing list) or an error
    key, the rule that names that kind of read in rules.yaml; a field, the rule responses.yaml gives it (else the
    rule that plans field reads)."""
    route = read.route
    if read.kind == "list":
        return READ_OWNERS["list" if route.op.shape == "list" else "billing"]
    if read.kind == "error":
        return READ_OWNERS["error"]
    return plan.kb.mappings.responses[route.op.response].fields[read.key].rule or READ_OWNERS["field"]


def plan_read(read: Read, cf: CallFact, plan: Plan) -> None:
    if read.kind == "loop":
        plan.flag(read.node, read.rule, "response-field", read.route, blocking=False)
        return
    rule = read_rule(read, plan)
    owner = plan.rewriters.get(rule)
    if owner is None or owner.plan_read is None:  # a field rule without a read module (Q12, R07, ...)
        owner = REWRITERS[READ_OWNERS["field"]]
    owner.plan_read(read, cf, plan, rule)


def plan_unresolved(plan: Plan) -> None:
    """A v1-shaped path whose base cannot be traced to this service: never edited, flagged by the decision. The
    finding says what could not be resolved (the audit's `review`)."""
    for site, route in plan.facts.unresolved + plan.facts.relative:
        plan.find(site.call, route.op.rules[0] if route.op.rules else "L01", "indirect",
                  f"{route.label()} through a base address defined elsewhere; check it by hand "
                  f"(review: {_unresolved_because(plan.facts.source, site.call)})", False, route)


def _unresolved_because(source, call) -> str:
    """What the analysis could not resolve for CALL: the object whose method sends the path, and whether it is
    handed in (a parameter of a function around it: its caller decides what it is) or set out of sight."""
    import libcst as cst

    from codemod.analysis.syntax import dotted

    func = call.func
    callee = dotted(func) or (func.attr.value if isinstance(func, cst.Attribute) else "")  # `rest().post`: post
    root = callee.split(".", 1)[0]
    fn = source.scope_of(call)
    while fn is not None and "." in callee:
        params = fn.params
        if any(p.name.value == root for p in (*params.posonly_params, *params.params, *params.kwonly_params)):
            return (f"`{root}` is handed in by the caller and no file of the project says what it is, so the base "
                    f"that `{callee}` joins the path to is unknown")
        fn = source.scope_of(fn)
    if callee:
        return f"the base that `{callee}` joins the path to is not set in any file the audit can follow"
    return "the base this path is joined to is not set in any file the audit can follow"


def plan_handed_in(plan: Plan) -> None:
    """v1 names on objects of unknown origin: findings for the audit, no edit."""
    for name, key_node, written in plan.facts.handed_in:
        kind = "body-field" if written else "response-field"
        for rule in plan.kb.field_rules.get(name, ()):
            plan.find(key_node, rule, kind, f"v1 field {name!r} on an object from elsewhere: " + plan.rule_text(rule),
                      False, attributed=False)


def decide_file(an: "Analyzer", facts: FileFacts, compat_import: str | None = None) -> Plan:
    """Every rule's decisions on the file's calls and reads, then the per-call decision (no edit built).

    COMPAT_IMPORT: the statement importing the compat module from this file (default `import v1bridge_compat`)."""
    plan = Plan(an, facts, rewriters=REWRITERS)
    if compat_import:
        plan.compat_import = compat_import
    for i, cf in enumerate(facts.calls):
        plan.unit = i
        plan_call(cf, plan)
        for read in cf.reads:
            if read.kind in ("field", "loop"):  # what it plans is kept apart: the call may read a v1 view instead
                plan.logged = []
                flags, findings = len(plan.flags.get(i, ())), len(plan.findings.get(i, ()))
                plan_read(read, cf, plan)
                plan.field_reads.setdefault(i, []).append(
                    (read, plan.logged, plan.flags.get(i, [])[flags:], plan.findings.get(i, [])[findings:]))
                plan.logged = None
            else:
                plan_read(read, cf, plan)
    plan.unit = "file"
    plan_unresolved(plan)
    for rewriter in FILE_STAGE:
        rewriter.plan_file(plan)
    plan_handed_in(plan)
    decide.decide(plan, plan_read)
    return plan


def build_edits(plan: Plan) -> list[Edit]:
    """The edit step (the rewrite's only): each change the decision kept, built by its rule module's builder;
    the spans of each literal as one string edit (spans two calls want different text for are left)."""
    out: list[Edit] = []
    for change in plan.changes.values():
        build = BUILDERS.get(change.kind)
        out.append(build(change, plan) if build is not None else
                   Edit(change.kind, change.node, change.rule, change.data))
    for node_id, spans in plan.spans.items():
        good = [tuple(s[:4]) for s in spans if (node_id, s[0]) not in plan.conflicts]
        if good:
            out.append(Edit("string", plan.span_nodes[node_id], ",".join(sorted({g[3] for g in good})),
                            tuple(sorted(good))))
    return out
