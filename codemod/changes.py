"""The record of one file's decisions: what each rule decided (changes, flags, findings), before any code is built.

A rule module (codemod/rules/) writes into a `Plan` (`plan.change`, `plan.flag`,
`plan.find`, `plan.note`); the per-call decision (`codemod.decide`) reads and
prunes it; the planner (`codemod.plan`) turns the changes left into `Edit`s.
The types live here, below all three, so none of them imports another to
name them.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import libcst as cst

from codemod.analysis.facts import FileFacts
from codemod.knowledge import Route

if TYPE_CHECKING:  # pragma: no cover
    from codemod.analysis import Analyzer


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


@dataclass(frozen=True)
class Rewriter:
    """The rule module that rewrites one rule, as the planner calls it (mappings/data/rules.yaml `rewrite`): one
    function per stage it plans, the others None. A rule handled `by` another rule's module has that module's."""

    rule: str  # the rule whose module this is
    module: str
    precedence: int
    plan_call: Callable | None = None  # (call fact, plan): a v1 call
    plan_read: Callable | None = None  # (read, call fact, plan, rule): a read of a v1 answer under `rule`
    plan_param: Callable | None = None  # (call fact, key node, name, queries.yaml spec, plan): a v1 query parameter
    plan_body_field: Callable | None = None  # (requests.yaml spec, value, plan) -> bool | Replace: convert it here?
    plan_file: Callable | None = None  # (plan): the file's v1 strings, after every call


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
    rewriters: dict[str, Rewriter] = field(default_factory=dict)  # rule id -> the module that rewrites it
    # unit -> [(a read of a field of its answer, the keys of the changes, the flags, the findings planned for it)]
    field_reads: dict[int, list] = field(default_factory=dict)
    logged: list | None = None  # while a field read is planned: the keys of its changes

    @property
    def kb(self):
        return self.an.kb

    # ------------------------------------------------------------- recording
    def rule_text(self, rule: str) -> str:
        r = self.kb.mappings.rules.get(rule)
        return r.remedy if r else ""

    def param_text(self, code: str, spec) -> str | None:
        """`<cause>: <remedy>` for a v1 query parameter v2 cannot rebuild whose queries.yaml `note` says why and
        what to do (`<why>; <what to do>`); None without one (its rule's remedy stands)."""
        if not spec.unsupported or not spec.note or "; " not in spec.note:
            return None
        why, _, remedy = spec.note.partition("; ")
        general = self.rule_text(spec.rule or "Q03")
        return f"v1 query parameter {code} has no v2 form, as {why}: {remedy}" + (f" ({general})" if general else "")

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
        if self.logged is not None:
            self.logged.append(key)

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
