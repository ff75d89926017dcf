"""The whole-client decision, in one place, from the rules' decisions (no edit is built before it).

A *client family* is every call that shares something a change would touch:
a base literal (a constant, a default argument, a class attribute), a path
constant, a helper function. A family is migrated whole or not at all:

- when every call of the family was judged to migrate completely (no blocking
  flag), its changes stand (the rewrite then builds and applies them);
- otherwise none of its changes is kept, and each of its calls is flagged
  (`# v1bridge: RULE remedy`), its own blocking rule when it has one, else the
  rule of its route with the reason it stays.

A base is also kept (and its family flagged) when it *escapes*: a variable
that holds it is used to build a URL somewhere the analysis did not follow
(an f-string, `+`, `urljoin`, `.format` outside the traced calls). Changing
it would leave that other URL with a v2 base and a v1 path.
"""
from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

import libcst as cst

from codemod.analysis.references import base_escape, builds_url as _builds_url, inside as _inside, \
    references as _references, variable as _variable
from codemod.analysis.syntax import constant_literal, flatten, str_of
from codemod.knowledge import HOLE
from codemod.changes import NOTE, CallState, Finding, Flag

if TYPE_CHECKING:  # pragma: no cover
    from typing import Callable

    from codemod.analysis.facts import CallFact, Read
    from codemod.changes import Plan

    ReadPlanner = Callable[[Read, CallFact, Plan], None]


class _Families:
    def __init__(self, n: int) -> None:
        self.up = list(range(n))

    def find(self, a: int) -> int:
        while self.up[a] != a:
            self.up[a] = self.up[self.up[a]]
            a = self.up[a]
        return a

    def join(self, units) -> None:
        units = [u for u in units if isinstance(u, int)]
        for u in units[1:]:
            self.up[self.find(u)] = self.find(units[0])


def decide(plan: "Plan", plan_read: "ReadPlanner") -> None:
    """PLAN_READ plans one answer read by its rule (`codemod.plan.plan_read`); handed in because the rules sit
    above the decision, which must not import them."""
    facts, an = plan.facts, plan.an
    n_calls = len(facts.calls)
    # pseudo-units: calls of this service's v1 that no route matches, and /v1 calls on a shared base of another host
    extra = ([("unmatched", u) for u in facts.unmatched] + [("foreign", f) for f in facts.foreign]
             + [("unresolved", u) for u in facts.unresolved])
    total = n_calls + len(extra)
    fam = _Families(total)
    sites = [cf.site for cf in facts.calls] + [(e[1] if e[0] == "foreign" else e[1][0]) for e in extra]

    # 1. what ties calls together: a literal of their URL, the helper they go through, an edit they share
    by_node: dict[int, int] = {}
    by_helper: dict[int, int] = {}
    for u, site in enumerate(sites):
        for info in (site.url, site.base):
            for piece in info.pieces if info is not None else ():
                if piece.node is not None:
                    fam.join([by_node.setdefault(id(piece.node), u), u])
        helper = site.helper
        while helper is not None:
            fam.join([by_helper.setdefault(id(helper.fn), u), u])
            helper = helper.inner.helper if helper.inner is not None else None
    for units in plan.change_units.values():
        fam.join(list(units))
    for spans in plan.spans.values():
        for span in spans:
            fam.join(list(span[4]))

    # 2. why a family cannot move
    reasons: dict[int, list[tuple[int, str, str]]] = {}  # root -> [(unit, rule, why)]

    translating = _helpers_to_translate(plan, fam, sites, n_calls)
    translated = {u for units in (t[2] for t in translating.values() if t[1] is not None) for u in units}

    def block(u: int, rule: str, why: str) -> None:
        if u in translated:
            return  # goes through a helper whose request is translated at run time: its answer stays v1's
        reasons.setdefault(fam.find(u), []).append((u, rule, why))

    for u, cf in enumerate(facts.calls):
        _pages_at_call(plan, u, cf, plan_read)
    for u in range(n_calls):
        for flag in plan.flags.get(u, ()):
            if flag.blocking:
                block(u, flag.rule, flag.message)
    for k, (kind, item) in enumerate(extra):
        u = n_calls + k
        site = sites[u]
        line = an.where(site.call)[0]
        if kind == "unmatched":
            _site, path, candidates = item
            removed = {}
            never = not candidates and not (site.url is not None and site.url.kind == "wrong-host")
            spelled = tuple("{}" if seg == HOLE else seg for seg in path.split("?")[0].strip("/").split("/"))
            if never and not any(HOLE in seg for seg in spelled) and plan.kb.is_v2_relative(spelled):
                # v2's own spelling on the v1 base (`/network-volumes`): v1 answered 404 there; once the base moves
                # with the calls beside it, the line is a call of that v2 route as it stands
                plan.unit = u
                _move_base(plan, site)
                plan.note(site.call, "L01", f"{site.method or ''} {path} is v2's spelling of a route, never a v1 one "
                                            "(v1 answered 404): on the v2 base it calls that v2 route")
                plan.scratch.setdefault("v2-spelled", set()).add(u)
                continue
            if site.url is not None and site.url.kind == "wrong-host":
                rule = "L01"
                why = (f"{site.method or ''} {path} on a v1 prefix of the v2 host, where v1 was never served (the "
                       "call answered 404): a person must confirm what it should do")
            else:
                # a route a part known only at run time may make it (`reset` among the verbs) that v2 removed: its
                # own rule says what to do there
                removed = {r: c for c in candidates if c.op.v2 is None for r in c.op.rules if r.startswith("R")}
                if not candidates:  # a verb v1 never had, next to the verbs it had (`/pods/{id}/resume`)
                    segs = path.rstrip("/").split("/")
                    candidates = plan.kb.could_match("/".join(segs[:-1] + [HOLE]), site.method, HOLE) if len(segs) > 2 else []
                rule = "L04" if any("L04" in r.op.rules or r.op.v2 is None for r in candidates) else "L01"
                why = (f"v1 call {site.method or ''} {path.replace(HOLE, '{?}')} matches no single v1 route "
                       f"(a part is only known at run time, or v1 never had it); migrate it by hand")
                unrouted = _unrouted(plan, site.method, path) if never else None
                if unrouted is not None:  # left to a person, sent to v2 as it is (as the base moves)
                    rule, why = unrouted
                    plan.scratch.setdefault("unrouted", set()).add(u)
            plan.unit = u
            plan.flag(site.call, rule, "call", None, why)
            for extra_rule, route in removed.items():
                plan.flag(site.call, extra_rule, "call", None,
                          f"the call may be {route.label()}, which v2 does not have; {plan.rule_text(extra_rule)}")
            for read in an.error_reads_of(site.call):  # its error reads stay v1 with it, and say so
                plan.flag(read.node, "Q29", "response-field", None,
                          f"error read of the call at line {line}, which stays on v1; " + plan.rule_text("Q29"))
            block(u, rule, why)
        elif kind == "unresolved":
            _site, route = item
            rule = _route_rule(route, site)
            why = (f"{route.label()} on a base address the rewrite cannot trace to this service (set at run time); "
                   f"migrate base and path together by hand ({plan.rule_text(rule)})")
            plan.unit = u
            plan.flag(site.call, rule, "indirect", route, why)
            block(u, rule, why)
        else:
            block(u, "L01", f"line {line}: a call through the same base is not one of this API's v1 routes")
    # a helper that also serves job-API or v2 calls keeps its own reads (error keys) as they are
    for u, cf in enumerate(facts.calls):
        helper = cf.site.helper
        while helper is not None:
            if id(helper.fn) in facts.shared_helpers and any(r.kind == "error" for r in cf.reads):
                block(u, "Q29", f"the helper {helper.fn.name.value}() also serves v2 or job-API calls and reads "
                                "v1 error keys; split it before migrating")
                break
            helper = helper.inner.helper if helper.inner is not None else None

    # v1-only names read on answers the analysis could not trace (a dict handed in, a list read elsewhere): if the
    # calls moved to plain v2, those reads would silently read nothing from their answers; so every call of the
    # file keeps v1's answer (state 2, through the run-time translation), or stays v1 with its family
    untraced = [(name, key) for name, key, written in facts.handed_in
                if not written and not _on_another_files_answer(plan, key)] + _untraced_renamed_reads(plan)
    if untraced and n_calls:
        name, key = untraced[0]
        line = an.where(key)[0]
        for u in range(n_calls):
            block(u, plan.kb.field_rules.get(name, ("L02",))[0],
                  f"v1 field {name!r} is read at line {line} on an answer the rewrite cannot trace to its call")

    # an answer a function returns to other files of the run: what they read of it is not known here, so they get
    # v1's answer (state 2) unless v2's answer reads the same: the call is plain v2 and the function returns the v1
    # view of its answer (`_plan_view`), or, when the call cannot be plain v2 anyway, the whole call is translated
    viewed: dict[int, set] = {}  # unit -> the functions returning the v1 view of its answer
    # the function returning the call's own answer first: those returning what it returns pass its view on
    for u, fn_name in sorted(_answers_returned_elsewhere(plan), key=lambda e: not _returns_own(an, facts.calls[e[0]],
                                                                                               e[1])):
        if _return_agreed(an, fn_name):
            continue  # every caller in the run reads it as v2's (renamed there): plain v2
        cf = facts.calls[u]
        callers = ", ".join(posixpath.relpath(p, posixpath.dirname(an.path) or ".") for p in an.imported_by)
        why = f"its answer is returned by {fn_name}(), " + (
            f"which other files of the run call ({callers}): they read it as v1 answered it" if callers else
            "whose callers get one record per bucket on v1, one per resource and bucket on v2")
        # reads of the answer in this module, past FN_NAME, of fields the v1 view builds (`publicIp`): they read the
        # view FN_NAME returns as they are written, so they hold back nothing
        on_view = _read_on_view(plan, u, cf, _returning(an, fn_name))
        covered = {(f.rule, f.message) for _read, _keys, flags, _finds in on_view or () for f in flags if f.blocking}
        own = any(v == u and (rule, why_not) not in covered for v, rule, why_not in reasons.get(fam.find(u), ()))
        if not own and u not in translated and _passes_view_on(an, cf, viewed.get(u, ()), fn_name):
            continue  # FN_NAME returns what a function already returning the v1 view gave it
        if not own and u not in translated and callers and on_view is not None \
                and _plan_view(plan, u, fn_name, why, on_view):
            viewed.setdefault(u, set()).add(fn_name)
            root = fam.find(u)
            if root in reasons:
                reasons[root] = [r for r in reasons[root] if r[0] != u or (r[1], r[2]) not in covered]
                if not reasons[root]:
                    del reasons[root]
            continue
        block(u, _call_rule(cf), why)

    # state 2 for the answer only: a call kept back by nothing but reads of fields v2 does not name is plain v2,
    # its answer read through the v1 view of the record
    _view_records(plan, fam, reasons, n_calls, translated)
    # state 2: a call the rules cannot make plain v2 goes through the run-time translation of the compat module
    wrapped = _wrap_blocked(plan, fam, sites, reasons, n_calls, extra)
    # ... or, when every call of a family left goes through helpers of this module, the helpers' own requests do
    translated |= _translate_blocked(plan, fam, sites, reasons, n_calls, extra, translating)

    # 3. a base that escapes: a variable holding an edited literal also builds URLs the analysis did not follow
    edited_literals: dict[int, set] = {}
    for node_id, spans in plan.spans.items():
        for span in spans:
            for u in span[4]:
                if isinstance(u, int):
                    edited_literals.setdefault(fam.find(u), set()).add(node_id)
    traced: dict[int, set[int]] = {}
    ref_vars: dict[int, list] = {}
    for u, site in enumerate(sites):
        root = fam.find(u)
        for ref, ids in site.refs:
            traced.setdefault(root, set()).add(id(ref))
            if ids & edited_literals.get(root, set()):
                ref_vars.setdefault(root, []).append(ref)
    all_traced = set().union(*traced.values()) if traced else set()
    for root, refs in ref_vars.items():
        if root in reasons:
            continue
        asked = set()
        for ref in refs:
            variable = _variable(an, ref)
            if variable in asked:  # the same variable read at another call site: the same answer
                continue
            asked.add(variable)
            escaped = next((r for r in _references(an, ref) if id(r) not in all_traced and _builds_url(an, r)), None)
            if escaped is not None:
                line = an.where(escaped)[0]
                block(root, "L01", f"its base {an.code_of(ref)} also builds a URL at line {line} that the rewrite "
                                   "cannot follow")
                break

    # 3b. constants shared with other files of the run: one a use elsewhere keeps stays here too
    for u, site in enumerate(sites):
        why = _shared_constant_kept(an, site)
        if why is not None:
            block(u, "L01", why)

    # 4. blocked families: nothing of theirs changes; every call is flagged (a wrap of theirs is undone: the
    # base it would go through stays v1)
    blocked_roots = set(reasons)
    for u in [u for u in wrapped if fam.find(u) in blocked_roots]:
        del wrapped[u]
    _keep_wraps(plan, wrapped, sites)
    if blocked_roots:
        def dead(units) -> bool:
            return any(isinstance(u, int) and fam.find(u) in blocked_roots for u in units)

        for key in [k for k, units in plan.change_units.items() if dead(units)]:
            del plan.changes[key]
            del plan.change_units[key]
        for node_id in list(plan.spans):
            plan.spans[node_id] = [s for s in plan.spans[node_id] if not dead(s[4])]
        for u in range(n_calls):
            root = fam.find(u)
            if root not in blocked_roots:
                continue
            cf = facts.calls[u]
            plan.notes.pop(u, None)
            own = [f for f in plan.flags.get(u, ()) if f.blocking]
            plan.flags[u] = own
            call_stmt = an.statement_of(cf.call)
            if own and not any(an.statement_of(f.node) is call_stmt for f in own):
                # the reason sits elsewhere (a query key, a body built above): the call says so too
                plan.flags[u].append(Flag(cf.call, own[0].rule, "call", cf.route, own[0].message, True))
            if not own:
                cause_unit, cause_rule, cause = reasons[root][0]
                cause_line = an.where(sites[cause_unit].call)[0]
                rule = _call_rule(cf)
                plan.flags[u].append(Flag(cf.call, rule, "call", cf.route,
                                          f"left on v1 with its client (line {cause_line}: {cause_rule} {cause}); "
                                          + plan.rule_text(rule), True))
            plan.findings[u] = [_unfixed(f) for f in plan.findings.get(u, ())]
            for flag in plan.flags[u]:
                line, col, text = an.where(flag.node)
                # reported under the rule of its comment, even beside the call's own finding of another rule
                # (`rewrite` then `audit` say the same thing about each call left)
                if not any(f.line == line and f.rule == flag.rule for f in plan.findings[u]):
                    plan.findings[u].append(Finding(flag.rule, line, col, flag.message, False,
                                                    cf.route.label(), cf.route.v2_label(), flag.kind, text))
        for u in list(plan.findings):
            if isinstance(u, int) and u >= n_calls and fam.find(u) in blocked_roots:
                plan.findings[u] = [_unfixed(f) for f in plan.findings[u]]
        _flag_helpers(plan, fam, sites, reasons, n_calls)

    # before the word on shared constants: a base a translated or agreed helper moves is one
    _translate(plan, translating, translated)
    _helpers_agreed(plan, fam, sites, blocked_roots)
    _factories_agreed(plan, fam, sites)
    _cross_file(plan, fam, sites, reasons, all_traced)
    _returns_agreed(plan, fam, blocked_roots, wrapped, translated, plan_read)
    _states(plan, fam, sites, extra, n_calls, blocked_roots, wrapped, translated)
    _through_imported(plan)
    _on_clients_from_elsewhere(plan)
    _refused_at_run_time(plan)

    # 5. every flag left becomes one comment on its statement, `<RULE> <cause>: <remedy>`
    for flags in plan.flags.values():
        for flag in flags:
            if flag.blocking:
                flag.message = _with_cause(plan, flag)
            plan.comment(flag.node, flag.rule, flag.message if flag.blocking else NOTE)
    plan.uncomment_stale()


