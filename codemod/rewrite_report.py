"""The rewrite's summary as data: where every v1 call site ended (state 1 plain v2, 2 through the compat
module, 3 flagged), per state and per rule, what is left to a person, in JSON or Markdown (`--format`).

The text summary on stderr (`codemod.cli_rewrite._summary`) reads the same counts.
"""
from __future__ import annotations

import json
from collections import Counter

STATE_NAMES = {1: "v2", 2: "v2-compat", 3: "flagged"}


def state_counts(outcomes) -> tuple[Counter, dict[int, Counter]]:
    """(calls per state, {state: calls per rule}) over the files of a run."""
    totals: Counter = Counter({1: 0, 2: 0, 3: 0})
    by_rule: dict[int, Counter] = {1: Counter(), 2: Counter(), 3: Counter()}
    for outcome in outcomes:
        for _line, state, rule, _cause in outcome.states:
            totals[state] += 1
            by_rule[state][rule] += 1
    return totals, by_rule


def as_data(outcomes, changed, errors, skipped, compat_module: str | None, outside=()) -> dict:
    totals, by_rule = state_counts(outcomes)
    return {
        "files": {"checked": len(outcomes), "changed": len(changed), "errors": len(errors), "skipped": len(skipped)},
        "call_sites": {STATE_NAMES[s]: totals[s] for s in (1, 2, 3)},
        "by_rule": {STATE_NAMES[s]: dict(sorted(by_rule[s].items())) for s in (1, 2, 3)},
        "compat_module": compat_module,
        "sites": [{"path": o.path, "line": line, "state": STATE_NAMES[state], "rule": rule, "cause": cause}
                  for o in sorted(outcomes, key=lambda o: o.path) for line, state, rule, cause in o.states],
        "manual": [{"path": o.path, "line": line, "rule": rule, "message": msg}
                   for o in sorted(outcomes, key=lambda o: o.path) for line, rule, msg in o.manual],
        "errors": [{"path": o.path, "error": o.error} for o in errors],
        "skipped": [{"path": s.path, "reason": s.reason} for s in sorted(skipped, key=lambda s: s.path)],
        # modules the run was not given that import a module whose base or helper it moved (codemod.outside)
        "outside": [{"path": o.path, "line": o.line, "imports": o.imports} for o in outside],
    }


def render(fmt: str, outcomes, changed, errors, skipped, compat_module: str | None, outside=()) -> str:
    data = as_data(outcomes, changed, errors, skipped, compat_module, outside)
    if fmt == "json":
        return json.dumps(data, indent=2, sort_keys=False) + "\n"
    sites = data["call_sites"]
    lines = ["# v1bridge rewrite", "",
             f"{data['files']['checked']} files checked, {data['files']['changed']} changed, "
             f"{data['files']['errors']} errors, {data['files']['skipped']} skipped.", "",
             "| state | call sites | by rule |", "|---|---|---|"]
    for state in (1, 2, 3):
        name = STATE_NAMES[state]
        rules = ", ".join(f"{r} {n}" for r, n in data["by_rule"][name].items()) or "-"
        lines.append(f"| {state} {name} | {sites[name]} | {rules} |")
    if compat_module:
        lines += ["", f"Compat module: `{compat_module}`"]
    if data["outside"]:
        lines += ["", "## Outside the paths given", "",
                  "These modules import what this run moved to v2; check them, or rewrite them with it.", ""]
        lines += [f"- `{o['path']}:{o['line']}` imports `{o['imports']}`" for o in data["outside"]]
    left = [s for s in data["sites"] if s["state"] == "flagged"]
    if left or data["manual"]:
        lines += ["", "## Left to a person", ""]
        for item in data["manual"]:
            lines.append(f"- `{item['path']}:{item['line']}` {item['rule']}: {_md(item['message'])}")
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
