"""Decisions, then edits: the rules judge one file's facts, the whole-client decision, and only then the edits.

`decide_file(analyzer, facts)` runs the decision step of every rule module of
`codemod/rules/` on the facts (calls, their bodies, queries and answer reads):
what each call and read becomes, as `Change`s (the node, the rule, what it
becomes: a v2 key, a v2 body value, the spans of a literal) and flags (it
cannot migrate: which rule, why), each tagged with the call it serves. No code
is built there. `codemod.decide` then migrates each client family whole or
leaves it whole and flagged, and drops the changes of the families that stay.

`build_edits(plan)` is the edit step, for the rewrite only: each change left
becomes an `Edit` through the builder its rule module registered for its
kind (`Rule.builds`), and is applied by that module's applier. The audit reads
the decisions (findings, flags) and builds nothing.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from codemod.analysis import Analyzer, CallFact, FileFacts, Read
from codemod.knowledge import Route


MARK = "# v1bridge:"  # the comments the rewrite writes start with this
NOTE = "(migrated)"  # a comment on migrated code, for a person to act on: kept by later runs (never stale)


@dataclass(frozen=True)
class Finding:
    rule: str
    line: int
    column: int
    message: str
    fixable: bool
    route: str | None
    v2_target: str | None
    kind: str
    source_line: str
    # False: a v1 name read on an object of unknown origin (the audit reports it; the rewrite leaves it alone)
    attributed: bool = True
    compat: bool = False  # fixed by sending the call to v2 through the compat module (state 2), not in place


@dataclass(frozen=True)
class Change:
    """A decision: this node changes under this rule, into what `data` says (no code built yet).

    Built into an `Edit` by the builder of its kind (`codemod.rules.BUILDERS`; none: the data is the edit's)."""

    kind: str
    node: cst.CSTNode
    rule: str
    data: Any = None

    def key(self) -> tuple:
        return (self.kind, id(self.node), repr(self.data))


@dataclass(frozen=True)
class Edit:
    """One change made ready to apply on one node, by the rule module that owns its `kind`."""

    kind: str  # "string" | "name" | "key" | "path-read" | "dict" | "add-kwarg" | "drop-operand" | "drop-element" | "verb-segment" | "drop-statement" | "subscript" | "comment"
    node: cst.CSTNode
    rule: str
    data: Any = None


@dataclass
class Flag:
    """A call (or read) left as it is, with `# v1bridge: RULE remedy` on its statement."""

    node: cst.CSTNode
    rule: str
    kind: str
    route: Route | None
    message: str
    blocking: bool  # True: the call cannot be migrated; False: migrated, with a note for a person


@dataclass(frozen=True)
class CallState:
    """Where one v1 call site ends after the rewrite: 1 plain v2, 2 v2 through the compat module, 3 flagged (left
    as it is, with a comment); the rule it moves or stays under, and for 2 and 3 the cause."""

    line: int
    state: int
    rule: str
    cause: str


@dataclass
class Plan:
    an: Analyzer
    facts: FileFacts
    changes: dict[tuple, Change] = field(default_factory=dict)
    change_units: dict[tuple, set] = field(default_factory=lambda: defaultdict(set))
    spans: dict[int, list] = field(default_factory=dict)  # id(literal) -> [(start, end, text, rule, units)]
    span_nodes: dict[int, cst.CSTNode] = field(default_factory=dict)
    conflicts: set = field(default_factory=set)
    findings: dict[Any, list[Finding]] = field(default_factory=lambda: defaultdict(list))  # unit -> findings
    flags: dict[Any, list[Flag]] = field(default_factory=lambda: defaultdict(list))
    notes: dict[Any, list[tuple[cst.CSTNode, str, str]]] = field(default_factory=lambda: defaultdict(list))
    seen: set = field(default_factory=set)
    commented: set = field(default_factory=set)
    unit: Any = None  # the call (index in facts.calls) being planned; "file" for file-level work
    verdicts: dict = field(default_factory=dict)  # (origin, name) -> crossfile.Verdict on a shared constant
    scratch: dict = field(default_factory=dict)  # a rule module's own state while one file is planned
    states: list[CallState] = field(default_factory=list)  # one per v1 call site, in the decision's order
    compat_import: str = "import v1bridge_compat"  # how this module imports the compat module (state 2)

    @property
    def kb(self):
        return self.an.kb

    # ------------------------------------------------------------- recording
    def rule_text(self, rule: str) -> str:
        r = self.kb.mappings.rules.get(rule)
        return r.remedy if r else ""

    def find(self, node: cst.CSTNode, rule: str, kind: str, message: str, fixable: bool, route: Route | None = None,
             attributed: bool = True, unit: Any = None) -> None:
        line, col, text = self.an.where(node)
        key = (line, col, rule, kind)
        if key in self.seen:
            return
        self.seen.add(key)
        self.findings[self.unit if unit is None else unit].append(
            Finding(rule, line, col, message, fixable, route.label() if route else None,
                    route.v2_label() if route else None, kind, text, attributed))

    def change(self, kind: str, node: cst.CSTNode, rule: str, data: Any = None) -> None:
        """Decide that NODE changes (under RULE, into DATA) for the call being judged."""
        change = Change(kind, node, rule, data)
        key = change.key()
        self.changes.setdefault(key, change)
        self.change_units[key].add(self.unit)

    def string_edit(self, node: cst.CSTNode, start: int, end: int, text: str, rule: str) -> None:
        spans = self.spans.setdefault(id(node), [])
        self.span_nodes[id(node)] = node
        for span in spans:
            s, e, t = span[0], span[1], span[2]
            if (s, e) == (start, end):
                if t != text:
                    self.conflicts.add((id(node), start))
                span[4].add(self.unit)
                return
            if s < end and start < e:
                self.conflicts.add((id(node), start))
                return
        spans.append([start, end, text, rule, {self.unit}])

    def flag(self, node: cst.CSTNode, rule: str, kind: str, route: Route | None = None, message: str | None = None,
             blocking: bool = True) -> None:
        """Cannot be rewritten safely: one `# v1bridge: RULE remedy` comment on the statement."""
        remedy = self.rule_text(rule)
        self.find(node, rule, kind, message or remedy, False, route)
        self.flags[self.unit].append(Flag(node, rule, kind, route, message or remedy, blocking))

    def note(self, node: cst.CSTNode, rule: str, message: str) -> None:
        """Migrated, with something a person should know (listed in the summary; no comment in the code)."""
        self.notes[self.unit].append((node, rule, message))

    def comment(self, node: cst.CSTNode, rule: str, message: str | None = None) -> None:
        """`# v1bridge: RULE <cause>: <remedy>` above the statement of NODE (once per rule and statement)."""
        stmt = self.an.statement_of(node)
        if stmt is None or (id(stmt), rule) in self.commented:
            return
        self.commented.add((id(stmt), rule))
        module = self.facts.module
        if module is not None and module.body and module.body[0] is stmt and any(
                line.comment is not None and (line.comment.value + " ").startswith(f"# v1bridge: {rule} ")
                for line in module.header):
            return  # the first statement's comments are the module's header: already said
        change = Change("comment", stmt, rule, (rule, message))
        self.changes[change.key()] = change
        self.change_units[change.key()].add("flag")

    def uncomment_stale(self) -> None:
        """`# v1bridge:` comments of an earlier run on statements this run does not flag under the same rule go
        (the line no longer needs them); the ones it flags again are written anew (their cause may have changed)."""
        if MARK not in self.an.source:
            return
        for stmt in self.an.commented_statements():
            change = Change("uncomment", stmt, "uncomment", None)
            self.changes[change.key()] = change
            self.change_units[change.key()].add("flag")

    # ------------------------------------------------------------ the result

    def manual_items(self) -> list[tuple[int, str, str]]:
        """(line, rule, message) of every call or read left to a person: one per flag, in line order."""
        out: dict[tuple[int, str], str] = {}
        for flags in self.flags.values():
            for flag in flags:
                out.setdefault((self.an.where(flag.node)[0], flag.rule), flag.message)
        for notes in self.notes.values():
            for node, rule, message in notes:
                out.setdefault((self.an.where(node)[0], rule), message)
        return [(line, rule, msg) for (line, rule), msg in sorted(out.items())]

    def all_findings(self) -> list[Finding]:
        found = [f for group in self.findings.values() for f in group]
        found.sort(key=lambda f: (f.line, f.column, f.rule))
        return found


def decide_file(an: Analyzer, facts: FileFacts, compat_import: str | None = None) -> Plan:
    """Every rule's decisions on the file's calls and reads, then the per-call decision (no edit built).

    COMPAT_IMPORT: the statement importing the compat module from this file (default `import v1bridge_compat`)."""
    from codemod import decide
    from codemod.rules import plan_call, plan_handed_in, plan_read, plan_strings, plan_unresolved

    plan = Plan(an, facts)
    if compat_import:
        plan.compat_import = compat_import
    for i, cf in enumerate(facts.calls):
        plan.unit = i
        plan_call(cf, plan)
        for read in cf.reads:
            plan_read(read, cf, plan)
    plan.unit = "file"
    plan_unresolved(plan)
    plan_strings(plan)
    plan_handed_in(plan)
    decide.decide(plan)
    return plan


def build_edits(plan: Plan) -> list[Edit]:
    """The edit step (the rewrite's only): each change the decision kept, built by its rule module's builder;
    the spans of each literal as one string edit (spans two calls want different text for are left)."""
    from codemod.rules import BUILDERS

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