def _with_cause(plan: "Plan", flag: Flag) -> str:
    """The flag's message as `<cause>: <remedy>`: what the rewrite could not read or write, then what to do. A rule
    that flagged with its remedy alone gets the cause from what it flagged (the call's route, the key's text)."""
    remedy = plan.rule_text(flag.rule)
    message = flag.message
    if message and message != remedy:
        if ": " in message:
            return message
        head, sep, tail = message.partition("; ")
        return f"{head}: {tail}" if sep else f"{message}: {remedy}"
    if flag.kind in ("call", "indirect") and flag.route is not None:
        cause = f"{flag.route.label()} cannot be written as v2 code at this call"
    else:
        text = plan.an.code_of(flag.node)
        text = text if len(text) <= 60 and "\n" not in text else text[:57].split("\n")[0] + "..."
        what = {"param": "query parameter", "body-field": "body field", "response-field": "answer field",
                "error-read": "error read", "base-url": "base address"}.get(flag.kind, flag.kind.replace("-", " "))
        where = "in " if isinstance(flag.node, (cst.Call, cst.BaseCompoundStatement, cst.SimpleStatementLine)) else ""
        cause = f"v1 {what} {where}{text} has no v2 form the rewrite can write here"
    return f"{cause}: {remedy}"


def _piece_ids(site) -> set[int]:
    return {id(p.node) for info in (site.url, site.base) if info is not None for p in info.pieces if p.node is not None}


def _shared_constant_kept(an, site) -> str | None:
    """Why a call cannot move: it goes through a constant shared with other files that one of them keeps."""
    if not an.ext_nodes and not an.export_nodes:
        return None
    ids = _piece_ids(site)
    for name, node in an.ext_nodes.items():
        ext = an.externals[name]
        if id(node) in ids and ext.blocked:
            origin = posixpath.relpath(ext.origin, posixpath.dirname(an.path) or ".")
            return f"its constant {name} (from {origin}) stays v1: {ext.blocked}"
    for node_id, name in an.export_nodes.items():
        verdict = an.exports.get(name)
        if node_id in ids and verdict is not None and verdict.state == "stay":
            return f"its constant {name} stays v1 for other files of the run: {verdict.why}"
    return None


def _cross_file(plan: "Plan", fam: _Families, sites: list, reasons: dict, traced: set[int]) -> None:
    """Constants shared with other files of the run (codemod.crossfile): the edits agreed for this file's
    exported constants, and this file's verdict on each shared constant it reads."""
    an = plan.an
    if not an.externals and not an.export_nodes:
        return
    for node_id, name in an.export_nodes.items():
        verdict = an.exports.get(name)
        node = next(constant_literal(n) for n, _stmt in an.ix.assigns[None][name])
        if verdict is None or verdict.state == "same":
            continue
        plan.unit = "export"
        if verdict.state == "go":
            for start, end, text, rule in verdict.text:
                plan.string_edit(node, start, end, text, rule)
            plan.find(node, "L01", "base-url", f"v1 base address -> {an.v2_base} (with every file that imports it)",
                      True)
        else:
            plan.flag(node, "L01", "base-url", None, f"{name} is imported by other files of the run and stays v1 "
                                                      f"with them ({verdict.why}); " + plan.rule_text("L01"))
    from codemod.prefilter import needs_parse

    for name, ext in an.externals.items():
        if not needs_parse(ext.value):
            continue  # a method or an image name: lends its value, never edited (codemod.crossfile.Table.users)
        verdict = _verdict(plan, fam, sites, reasons, traced, id(an.external_node(name)), name)
        if verdict is not None:
            plan.verdicts[an.externals[name].key] = verdict
    for node_id, name in an.export_nodes.items():
        if an.exports.get(name) is None:
            verdict = _verdict(plan, fam, sites, reasons, traced, node_id, name)
            if verdict is not None:
                plan.verdicts[(an.path, name)] = verdict


def _verdict(plan: "Plan", fam: _Families, sites: list, reasons: dict, traced: set[int], node_id: int,
             name: str):
    """This file's word on a shared constant: 'go' with the edits its calls need, 'stay' when a call through it
    stays v1 or it builds a URL the analysis cannot follow, 'same' when its calls need no change of it."""
    from codemod.crossfile import Verdict

    an = plan.an
    units = [u for u, site in enumerate(sites) if node_id in _piece_ids(site)]
    for u in units:
        if fam.find(u) in reasons:
            cause_unit, rule, why = reasons[fam.find(u)][0]
            return Verdict("stay", why=f"a call through it stays v1 ({rule}: {why})", line=an.where(sites[u].call)[0])
    spans = plan.spans.get(node_id, [])
    if any((node_id, s[0]) in plan.conflicts for s in spans):
        return Verdict("stay", why="its calls need different edits of it", line=an.where(sites[units[0]].call)[0]
                       if units else 0)
    if spans:
        needs, line = plan.scratch.get("moves-with", {}).get(node_id, (None, 0))  # a client factory's base, the
        # factory still weighed by the run
        return Verdict("go", text=tuple(sorted(tuple(s[:4]) for s in spans)), needs=(needs,) if needs else (),
                       line=line)
    if units:
        return Verdict("same")
    node = an.ext_nodes.get(name) if name in an.externals else next(constant_literal(n)
                                                                    for n, _s in an.ix.assigns[None][name])
    if an.classify(str_of(node) or "")[0] != "v1":
        return None  # not a v1 address (already v2, a path): nothing of it to keep
    owner, _dot, attr = name.rpartition(".")  # `constants.REST_URL`: read on a module imported whole
    field_defaults = an.field_defaults() if not owner else set()  # the files reading the field give their word
    for scope_names in an.ix.names.values():
        for ref in scope_names.get(owner or name, ()):
            if id(ref) in field_defaults:
                continue
            if owner:
                ref = an.parent(ref)
                if not isinstance(ref, cst.Attribute) or ref.attr.value != attr:
                    continue
            if id(ref) not in traced and _builds_url(an, ref):
                return Verdict("stay", why="it builds a URL the rewrite cannot follow", line=an.where(ref)[0])
    return None


def _flag_helpers(plan: "Plan", fam: _Families, sites: list, reasons: dict, n_calls: int) -> None:
    """The call a helper makes for a blocked family is left too: it carries the comment of the rule that keeps
    most of the calls through it on v1 (ties: the first cause); when none of them is a cause (the family is kept by
    another helper's call), the rule most of them stay under (a GET helper's lists: Q02, not the PATCH remedy). A helper that also serves v2 or job-API calls is not
    the v1 client's alone and keeps no comment."""
    an, shared = plan.an, plan.facts.shared_helpers
    done: set[int] = set()
    done_reads: set[tuple[int, str]] = set()
    for u, site in enumerate(sites[:n_calls]):  # calls of a v1 route (a base traced elsewhere is reported once)
        root = fam.find(u)
        if root not in reasons:
            continue
        helper = site.helper
        while helper is not None:
            inner = helper.inner
            if id(helper.fn) not in done and id(helper.fn) not in shared and inner is not None \
                    and (inner.helper is None or id(inner.helper.fn) in shared):
                done.add(id(helper.fn))
                through = {v for v in range(n_calls) if fam.find(v) == root and _goes_through(sites[v], helper.fn)}
                own = [r for r in reasons[root] if r[0] in through]  # causes among the helper's own calls
                rules = [rule for _u, rule, _why in own] or [_call_rule(plan.facts.calls[v]) for v in sorted(through)]
                rule = max(rules, key=lambda r: (rules.count(r), -rules.index(r)))
                cause_unit, cause_rule, cause = next((r for r in own if r[1] == rule), reasons[root][0])
                why = (f"the helper {helper.fn.name.value}() stays on v1 with its callers (line "
                       f"{an.where(sites[cause_unit].call)[0]}: {cause_rule} {cause}); {plan.rule_text(rule)}")
                plan.unit = u
                plan.flag(inner.call, rule, "call", site.route, why)
                # error reads inside the helper serve every caller: they stay v1 with it, and say so
                for cf in (plan.facts.calls[v] for v in range(n_calls) if fam.find(v) == root):
                    for read in cf.reads:
                        if read.kind == "error" and _inside(an, read.node, helper.fn) \
                                and (id(read.node), "Q29") not in done_reads:
                            done_reads.add((id(read.node), "Q29"))
                            plan.flag(read.node, "Q29", "error-read", cf.route,
                                      f"error read [{read.key!r}] in the helper {helper.fn.name.value}(), which "
                                      f"stays on v1 with its callers; {plan.rule_text('Q29')}")
            helper = inner.helper if inner is not None else None


def _goes_through(site, fn: cst.FunctionDef) -> bool:
    helper = site.helper
    while helper is not None:
        if helper.fn is fn:
            return True
        helper = helper.inner.helper if helper.inner is not None else None
    return False


def _untraced_renamed_reads(plan: "Plan") -> list:
    """Reads (`x["k"]`, `x.get("k")`) of a field that v2 renames in an answer this file's calls get, on an object
    the analysis did not tie to a call: if those calls moved, such a read would silently miss on v2."""
    an, facts = plan.an, plan.facts
    responses = plan.kb.mappings.responses
    renamed: set[str] = set()
    for cf in facts.calls:
        rmap = responses.get(cf.route.op.response) if cf.route.op.response else None
        for key, spec in (rmap.fields.items() if rmap is not None else ()):
            if spec.source != key or spec.omit or spec.has_const:
                renamed.add(key)
    if not renamed:
        return []
    judged = {id(r.node) for cf in facts.calls for r in cf.reads}
    out = []
    for sub in an.ix.subscripts:
        if len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index):
            key = sub.slice[0].slice.value
            name = _literal(key)
            if name in renamed and id(key) not in judged and id(key) not in an.read_keys \
                    and not isinstance(an.parent(sub), cst.AssignTarget) and not an.foreign_answer(key) \
                    and not _on_another_files_answer(plan, key):
                out.append((name, key))
    for call in an.ix.calls:
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "get" and call.args:
            key = call.args[0].value
            name = _literal(key)
            if name in renamed and id(key) not in judged and id(key) not in an.read_keys \
                    and not an.foreign_answer(key) and not _on_another_files_answer(plan, key):
                out.append((name, key))
    return out


def _on_another_files_answer(plan: "Plan", key: cst.CSTNode) -> bool:
    """Is the object KEY is read on (`obj["k"]`, `obj.get("k")`, `obj["gpu"]["id"]`) what a function of this module
    returned, every `return` of that function handing on another file's answer (`pod = wait_running(...)`, which
    returns `rp.get_pod(...)`)? A name bound more than once reads the binding that reaches it on every path: the
    last one before it among the statements of its function's own body. Such a read does not hang on this file's
    calls."""
    an = plan.an
    obj = an.read_on(key)
    while isinstance(obj, cst.Subscript):
        obj = obj.value
    if isinstance(obj, cst.Name):
        scope = an.scope_of(obj)
        line = an.line_of(obj)
        before = [(an.line_of(stmt), value, stmt) for value, stmt in an.ix.assigns.get(
            id(scope) if scope is not None else None, {}).get(obj.value, []) if an.line_of(stmt) < line]
        if not before:
            return False
        _line, obj, stmt = max(before, key=lambda entry: entry[0])
        if scope is None or an.parent(an.statement_of(stmt)) is not scope.body:
            return False
    if isinstance(obj, cst.Await):
        obj = obj.expression
    if not isinstance(obj, cst.Call) or not isinstance(obj.func, cst.Name):
        return False
    fn = an.function_named(obj.func.value)
    own = {id(cf) for cf in plan.facts.calls}
    returns = [reading for ret, _typed, reading in an.returned if an.scope_of(ret) is fn]
    return fn is not None and bool(returns) and all(id(reading) not in own for reading in returns)




def _answers_returned_elsewhere(plan: "Plan") -> list[tuple[int, str]]:
    """(unit, function) of the calls whose answer a module-level function (or a method of a module-level class)
    returns, in a file other files of the run import, when v2's answer does not read as v1's (a renamed or
    dropped field, a list envelope)."""
    an, facts = plan.an, plan.facts
    responses = plan.kb.mappings.responses
    units = {id(cf): u for u, cf in enumerate(facts.calls)}
    out = []
    for name, (typed, cf) in sorted(an.fn_returns.items()):
        fns = an.ix.functions.get(name, [])
        if cf is None or id(cf) not in units or len(fns) != 1 or an.qualname(fns[0]) is None:
            continue
        route = cf.route
        rmap = responses.get(route.op.response) if route.op.response else None
        if route.op.shape == "billing" and _through_other_file(cf.site) and not _grouped_always(an, cf) \
                and an.imported_by:
            # with no grouping, v1 answered one record per bucket where v2 answers one per resource per bucket:
            # whoever gets the list in another file (a count, an index) reads another list (read in this file only,
            # its reads are the call's: Q25 sums them as they are, or regroups them, where they are read)
            out.append((units[id(cf)], name))
            continue
        if not an.imported_by:
            continue
        differs = typed is not None and typed.shape == "list" or rmap is not None and any(
            spec.source != key or spec.omit or spec.has_const for key, spec in rmap.fields.items())
        if differs:
            out.append((units[id(cf)], name))
    return out


def _plan_view(plan: "Plan", u: int, fn_name: str, why: str, on_view: list) -> bool:
    """Call U stays plain v2 and FN_NAME returns the v1 view of its answer (`v1bridge_compat.v1_view`), when every
    `return` its answer reaches is FN_NAME's (or hands on what FN_NAME returned). The functions of this module that
    read what FN_NAME returns read the view as written: ON_VIEW, their reads (`_read_on_view`), lose the renames
    planned for them. False (nothing planned) otherwise."""
    from codemod import compat_call

    an, cf = plan.an, plan.facts.calls[u]
    fn = _returning(an, fn_name)
    everywhere = [(ret, typed) for ret, typed, reading in an.returned if reading is cf]
    # its own returns get the view; another function of the module returning FN_NAME's answer as it came
    # (`return create_endpoint(...)`) hands the view on
    returns = [(ret, typed) for ret, typed in everywhere if an.scope_of(ret) is fn]
    kind = cf.route.op.response
    if cf.route.op.shape == "billing":
        return False  # v1 answered one record per bucket where v2 answers one per resource and bucket
    if fn is None or kind is None or not returns or any(not an.returns_only(ret, cf.call) for ret, _typed in returns) \
            or any(not _returns_call_of(an, ret, fn_name) for ret, _typed in everywhere if an.scope_of(ret) is not fn):
        return False
    send = None
    if any(kind in spec.responses for spec in plan.kb.mappings.conventions.lookups.values()):
        send = _view_send(plan, cf.site)  # the client's own call on a v2 path, for the v2 reads the view needs
        if send is None:
            return False
    _withdraw_reads(plan, u, on_view)
    plan.unit = u
    asked = plan.scratch.get("pages-asked", {}).get(u)  # the query of a list whose include flags the view honours
    for ret, _typed in returns:
        plan.change("compat-view", ret.value, _call_rule(cf), compat_call.View(kind, send, cf.site.is_async,
                                                                               asked=asked))
    plan.scratch.setdefault("compat-viewed", {})[u] = (
        f"{why}; {fn_name}() returns the v1 view of its v2 answer (v1bridge_compat.{compat_call.V1_VIEW})")
    plan.unit = "file"
    plan.change("compat-import", an.module, "compat", plan.compat_import)
    return True


UNROUTED_SENT = "(sent to v2 through v1bridge_compat.call_v1 as it is, where it answers 404 as on v1)"


def _unrouted(plan: "Plan", method: str | None, path: str) -> tuple[str, str] | None:
    """(rule, cause) of a call whose path, every segment read (an unknown part a whole id), is a route of neither v1
    nor v2 (`POST /pods/{id}/resume`, `GET /gpuTypes`: 404 on both); None for any other path. The same words for the
    call on its v1 base and, after a run moved that base, inside call_v1 on the v2 one."""
    kb = plan.kb
    segs = path.split("?")[0].strip("/").split("/")
    if not segs[0] or HOLE in segs[0] or any(HOLE in seg and seg != HOLE for seg in segs) or kb.match(path, None) \
            or kb.is_v2_relative(tuple("{}" if seg == HOLE else seg for seg in segs)) or kb.could_match(path, method, HOLE):
        return None
    near = kb.could_match("/" + "/".join(segs[:-1] + [HOLE]), method, HOLE) if len(segs) > 1 else []
    rule = "L04" if any("L04" in r.op.rules or r.op.v2 is None for r in near) else "L01"
    # a path named after a GraphQL operation (`/pods/{id}/resume`: podResume; `/gpuTypes`), written from memory of
    # that API: its v2 call, from mappings/data/graphql.yaml, is a hint, not a certainty
    named = {segs[-1], segs[0].rstrip("s") + segs[-1][:1].upper() + segs[-1][1:]}
    hint = next((f"; GraphQL's {op.selection} is {op.v2} on v2" for op in kb.mappings.graphql.operations
                 if op.selection in named and op.v2), "")
    return rule, (f"{method or ''} /{'/'.join('{?}' if seg == HOLE else seg for seg in segs)} is a route of neither "
                  f"v1 nor v2 (it answered 404 on both){hint}: what it should call is a person's to say")


def _view_records(plan: "Plan", fam: _Families, reasons: dict, n_calls: int, translated: set) -> None:
    """A call whose only blocking flags are reads of fields of its record that v2 does not name as v1 did
    (`publicIp`, `portMappings`: built from `runtime.ports`) stays plain v2, and each place its answer is parsed
    reads `v1bridge_compat.v1_view("<kind>", <answer>)`: v2 lacks the v1 record, not the call. The reads of that
    answer stay as written (v1 names on the v1 view), so the renames planned for them go."""
    from codemod import compat_call

    an, facts = plan.an, plan.facts
    responses = plan.kb.mappings.responses
    for root in list(reasons):
        for u in sorted({v for v, _rule, _why in reasons[root] if v < n_calls and v not in translated}):
            cf = facts.calls[u]
            kind = cf.route.op.response
            if kind is None or plan.kb.list_key(cf.route) or not cf.answers:
                continue  # a list: its pages are v2's to read (Q30), the view is per record
            reads = plan.field_reads.get(u, ())
            # include flags that are the whole query of its URL (`?includeMachine=true`): the query goes, the view
            # builds what they asked for
            includes, query = plan.scratch.get("url-includes", {}).get(u, ((), None))
            asked = {name for name, _flags in includes}
            viewable = {(f.rule, f.message) for read, _keys, flags, _found in reads if read.kind == "field"
                        and _in_view(responses[kind].fields[read.key], asked) for f in flags if f.blocking}
            reading = set(viewable)
            viewable |= {(f.rule, f.message) for _name, flags in includes for f in flags}
            own = [(rule, why) for v, rule, why in reasons[root] if v == u]
            if not reading or any(reason not in viewable for reason in own) \
                    or any(f.blocking and (f.rule, f.message) not in viewable for f in plan.flags.get(u, ())):
                continue
            lookups = plan.kb.mappings.conventions.lookups
            expands = {name for name in asked for name in plan.kb.mappings.queries[cf.route.op.query].params[
                name].expand} if asked else set()
            send = None
            if any(kind in spec.responses for spec in lookups.values()) or expands & set(lookups):
                send = _view_send(plan, cf.site)
                if send is None:
                    continue  # the view's own reads (the GPU catalog) need the client's call on a v2 path
            _withdraw_reads(plan, u, reads, [f for _name, flags in includes for f in flags])
            plan.unit = u
            rule = next(f.rule for _read, _keys, flags, _found in reads for f in flags if f.blocking)
            fields = tuple(sorted(key for key, spec in responses[kind].fields.items() if spec.include in asked))
            for answer in cf.answers:
                plan.change("compat-view", answer, rule, compat_call.View(kind, send, cf.site.is_async, fields))
            if asked:
                plan.string_edit(query[0], query[1], query[2], "", includes[0][1][0].rule)
            fields = sorted({read.key for read, _k, flags, _f in reads if any(f.blocking for f in flags)})
            plan.scratch.setdefault("compat-viewed", {})[u] = (
                f"v2 has no field {', '.join(map(repr, fields))} of the v1 record; the call is plain v2 and its "
                f"answer is read through v1bridge_compat.{compat_call.V1_VIEW}")
            plan.unit = "file"
            plan.change("compat-import", an.module, "compat", plan.compat_import)
            reasons[root] = [r for r in reasons[root] if r[0] != u]
        if not reasons[root]:
            del reasons[root]


def _withdraw_reads(plan: "Plan", u: int, reads, flags=()) -> None:
    """READS (`Plan.field_reads` entries of call U) read the v1 view as written: the changes, flags and findings
    planned for them go, their findings say they read the view; so do FLAGS."""
    from codemod import compat_call

    planned = {id(f) for _read, _keys, read_flags, _found in reads for f in read_flags} | {id(f) for f in flags}
    found = {id(f): read.key for read, _keys, _flags, finds in reads for f in finds}
    for _read, keys, _flags, _finds in reads:
        for key in keys:
            if key in plan.change_units:
                plan.change_units[key].discard(u)
                if not plan.change_units[key]:
                    del plan.change_units[key], plan.changes[key]
    plan.flags[u] = [f for f in plan.flags.get(u, ()) if id(f) not in planned]
    view = f"read on the v1 view v1bridge_compat.{compat_call.V1_VIEW} builds from the v2 answer"
    plan.findings[u] = [Finding(f.rule, f.line, f.column, (f"v1 field {found[id(f)]!r} " if found[id(f)] else
                                                           "a loop waiting on a v1 field, ") + view, True,
                                f.route, f.v2_target, f.kind, f.source_line, f.attributed, True)
                        if id(f) in found else f for f in plan.findings.get(u, ())]


def _view_send(plan: "Plan", site) -> str | None:
    """The client's own call on a path relative to its v2 base, for the reads a v1 view makes (`/catalog/gpus`):
    a helper that puts its base before the path it is given (its per-verb helpers, `by_method(get=_get)`), or a
    library call on `<base> + "/path"` (`compat_call.relative_send`); None for a call given whole URLs."""
    from codemod import compat_call

    if site.library == "helper":
        if site.helper is None or site.helper.takes_whole_urls:
            return None
        wrap, _why = compat_call.plan_wrap(plan.an, site)
        return wrap.send if wrap is not None else None
    return compat_call.relative_send(plan.facts.source, site)


def _in_view(spec, asked: set) -> bool:
    """Does the v1 view build this field of a record (not left out; a field v1 sent on request only when the call
    asked for it: ASKED, its include flags)?"""
    return not spec.omit and (spec.include is None or spec.include in asked)


def _pages_at_call(plan: "Plan", u: int, cf, plan_read: "ReadPlanner") -> None:
    """A list call through the client's own helper whose only blockers are v1 filters v2 ignores (Q03, and the
    rules of the parameters it names: `desiredStatus`, `gpuTypeId`) is `v1bridge_compat.all_pages(<the helper's
    send>, "<v2 path>", <its query>, op=...)`: every page of the v2 list, the filters applied to v2's records, its
    reads renamed to v2's where they are made. Was the whole call translated at run time (v1's answer). So is a
    billing list whose query sets a grouping or a filter on a joined field (a pod's GPU type) on some runs only:
    all_pages groups and filters v2's records as that query asks when it runs (v2's field names kept)."""
    from codemod import compat_call

    an, site, route = plan.an, cf.site, cf.route
    flags = plan.flags.get(u, [])
    blocking = [f for f in flags if f.blocking]
    if not blocking or any(f.kind != "param" for f in blocking) or route.op.shape not in ("list", "billing") \
            or route.op.v2 is None or route.op.query is None or site.library != "helper" or route.v2_segments is None \
            or compat_call._unsupported_query(an, site) or any(r.kind not in ("list", "field") for r in cf.reads):
        return
    qmap = plan.kb.mappings.queries[route.op.query].params
    billing = route.op.shape == "billing"
    keys = compat_call.query_keys(an, site)
    # a query written into the URL a helper given whole URLs is handed (`_get(REST + "/pods?desiredStatus=RUNNING")`):
    # all_pages reads it in that URL
    in_url = flatten(site.url.pieces).partition("?")[2] if site.url is not None and site.helper is not None \
        and site.helper.takes_whole_urls else ""
    url_keys = [pair.partition("=")[0] for pair in in_url.split("&") if pair]
    if url_keys and (keys or site.params_expr is not None or any(HOLE in k for k in url_keys)):
        return  # a query in two places, or a key only known at run time
    keys = keys + url_keys
    asked = [k for k in keys if k in qmap and not billing and _include_flag(plan, qmap[k])]
    if asked and url_keys:
        return  # include flags in the URL: the v1 view would need them as a query of its own
    if any(k in qmap and not (qmap[k].filter or qmap[k].to or billing and qmap[k].emulated_by) and k not in asked
           for k in keys):
        return  # a grouping of a resource list, or records v1 added to the list: v1 data all_pages does not add
    fields = plan.kb.mappings.responses[route.op.response].fields if route.op.response else {}
    if asked and any(r.kind == "field" and (r.key not in fields or fields[r.key].include) for r in cf.reads):
        return  # what an include flag asked for is in the v1 view only: a record read here would lack it
    if site.params_expr is not None:
        params = an.code_of(site.params_expr).strip()
    elif site.query_args:
        params = an.code_of(compat_call._query_dict(list(site.query_args))).strip()
    elif url_keys:
        params = None
    else:
        return
    wrap, _why = compat_call.plan_wrap(an, site)
    if wrap is None or "\n" in (params or "") or "get=" not in wrap.send and compat_call.MODULE_NAME in wrap.send:
        return
    awaited = an.parent(cf.call)
    answer = awaited if isinstance(awaited, cst.Await) else cf.call
    gone = an.escapes(answer, "list")
    if gone and gone not in {an.where(ret)[0] for ret, _typed, reading in an.returned if reading is cf}:
        return  # the records go where the rewrite cannot read them (they would be v2's there): v1's answer stays
    # a helper given whole URLs (`_get(url, params=None)`): the list is the call's own URL, its base moved to v2
    url = None
    if site.helper is not None and site.helper.takes_whole_urls:
        if route.v1_segments != route.v2_segments:
            return  # (only its base moves: its path would stay v1's)
        url = next((i for i, a in enumerate(cf.call.args) if a.value is site.url_expr), None)
        if url is None:
            return
    _withdraw(plan, u)
    plan.findings[u] = [_unfixed(f) if f.kind == "param" else f for f in plan.findings.get(u, ())]
    plan.unit = u
    if asked:  # the v1 view of the records its function returns builds what the flags asked for (`_plan_view`)
        plan.scratch.setdefault("pages-asked", {})[u] = params
    path = "/" + "/".join(route.v2_segments)
    plan.change("compat-pages", cf.call, "Q03", compat_call.Pages(wrap.send, path, params, route.op.id,
                                                                  site.is_async, url))
    plan.change("compat-import", an.module, "compat", plan.compat_import)
    _move_base(plan, site)
    for read in cf.reads:  # the records are v2's: their fields are read by v2's names (the list is the list)
        if read.kind == "field":
            plan_read(read, cf, plan)
    plan.find(cf.call, "Q03", "call", f"every page of v2 {route.v2_label()} through "
              f"v1bridge_compat.{compat_call.ALL_PAGES}, v1's filters applied to its records", True, route)
    plan.scratch.setdefault("compat-created", {})[u] = (
        f"v2 list; v1bridge_compat.{compat_call.ALL_PAGES} reads every page and applies the v1 filters v2 ignores")


def _include_flag(plan: "Plan", param) -> bool:
    """Does the v1 query parameter only ask for data the v1 view of each record builds (`includeWorkers`: the
    endpoint's workers), not filter, group or add records to the list?"""
    lookups = plan.kb.mappings.conventions.lookups
    return bool(param.expand) and not (param.filter or param.to or param.emulated_by) \
        and param.unsupported != "strict" and not any(lookups[name].extends_list for name in param.expand
                                                       if name in lookups)


def _returning(an, fn_name: str) -> cst.FunctionDef | None:
    """The function FN_NAME of `Analyzer.fn_returns` (a module-level function, or a method of a module-level class
    named by its own name), when the module has one of that name."""
    fns = an.ix.functions.get(fn_name, [])
    return fns[0] if len(fns) == 1 and an.qualname(fns[0]) is not None else None


def _calls_it(call: cst.Call, fn: cst.FunctionDef) -> bool:
    """Is CALL the module's own call of FN: `fn(...)`, or `self.fn(...)` for a method (`rp.get()` is not `get()`)?"""
    func = call.func
    return isinstance(func, cst.Name) and func.value == fn.name.value or isinstance(func, cst.Attribute) \
        and func.attr.value == fn.name.value and isinstance(func.value, cst.Name) and func.value.value == "self"


def _returns_call_of(an, ret: cst.Return, fn_name: str) -> bool:
    """`return FN_NAME(...)`, or `return pod` with `pod = FN_NAME(...)` the one binding of `pod` in its function: the
    statement hands on what FN_NAME returned, as it came."""
    value = ret.value
    if isinstance(value, cst.Name):
        scope = an.scope_of(ret)
        assigned = an.ix.assigns.get(id(scope) if scope is not None else None, {}).get(value.value, [])
        value = assigned[0][0] if len(assigned) == 1 else None
    if isinstance(value, cst.Await):
        value = value.expression
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == fn_name


def _returns_own(an, cf, fn_name: str) -> bool:
    """Does FN_NAME return the call's answer itself (not what another function gave it)?"""
    fn = _returning(an, fn_name)
    return any(an.scope_of(ret) is fn and an.returns_only(ret, cf.call) for ret, _typed, reading in an.returned
               if reading is cf)


def _passes_view_on(an, cf, viewing: set, fn_name: str) -> bool:
    """Does every return of the call's answer in FN_NAME hand on what a function returning the v1 view gave it?"""
    fn = _returning(an, fn_name)
    returns = [ret for ret, _typed, reading in an.returned if reading is cf and an.scope_of(ret) is fn]
    return bool(viewing) and fn is not None and bool(returns) and all(
        any(_returns_call_of(an, ret, name) for name in viewing) for ret in returns)


def _read_on_view(plan: "Plan", u: int, cf, fn: cst.FunctionDef | None) -> list | None:
    """The reads of call U's answer outside FN (`Plan.field_reads` entries): functions of this module that read what
    FN returns. If FN returns the v1 view they read it as written, so each must be a field the view builds
    (`publicIp`, `desiredStatus`); None when one is not (a field v2 lacks, an error key, the list whole), or when a
    caller binds it to a name it binds again (`tpl = find(...)`, then `tpl = patch(...)` under an `if`): what reaches
    that name's later uses is not followed."""
    an = plan.an
    rmap = plan.kb.mappings.responses.get(cf.route.op.response or "")
    if fn is None or rmap is None:
        return None
    for call in an.ix.calls:
        if _calls_it(call, fn) and not _inside(an, call, fn):
            awaited = an.parent(call)
            bound = an._bound_name(awaited if isinstance(awaited, cst.Await) else call)
            scope = an.scope_of(call)
            if bound is not None and len(an.ix.assigns.get(id(scope) if scope else None, {}).get(bound[0], ())) != 1:
                return None
    for read in cf.reads:
        if read.kind == "loop" or _inside(plan.an, read.node, fn):
            continue  # (a loop polls the view as it polled v1's answer)
        spec = rmap.fields.get(read.key) if read.kind == "field" else None
        if spec is None or not _in_view(spec, set()):
            return None
    return [entry for entry in plan.field_reads.get(u, ()) if not _inside(plan.an, entry[0].node, fn)]


def _return_agreed(an, fn_name: str) -> bool:
    """Has the run agreed that every caller of FN_NAME in other files reads its answer as v2's (codemod.crossfile
    `RETURN_KEY`)?"""
    from codemod.crossfile import RETURN_KEY

    fn = _returning(an, fn_name)
    verdict = an.exports.get(RETURN_KEY + (an.qualname(fn) if fn is not None else fn_name))
    return verdict is not None and verdict.state in ("go", "same")


def _returns_agreed(plan: "Plan", fam: _Families, blocked: set, wrapped: dict, translated: set,
                    plan_read: "ReadPlanner") -> None:
    """Answers functions return to other files of the run (codemod.crossfile `RETURN_KEY`):
    - in the defining file, its word while the run has not agreed: 'stay' when the call whose answer it returns is
      not plain v2 (translated at run time, or left on v1), else 'go';
    - in a calling file, its word on each such call: 'go' when every read of the answer here is a field v2 has
      (renamed here, `plan_read`), 'stay' when the answer goes where the rewrite cannot read it or a read has no
      v2 form. Once every word is 'go' the call is plain v2 and its reads are renamed where they happen; otherwise
      the function returns the v1 view (`_plan_view`) and the reads here stay as they are."""
    from codemod.crossfile import RETURN_KEY, Verdict

    an, facts = plan.an, plan.facts
    units = {id(cf): u for u, cf in enumerate(facts.calls)}
    for name, (_typed, cf) in sorted(an.fn_returns.items()):
        fn = _returning(an, name)
        key = RETURN_KEY + (an.qualname(fn) if fn is not None else name)
        if key not in an.exports or an.exports[key] is not None or id(cf) not in units:
            continue
        u = units[id(cf)]
        line = an.where(cf.call)[0]
        if u in translated or u in wrapped or fam.find(u) in blocked:
            plan.verdicts[(an.path, key)] = Verdict("stay", why="the call whose answer it returns is not plain v2",
                                                    line=line)
        else:
            plan.verdicts[(an.path, key)] = Verdict("go")
    for key in sorted(an.exports):
        # its call is no longer one this file plans (it goes through another file's helper the run keeps, or that
        # is translated at run time): its callers get the answer v1 gave, whatever they said before
        if key.startswith(RETURN_KEY) and an.exports[key] is None and (an.path, key) not in plan.verdicts:
            plan.verdicts[(an.path, key)] = Verdict("stay", why="the call whose answer it returns is not plain v2")
    for k, fact in enumerate(facts.returned):
        if fact.blocked:
            continue  # the function returns the v1 view: what is read of it here stays as it is
        key = (fact.origin, fact.sig.key)
        line = an.where(fact.call)[0]
        if fact.escapes:
            plan.verdicts[key] = Verdict("stay", why=f"its answer goes where the rewrite cannot read it (line "
                                                     f"{fact.escapes})", line=line)
            continue
        other = next((r for r in fact.reads if r.kind not in ("field", "loop")), None)
        if other is not None:
            plan.verdicts[key] = Verdict("stay", why=f"its answer is read as a {other.kind} at line "
                                                     f"{an.where(other.node)[0]}", line=line)
            continue
        plan.unit = ("returned", k)
        for read in fact.reads:
            plan_read(read, fact, plan)
        flag = next((f for f in plan.flags.get(plan.unit, ()) if f.blocking), None)
        if flag is not None:
            plan.verdicts[key] = Verdict("stay", why=f"{flag.rule}: {flag.message}", line=an.where(flag.node)[0])
            del plan.flags[plan.unit]
            for change_key in [ck for ck, us in plan.change_units.items() if plan.unit in us]:
                plan.change_units[change_key].discard(plan.unit)
                if not plan.change_units[change_key]:
                    del plan.change_units[change_key]
                    del plan.changes[change_key]
            plan.findings.pop(plan.unit, None)
        else:
            plan.verdicts.setdefault(key, Verdict("go"))


def _through_other_file(site) -> bool:
    """Does the call go through a helper of another file of the run (read at this call site)?"""
    helper = site.helper
    while helper is not None:
        if helper.sig is not None:
            return True
        helper = helper.inner.helper if helper.inner is not None else None
    return False


def _grouped_always(an, cf) -> bool:
    """The billing call's query always asks for a grouping (a `grouping` key of the dict literal it sends)."""
    node = cf.site.params_expr
    if isinstance(node, cst.Name):
        scope = an.scope_of(cf.call)
        assigned = an.ix.assigns.get(id(scope) if scope else None, {}).get(node.value, [])
        node = assigned[0][0] if len(assigned) == 1 else None
    return isinstance(node, cst.Dict) and any(
        isinstance(el, cst.DictElement) and _literal(el.key) == "grouping" for el in node.elements) or any(
        a.keyword is not None and a.keyword.value == "grouping" for a in cf.site.query_args)


def _literal(node) -> str | None:
    from codemod.analysis.syntax import str_of

    return str_of(node)


def _call_rule(cf) -> str:
    return _route_rule(cf.route, cf.site)


def _route_rule(route, site) -> str:
    """The rule a call stays v1 under: the change it most needs (verb path, list envelope, body, billing, path)."""
    rules = route.op.rules
    if route.op.v2 is None:
        removed = [r for r in rules if r.startswith("R")]
        if removed:
            return removed[0]
    if "L04" in rules:
        return "L04"
    if "Q01" in rules:
        return "Q01"
    if route.op.shape == "list":
        return "Q02"
    if route.op.request is not None and site is not None and site.body_expr is not None:
        return "L02"
    return "L01"


def _unfixed(f: Finding) -> Finding:
    if not f.fixable:
        return f
    return Finding(f.rule, f.line, f.column, "left on v1 with its client: " + f.message, False, f.route, f.v2_target,
                   f.kind, f.source_line, f.attributed)


def _wrap_blocked(plan: "Plan", fam: _Families, sites: list, reasons: dict, n_calls: int, extra: list) -> dict:
    """State 2: each family whose every blocked call can go through `v1bridge_compat.call_v1` (the call handed
    over as it is, translated at run time) is no longer blocked. Returns {unit: Wrap} of those calls; a call that
    cannot be wrapped keeps its family blocked (state 3), and why it could not is kept for its comment."""
    from codemod import compat_call

    wrapped: dict = {}
    why_not: dict = plan.scratch.setdefault("unwrapped", {})
    for root in list(reasons):
        units = sorted({u for u, _rule, _why in reasons[root]})
        if any(u >= n_calls and extra[u - n_calls][0] != "unmatched" for u in units):
            continue  # a base the rewrite cannot trace, or another host's /v1: not this API's call to translate
        attempt = {}
        refused = set()
        for u in units:
            wrap, why = compat_call.plan_wrap(plan.an, sites[u])
            if wrap is not None and u in plan.scratch.get("unrouted", ()):
                refused.add(u)  # flagged still: through call_v1 only so that its base moves with its neighbours
            if wrap is None and u < n_calls and (compat_call._strict_policy(plan.an, sites[u])
                                                 or compat_call._unsupported_query(plan.an, sites[u])):
                # what v2 refuses (a spot pod, a filter v2 cannot rebuild) is the user's to decide: the call stays
                # flagged, but goes to v2 through the run-time translation (which refuses it in the mapping's
                # words) so its neighbours can move
                wrap, _why = compat_call.plan_wrap(plan.an, sites[u], refused_ok=True)
                refused.add(u)
            if wrap is None:
                why_not[u] = why
                break
            attempt[u] = (wrap, [(rule, cause) for v, rule, cause in reasons[root] if v == u])
        else:
            wrapped.update(attempt)
            plan.scratch.setdefault("refused", set()).update(refused)
            del reasons[root]
    return wrapped


def _withdraw(plan: "Plan", u: int) -> None:
    """Call U goes to v2 through the compat module instead: the edits, spans, flags and notes planned for it go
    (an edit shared with other calls stays for them)."""
    for key in [k for k, units in plan.change_units.items() if u in units]:
        plan.change_units[key].discard(u)
        if not plan.change_units[key]:
            del plan.change_units[key]
            del plan.changes[key]
    for node_id in list(plan.spans):
        for span in plan.spans[node_id]:
            span[4].discard(u)
        plan.spans[node_id] = [s for s in plan.spans[node_id] if s[4]]
    plan.flags.pop(u, None)
    plan.notes.pop(u, None)


def _keep_wraps(plan: "Plan", wrapped: dict, sites: list) -> None:
    """The wrapped calls: their own changes go (the call is handed over as v1 wrote it, its answer read as v1's),
    but for the move of their base's host; their flags go; the compat call and the module's import are planned."""
    if not wrapped:
        return
    an = plan.an
    refused = plan.scratch.get("refused", set())
    for u, (wrap, causes) in wrapped.items():
        site = sites[u]
        flags = [f for f in plan.flags.get(u, ()) if f.blocking]
        _withdraw(plan, u)
        if u in refused:  # flagged still, and listed as left to the user
            if flags and not any(an.statement_of(f.node) is an.statement_of(site.call) for f in flags):
                flags.append(Flag(site.call, flags[0].rule, "call", site.route, flags[0].message, True))
            plan.flags[u] = flags
            plan.findings[u] = [_unfixed(f) for f in plan.findings.get(u, ())]
            plan.unit = u
            _move_base(plan, site)
            plan.change("compat-call", site.call, causes[0][0], wrap)
            continue
        line, col, text = an.where(site.call)
        rule, cause = causes[0]
        route = site.route
        # what the audit says of the call: its findings stand (the rewrite fixes them, through the compat module)
        via = f"through v1bridge_compat.{_compat_fn(wrap)}: "
        kept = [Finding(f.rule, f.line, f.column, via + f.message, True, f.route, f.v2_target, f.kind,
                        f.source_line, f.attributed, True) for f in plan.findings.get(u, ())]
        if not any(f.line == line for f in kept):
            kept.append(Finding(rule, line, col, via + cause, True, route.label() if route else None,
                                route.v2_label() if route else None, "call", text, True, True))
        plan.findings[u] = kept
        plan.unit = u
        _move_base(plan, site)  # no rule planned its base's move (a route only known at run time, a removed route)
        plan.change("compat-call", site.call, rule, wrap)
    plan.unit = "file"
    plan.change("compat-import", an.module, "compat", plan.compat_import)


def _move_base(plan: "Plan", site) -> cst.CSTNode | None:
    """The v1 base of a call no rule planned (its route is only known at run time) becomes the v2 base. Returns
    the literal that moves (None: none does)."""
    from codemod.analysis.syntax import span_origin

    for info in (site.url, site.base):
        if info is not None and info.kind == "v1" and info.host_edit is not None:
            a, b, repl = info.host_edit
            origin = span_origin(info.pieces, a, b)
            if origin is not None:
                plan.string_edit(origin[0], origin[1], origin[2], repl, "L01")
                return origin[0]
            return None
    return None


def _compat_fn(wrap) -> str:
    from codemod import compat_call

    return compat_call.ACALL_V1 if wrap.is_async else compat_call.CALL_V1


def _changed_by(plan: "Plan", *kinds: str) -> dict[int, str]:
    """{unit: rule} of the calls a change of one of KINDS stands for."""
    return {u: plan.changes[key].rule for key, units in plan.change_units.items() if key[0] in kinds for u in units}


def _states(plan: "Plan", fam: _Families, sites: list, extra: list, n_calls: int, blocked: set,
            wrapped: dict, translated: set) -> None:
    """Where each v1 call site of the file ends: 1 plain v2, 2 v2 through the compat module, 3 flagged; with the
    rule it stays or moves under and, for states 2 and 3, the cause."""
    an = plan.an
    why_not = plan.scratch.get("unwrapped", {})
    # plain v2 calls with what v2 lacks kept around them (create_with_fallback, codemod.rules.l02; regroup_billing,
    # codemod.rules.q25), or made of v2 calls by the compat module (reset_pod, codemod.rules.r01): state 2 while
    # their change stands
    kept = _changed_by(plan, "compat-create", "compat-body", "compat-regroup", "compat-error", "compat-steps",
                       "compat-part", "compat-pages")
    # each under the rule of what the compat module keeps (R02's GPU walk, Q18's pools), not of the call's route
    created = {u: (kept[u], why) for u, why in plan.scratch.get("compat-created", {}).items() if u in kept}
    # plain v2 calls whose answer is read as its v1 view (`_plan_view`): state 2 while that view stands
    viewing = _changed_by(plan, "compat-view")
    created.update((u, (viewing[u], why)) for u, why in plan.scratch.get("compat-viewed", {}).items() if u in viewing)
    for u, site in enumerate(sites):
        line = an.where(site.call)[0]
        kind = extra[u - n_calls][0] if u >= n_calls else "call"
        if kind == "foreign":
            continue  # another host's /v1: not a call of this API
        if u in translated:
            plan.states.append(CallState(line, 2, _call_rule(plan.facts.calls[u]) if u < n_calls else "L01",
                                         plan.scratch["translated"][u]))
        elif u in wrapped and u in plan.scratch.get("unrouted", ()):
            rule, cause = wrapped[u][1][0]
            plan.states.append(CallState(line, 3, rule, f"{cause} {UNROUTED_SENT}"))
        elif u in wrapped and u in plan.scratch.get("refused", ()):
            rule, cause = wrapped[u][1][0]
            plan.states.append(CallState(line, 3, rule, f"{cause} (sent to v2 through v1bridge_compat.call_v1, "
                                                        "which refuses it in the mapping's words until it is chosen)"))
        elif u in wrapped:
            wrap, causes = wrapped[u]
            plan.states.append(CallState(line, 2, causes[0][0], causes[0][1]))
        elif u in plan.scratch.get("v2-spelled", ()) and fam.find(u) not in blocked:
            plan.states.append(CallState(line, 1, "L01", ""))
        elif u < n_calls and fam.find(u) not in blocked and u in created:
            plan.states.append(CallState(line, 2, *created[u]))
        elif u < n_calls and fam.find(u) not in blocked:
            plan.states.append(CallState(line, 1, _call_rule(plan.facts.calls[u]), ""))
        else:
            flags = plan.flags.get(u) or []
            rule = flags[0].rule if flags else (_call_rule(plan.facts.calls[u]) if u < n_calls else "L01")
            cause = flags[0].message if flags else "left on v1"
            if u in why_not:
                cause += f" (not through v1bridge_compat: {why_not[u]})"
            plan.states.append(CallState(line, 3, rule, cause))


# ------------------------------------------------------------------ helpers other modules call

def _helpers_to_translate(plan: "Plan", fam: _Families, sites: list, n_calls: int) -> dict:
    """This module's helpers that other files of the run call (codemod.crossfile): {id(request helper fn):
    (the helper that makes the request, its Wrap or None, the local units through it, why not)}. Their request
    is wrapped in the run-time translation (`_translate`) when it can be and its base can move with it: the base
    serves nothing else here, and no other file imports it."""
    from codemod import compat_call
    from codemod.crossfile import HELPERS

    an = plan.an
    out: dict = {}
    for name in sorted(an.exports.get(HELPERS) or ()):
        fn = an.function_named(name)
        info = an._helper(fn) if fn is not None else None
        if info is None or info.base_kind != "v1":
            continue
        inner = an.innermost(info)
        if id(inner.fn) in out or _agreed(an, inner) is not None:
            continue  # its callers read their calls at the call site: it moves plain (`_helpers_agreed`)
        wrap, why = compat_call.plan_helper_wrap(an, inner)
        units = {u for u, site in enumerate(sites) if _goes_through(site, inner.fn)}
        out[id(inner.fn)] = (inner, wrap, units, why)
    helpers = [entry[0] for entry in out.values() if entry[1] is not None]
    allowed = set().union(*(entry[2] for entry in out.values() if entry[1] is not None)) if helpers else set()
    for key, (inner, wrap, units, why) in list(out.items()):
        if wrap is not None:
            why = _base_kept(plan, inner, allowed, sites, fam, helpers)
            if why:
                out[key] = (inner, None, units, why)
    if out:
        plan.scratch["translated"] = {u: f"through {an.qualname(inner.fn)}(), whose request is translated at run "
                                         "time (v1bridge_compat.call_v1)"
                                      for inner, wrap, units, _why in out.values() if wrap is not None for u in units}
        plan.scratch["untranslated"] = {an.qualname(inner.fn): why for inner, wrap, _u, why in out.values()
                                        if wrap is None}
    return out


def _agreed(an, inner):
    """The run's word (codemod.crossfile.Verdict) on this module's helper whose request is INNER's: None while
    the run has not agreed, or when no other file reads its calls at the call site."""
    from codemod.crossfile import HELPER_KEY

    verdict = an.exports.get(HELPER_KEY + (an.qualname(inner.fn) or ""))
    return verdict if verdict is not None and verdict.state in ("go", "same") else None


def _helpers_agreed(plan: "Plan", fam: _Families, sites: list, blocked: set) -> None:
    """Helpers other files of the run call, read at each call site (codemod.crossfile `HELPER_KEY`):
    - in a calling file, its word on each: 'stay' when a call through it stays v1 (state 3), else 'go';
    - in the defining file, its own word while the run has not agreed (the base cannot move, a call of its own
      through it stays v1), and once every caller agreed, the helper's base moves to v2 and its request stays
      as it is: every call through it is v2 at its call site (plain, or wrapped there in the run-time
      translation)."""
    from codemod.crossfile import HELPER_KEY, HELPERS, Verdict

    an = plan.an
    untyped = next((site for site, _route in plan.facts.relative + plan.facts.unresolved), None)
    if untyped is not None:  # a v1 call on a client the rewrite cannot type may go through any of them
        line = an.where(untyped.call)[0]
        for ref in an.helper_refs.values():
            for sig in ref.sigs:
                if sig.readable:
                    plan.verdicts[(ref.origin, sig.key)] = Verdict(
                        "stay", why=f"a v1 call on a client the rewrite cannot type may go through it", line=line)
    for u, site in enumerate(sites):
        inner = an.innermost(site.helper) if site.helper is not None else None
        if inner is None or inner.sig is None:
            continue
        key = (inner.origin, inner.sig.key)
        if fam.find(u) in blocked:  # one call through it staying v1 is this file's word, whatever the others say
            line = an.where(site.call)[0]
            if key not in plan.verdicts or plan.verdicts[key].state != "stay":
                plan.verdicts[key] = Verdict("stay", why="a call through it stays v1", line=line)
        else:
            plan.verdicts.setdefault(key, Verdict("go"))
    shared: dict = {}  # id(request helper) -> it, for the helpers other files read at the call site
    for name in sorted(an.exports.get(HELPERS) or ()):
        fn = an.function_named(name)
        info = an._helper(fn) if fn is not None else None
        if info is not None and info.base_kind == "v1":
            inner = an.innermost(info)
            if HELPER_KEY + (an.qualname(inner.fn) or "") in an.exports:
                shared.setdefault(id(inner.fn), inner)
    through = {key: {u for u, site in enumerate(sites) if _goes_through(site, inner.fn)}
               for key, inner in shared.items()}
    every = set().union(*through.values()) if through else set()
    for fn_id, inner in shared.items():
        key = HELPER_KEY + (an.qualname(inner.fn) or "")
        units = through[fn_id]
        if an.exports[key] is None:  # the run asks this file's word
            kept = next((u for u in sorted(units) if fam.find(u) in blocked), None)
            why = f"its call at line {an.where(sites[kept].call)[0]} stays v1" if kept is not None else \
                "" if inner.takes_whole_urls else _base_kept(plan, inner, every, sites, fam, list(shared.values()))
            plan.verdicts[(an.path, key)] = Verdict("stay", why=why, line=an.where(inner.fn)[0]) if why \
                else Verdict("go")
            continue
        if _agreed(an, inner) is None:
            continue
        name = an.qualname(inner.fn)
        if not inner.takes_whole_urls:  # (given whole URLs, it has no base: its callers' URLs move)
            _move_helper_base(plan, inner, "every call through which is v2 at its call site",
                              f"the base of {name}() moves to v2: every call through it, here and in other files, "
                              "is v2 at its call site")
        # its request answers as v2 does now: the v1 error keys it reads are v2's (Q29), for every caller
        for read in an.error_reads_of(inner.inner.call):
            plan.change("key", read.node, "Q29", plan.kb.v2_error_key)
            plan.find(read.node, "Q29", "error-read", f"error body read [{read.key!r}] -> "
                      f"[{plan.kb.v2_error_key!r}] in {name}(), whose base moves to v2", True)


def _factories_agreed(plan: "Plan", fam: _Families, sites: list) -> None:
    """This module's functions returning an httpx client on a v1 base whose verbs other files call
    (`rest().get("/templates")`, codemod.analysis ClientFactory): read at each call site like a helper's calls. This
    file's word: 'go' unless the base cannot move with them. While the run has not agreed, the base's move is this
    file's word on the constant it reads, on condition that the factory moves (Verdict.needs); once agreed, it moves.
    The library's requests cannot be translated at run time, so a factory the run keeps leaves its base on v1."""
    from codemod.crossfile import HELPER_KEY, Verdict

    an = plan.an
    for factory in plan.facts.client_factories:
        key = HELPER_KEY + factory.name
        inner = factory.helper
        if key not in an.exports or inner.base_kind != "v1":
            continue
        given = an.exports[key]
        if given is None:
            why = _base_kept(plan, inner, set(), sites, fam)
            plan.verdicts[(an.path, key)] = Verdict("stay", why=why, line=an.where(inner.fn)[0]) if why \
                else Verdict("go")
            if why:
                continue
            line = an.where(inner.inner.call)[0]
            plan.scratch.setdefault("moves-with", {}).update(
                {id(p.node): ((an.path, key), line) for p in inner.base.pieces if p.node is not None})
        elif given.state not in ("go", "same"):
            continue
        _move_helper_base(plan, inner, "every call on the client it returns is v2 at its call site",
                          f"the base of the client {factory.name}() returns moves to v2: every call on it, in other "
                          "files, is v2 at its call site")


def _move_helper_base(plan: "Plan", inner, how: str, request: str) -> None:
    """The helper's base moves to v2 (no longer a base left where the rewrite cannot follow it); the audit lists it
    as it lists a base any rule migrates (`v1 base address: moves to v2 with <helper>(), <HOW>`), and the helper's
    request with REQUEST (what becomes of the calls through it)."""
    an = plan.an
    why = f"v1 base address: moves to v2 with {an.qualname(inner.fn)}(), {how}"
    base_ids = {id(p.node) for p in inner.base.pieces if p.node is not None}
    for unit, flags in list(plan.flags.items()):
        plan.flags[unit] = [f for f in flags if id(f.node) not in base_ids]
    for unit, found in list(plan.findings.items()):
        plan.findings[unit] = [f for f in found if not (f.rule == "L01" and f.kind == "base-url" and not f.fixable)]
    plan.unit = "helper"
    base = _move_base(plan, inner.inner)
    if base is not None and an.where(base)[0]:  # another file's constant says so in its own file
        plan.seen.discard((*an.where(base)[:2], "L01", "base-url"))  # its unfixable finding went above
        plan.find(base, "L01", "base-url", why, True)
    plan.find(inner.inner.call, "L01", "call", request, True)


def _translate_blocked(plan: "Plan", fam: _Families, sites: list, reasons: dict, n_calls: int, extra: list,
                       translating: dict) -> set:
    """Families still blocked whose every blocked call goes through helpers of this module whose request can be
    wrapped in the run-time translation (and none asks for what the compat module refuses): those helpers are
    translated (`_translate`), with every call through them, and the family is no longer blocked; its calls through
    other helpers stay plain v2. Returns the units now translated."""
    from codemod import compat_call

    an = plan.an
    done: set = set()
    for root in list(reasons):
        units = [u for u in range(len(sites)) if fam.find(u) == root]
        if any(u >= n_calls and extra[u - n_calls][0] != "unmatched" for u in units):
            continue
        inners: dict = {}
        kept = {u for u, _rule, _why in reasons[root]}
        for u in units:
            if u not in kept:
                continue  # plain v2 (its own changes stand) unless it goes through a helper translated for another
            helper = sites[u].helper
            if helper is None or compat_call._strict_policy(an, sites[u]) or compat_call._unsupported_query(an, sites[u]):
                inners = {}
                break
            inner = an.innermost(helper)
            inners[id(inner.fn)] = inner
        chosen: dict = {}
        allowed = set(units).union(*(entry[2] for entry in translating.values() if entry[1] is not None))
        helpers = list(inners.values()) + [entry[0] for entry in translating.values() if entry[1] is not None]
        for key, inner in inners.items():
            entry = translating.get(key)
            if entry is None:
                wrap, _why = compat_call.plan_helper_wrap(an, inner)
                through = {u for u, site in enumerate(sites) if _goes_through(site, inner.fn)}
                entry = (inner, wrap, through, "") if wrap is not None and not _base_kept(
                    plan, inner, allowed | through, sites, fam, helpers) else (inner, None, through, "")
            if entry[1] is None:
                chosen = {}
                break
            chosen[key] = entry
        if not chosen:
            continue
        translating.update(chosen)
        for inner, _wrap, through, _why in chosen.values():
            done |= through
        del reasons[root]
    if done:
        message = plan.scratch.setdefault("translated", {})
        for inner, wrap, through, _why in translating.values():
            for u in through:
                message.setdefault(u, f"through {an.qualname(inner.fn) or inner.fn.name.value}(), whose request is "
                                      "translated at run time (v1bridge_compat.call_v1)")
    return done


def _base_kept(plan: "Plan", inner, units: set, sites: list, fam: _Families, helpers=()) -> str:
    """Why the helper's base cannot move to v2 with its request ("" when it can): UNITS are the calls that may
    share it (they go through the helpers translated with it, HELPERS)."""
    an = plan.an
    if inner.base is None or not any(p.node is not None for p in inner.base.pieces) or inner.inner is None \
            or not any(info is not None and info.host_edit is not None  # in its URL, or its client's base_url
                       for info in (inner.inner.url, inner.inner.base)):
        return "its base address is not a literal the rewrite can move"
    ids = {id(p.node) for p in inner.base.pieces if p.node is not None}
    if ids & set(an.export_nodes):
        return "its base constant is imported by other files of the run"
    for u, site in enumerate(sites):
        if u not in units and ids & _piece_ids(site):
            return f"its base also serves the call at line {an.where(site.call)[0]}, which does not go through it"
    # the module's other helpers on the same base move with it: no call of the run goes through them (a call that
    # does is one of SITES, checked above), whether or not another file imports them
    return base_escape(an, inner, helpers)


def _translate(plan: "Plan", translating: dict, translated: set) -> None:
    """The helper's request goes through `v1bridge_compat.call_v1` and its base moves to v2; the local calls
    through it stay as they are (their v1 path, body and answer reads are translated when they run)."""
    if not translating:
        return
    an = plan.an
    for u in translated:
        _withdraw(plan, u)
        plan.findings[u] = [Finding(f.rule, f.line, f.column, "through v1bridge_compat.call_v1: " + f.message, True,
                                    f.route, f.v2_target, f.kind, f.source_line, f.attributed, True)
                            for f in plan.findings.get(u, ())]
    moved = False
    for inner, wrap, _units, _why in translating.values():
        if wrap is None:
            continue
        name = an.qualname(inner.fn)
        _move_helper_base(plan, inner, "whose request is translated at run time (v1bridge_compat.call_v1)",
                          f"the request of {name}() (called from other files) goes to v2 through "
                          "v1bridge_compat.call_v1, translated when it runs")
        plan.change("compat-call", inner.inner.call, "L01", wrap)
        moved = True
    if moved:
        plan.unit = "file"
        plan.change("compat-import", an.module, "compat", plan.compat_import)


def _through_imported(plan: "Plan") -> None:
    """Calls through helpers of other files of the run: state 2 when the helper's request is (or will be, by this
    run) translated at run time; flagged with the cause (state 3) when it cannot be. The v1 names this file reads
    on records handed in from elsewhere are v1 views made at run time when its API answers all come through
    translated helpers (here or in a module it imports): the audit lists them as compat code."""
    from dataclasses import replace

    an = plan.an
    answers_translated = bool(an.compat_answer_sources)
    returned = {id(fact.call) for fact in plan.facts.returned}
    for through in plan.facts.through:
        if id(through.call) in returned:
            continue  # a method returning its own call's answer (`client.get_pod(id)`): the call site is its own,
            # in its module; the answer's reads here are the run's agreement on it (`_returns_agreed`)
        sig = through.sig
        line = an.where(through.call)[0]
        rule = _route_rule(through.route, None) if through.route is not None else "L01"
        where = f"{sig.name}() of " + (
            "this module" if through.origin == an.path else posixpath.relpath(through.origin,
                                                                              posixpath.dirname(an.path) or "."))
        route = f"{through.route.label()} " if through.route is not None else ""
        plan.unit = "through"
        if sig.translated:
            answers_translated = True
            plan.find(through.call, rule, COMPAT_HELPER, f"{route}through {where}, translated at run time by "
                      "v1bridge_compat.call_v1", True, through.route)
            plan.states.append(CallState(line, 2, rule, f"through {where}, whose request is translated at run "
                                                        "time (v1bridge_compat.call_v1)"))
        elif not sig.why_not:
            plan.find(through.call, rule, "call", f"{route}through {where}: the rewrite sends it to v2 through "
                      "v1bridge_compat.call_v1 in that helper", True, through.route)
            plan.states.append(CallState(line, 2, rule, f"through {where}, whose request is translated at run "
                                                        "time (v1bridge_compat.call_v1)"))
        else:
            why = (f"{route}through {where}, which stays on v1: {sig.why_not}; migrate that helper by hand "
                   f"({plan.rule_text(rule)})")
            plan.flag(through.call, rule, "call", through.route, why)
            plan.states.append(CallState(line, 3, rule, why))
            answers_translated = False
        _through_reads(plan, through, where)
    if answers_translated and not plan.facts.calls and not plan.facts.unmatched:
        for unit, found in plan.findings.items():
            plan.findings[unit] = [replace(f, kind=COMPAT_HELPER, message=f.message.replace(
                "on an object from elsewhere", "on a v1 view made at run time by a translated helper"))
                if not f.attributed else f for f in found]


def _through_reads(plan: "Plan", through, where: str) -> None:
    """The v1 fields read on the answer of a call through another file's helper: a v1 view made at run time once
    that helper's request is translated (compat), v1 code while it stays on v1."""
    sig = through.sig
    for read in through.reads:
        if read.kind != "field":
            continue
        spec = plan.kb.mappings.responses[read.route.op.response].fields[read.key]
        if spec.rule is None:
            continue
        about = f"v1 field {read.key!r} of {read.route.label()} through {where}"
        if sig.translated:
            plan.find(read.node, spec.rule, COMPAT_HELPER, f"{about}: read on the v1 view v1bridge_compat.call_v1 "
                      "makes at run time", True, read.route)
        elif not sig.why_not:
            plan.find(read.node, spec.rule, "response-field", f"{about}: a v1 view made at run time once the rewrite "
                      "sends that helper's request through v1bridge_compat.call_v1", True, read.route)
        else:
            plan.find(read.node, spec.rule, "response-field", f"{about}, which stays on v1: "
                      f"{plan.rule_text(spec.rule)}", False, read.route)


def _on_clients_from_elsewhere(plan: "Plan") -> None:
    """A v1 route called on a client another file of the run makes (`rest().post("/templates")`, `rest` from
    `.http`): its base is set there, where the rewrite cannot follow it to this call. Flagged with that cause
    (state 3), never left silent."""
    an = plan.an
    if not an.run_imports and not plan.facts.untyped:
        return
    for site, route in plan.facts.relative:
        root = site.call.func
        while isinstance(root, (cst.Attribute, cst.Call)):
            root = root.value if isinstance(root, cst.Attribute) else root.func
        untyped = plan.facts.untyped.get(id(site.call))
        origin = an.run_imports.get(root.value) if isinstance(root, cst.Name) else None
        if origin is None and untyped is None:
            continue
        line = an.where(site.call)[0]
        rule = _route_rule(route, site)
        where = posixpath.relpath((untyped or (origin,))[0], posixpath.dirname(an.path) or ".") \
            if not (origin or "").startswith(".") else origin
        if untyped is not None:  # `def f(s): s.call(...)` in a file that imports a client class with that helper
            made, _dot, _verb = untyped[1].rpartition(".")
            typing = f"bind it here (`{root.value} = {made}`)" if made.endswith("()") else \
                f"give it a type (`{root.value}: {made}`)"  # a library client a function returns, or a class
            why = (f"{route.label()} on `{root.value}`, which the rewrite cannot type (it may be a {untyped[1]}() "
                   f"of {where}): {typing} and run the rewrite again ({plan.rule_text(rule)})")
        else:
            why = (f"{route.label()} on a client made in {where} ({root.value}), whose base the rewrite cannot "
                   f"follow to this call: migrate the client's base and this path together by hand "
                   f"({plan.rule_text(rule)})")
        plan.unit = "through"
        plan.flag(site.call, rule, "call", route, why)
        plan.states.append(CallState(line, 3, rule, why))
        at = an.where(site.call)[:2]  # the review made for it (base not found) is said better by this flag
        plan.findings["file"] = [f for f in plan.findings.get("file", ()) if not (f.kind == "indirect"
                                                                                   and (f.line, f.column) == at)]


def _refused_at_run_time(plan: "Plan") -> None:
    """An earlier run's `v1bridge_compat.call_v1(..., json=<v1 body>)` whose body asks for what the mapping refuses
    by default (a spot pod): still left to the user, flagged again as the first run flagged it (the body and the
    call), so a second run changes nothing and `--check` keeps failing."""
    from codemod import compat_call
    from codemod.analysis.syntax import dotted

    an = plan.an
    if compat_call.MODULE_NAME not in an.source:
        return
    mappings = plan.kb.mappings
    refused = {name: field.rule for spec in mappings.requests.values() for name, field in spec.fields.items()
               if field.policy and getattr(mappings.policies.get(field.policy), "default", None) == "strict"}
    names = {f"{compat_call.MODULE_NAME}.{fn}" for fn in (compat_call.CALL_V1, compat_call.ACALL_V1)}
    for call in an.ix.calls:
        if dotted(call.func) in names:
            _refused_query(plan, call)
            _unrouted_at_run_time(plan, call)
        body = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "json"), None)
        if dotted(call.func) not in names or body is None:
            continue
        if isinstance(body, cst.Name):  # the one dict literal the name is bound to
            scope = an.scope_of(call)
            assigned = an.ix.assigns.get(id(scope) if scope else None, {}).get(body.value, [])
            body = assigned[0][0] if len(assigned) == 1 else None
        for element in body.elements if isinstance(body, cst.Dict) else ():
            key = str_of(element.key) if isinstance(element, cst.DictElement) else None
            value = element.value if key in refused else None
            if value is None or (isinstance(value, cst.Name) and value.value in ("False", "None")):
                continue
            rule = refused[key] or "L02"
            message = f"v1 body field {key!r}: {plan.rule_text(rule)}"
            plan.unit = "refused"
            plan.flag(body, rule, "body-field", None, message)
            if an.statement_of(body) is not an.statement_of(call):
                plan.flag(call, rule, "call", None, message)
            plan.states.append(CallState(an.where(call)[0], 3, rule, message + " (sent to v2 through "
                                         "v1bridge_compat.call_v1, which refuses it in the mapping's words until it "
                                         "is chosen)"))
            break


def _unrouted_at_run_time(plan: "Plan", call: cst.Call) -> None:
    """An earlier run's `call_v1(send, "POST", f"{BASE}/pods/{pod_id}/resume")` on this service's base whose path is a
    route of neither v1 nor v2 (`_unrouted`): flagged again as the first run flagged it."""
    from codemod.analysis.syntax import flatten

    an = plan.an
    args = [a.value for a in call.args if a.keyword is None]
    method = str_of(args[1]) if len(args) >= 3 else None
    if method is None:
        return
    flat = flatten(an.evaluate(args[2], an.scope_of(call)))
    kind, at, _edit = an.classify(flat)
    if kind not in ("v1", "v2"):
        return
    path = flat[at:]
    prefix = plan.kb.v2_prefix
    if kind == "v2" and path.startswith(prefix + "/"):
        path = path[len(prefix):]
    found = _unrouted(plan, method.upper(), path)
    if found is not None:
        rule, why = found
        plan.unit = "refused"
        plan.flag(call, rule, "call", None, why)
        plan.states.append(CallState(an.where(call)[0], 3, rule, f"{why} {UNROUTED_SENT}"))


def _refused_query(plan: "Plan", call: cst.Call) -> None:
    """An earlier run's `call_v1(send, "GET", <base> + "/billing/endpoints", params={"templateId": ...})` whose query
    asks for a filter v2 cannot rebuild (queries.yaml `unsupported: strict`): flagged again on the key, as the first
    run flagged it."""
    from mappings.index import index

    an = plan.an
    args = [a.value for a in call.args if a.keyword is None]
    params = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "params"), None)
    if len(args) < 3 or params is None:
        return
    url = args[2]
    tail = str_of(url.right) if isinstance(url, cst.BinaryOperation) and isinstance(url.operator, cst.Add) \
        else str_of(url)
    method = str_of(args[1])
    if not tail or not method or not tail.startswith("/"):
        return
    routes = index().match(tail.split("?")[0], method.upper())
    query = routes[0].op.query if routes else None
    if query is None:
        return
    spec = plan.kb.mappings.queries[query].params
    if isinstance(params, cst.Name):  # the one dict literal the name is bound to
        scope = an.scope_of(call)
        assigned = an.ix.assigns.get(id(scope) if scope else None, {}).get(params.value, [])
        params = assigned[0][0] if len(assigned) == 1 else None
    for element in params.elements if isinstance(params, cst.Dict) else ():
        key = str_of(element.key) if isinstance(element, cst.DictElement) else None
        if key in spec and spec[key].unsupported == "strict":
            rule = spec[key].rule or "Q03"
            message = plan.param_text(an.code_of(element.key), spec[key]) or (
                f"v1 query parameter {an.code_of(element.key)} has no v2 form the rewrite can write here: "
                + plan.rule_text(rule))
            plan.unit = "refused"
            plan.flag(element.key, rule, "param", routes[0], message)
            plan.flag(call, rule, "call", None, message)  # the call left to the user, for the audit's gate
            plan.states.append(CallState(an.where(call)[0], 3, rule, message + " (sent to v2 through "
                                         "v1bridge_compat.call_v1, which refuses it in the mapping's words)"))
            return


COMPAT_HELPER = "compat-helper"  # a finding's kind: v2 code through a helper translated at run time (audit: compat)
