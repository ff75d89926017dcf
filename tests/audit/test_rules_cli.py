"""`v1bridge rules` (list, explain), its examples (codemod/audit/examples.yaml) and the generated docs/rules.md."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemod.audit.engine import analyze_source
from codemod.engine import rewrite_source
from codemod.cli_rules import examples, render_markdown
from mappings import default_mappings
from v1bridge.cli import main

RULES = default_mappings().rules
DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_every_rule_has_an_example():
    """Guards `v1bridge rules ID` always showing a before/after pair (no rule without one)."""
    assert set(examples()) == set(RULES)


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_example_before_raises_the_rule_and_after_does_not(rule_id):
    """Guards the examples as tested fixtures: `before` is v1 code the audit flags with this rule,
    `after` is its v2 version, which the audit does not flag with it."""
    ex = examples()[rule_id]
    if ex["language"] == "python":
        return  # the rewrite's rules: test_python_example_is_what_rewrite_makes_of_it
    path = "example.ts" if ex["language"] == "typescript" else f"example.{ex['language']}"
    before = {f.rule for f in analyze_source(ex["before"], path).findings}
    after = {f.rule for f in analyze_source(ex["after"], path).findings}
    assert rule_id in before, f"{rule_id}: the before example raises {sorted(before)}"
    assert rule_id not in after, f"{rule_id}: the after example still raises it"


FIXABLE = sorted(rid for rid, rule in RULES.items() if rule.fixable)


@pytest.mark.parametrize("rule_id", FIXABLE)
def test_python_example_is_what_rewrite_makes_of_it(rule_id):
    """Guards `v1bridge rules ID` for the rewrite's rules: a Python example whose `after` is exactly what the rewrite
    makes of `before` (the whole change, not only this rule's part), v2 code the audit finds nothing in, and whose
    `shows` spellings appear only after (refresh with scripts/refresh_rule_examples.py)."""
    ex = examples()[rule_id]
    assert ex["language"] == "python"
    result = rewrite_source(ex["before"], "example.py")
    assert (result.new_source, result.manual) == (ex["after"], [])
    assert analyze_source(ex["after"], "example.py").findings == []
    assert ex["shows"] and all(s in ex["after"] and s not in ex["before"] for s in ex["shows"])


def test_rules_lists_every_rule_with_class_severity_and_fixable(capsys):
    """Guards the listing: one row per rule with ID, class, severity and fixable."""
    assert main(["rules", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in listed} == set(RULES)
    q13 = next(r for r in listed if r["id"] == "Q13")
    assert (q13["class"], q13["severity"], q13["fixable"]) == ("quiet", "high", True)
    assert main(["rules"]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0].split() == ["ID", "class", "severity", "fixable", "name", "summary"]
    assert len(text) == len(RULES) + 1


def test_rules_explains_one_with_its_tested_example(capsys):
    """Guards `v1bridge rules Q13`: summary, remedy and the before/after from the fixtures."""
    assert main(["rules", "q13"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Q13 status-observed-not-desired\n")
    assert '    return r.json()["desiredStatus"] == "RUNNING"' in out
    assert 'after (what `v1bridge rewrite` makes of it):' in out and '    return r.json()["status"] == "RUNNING"' in out
    assert "remedy: read status and handle PROVISIONING" in out
    assert main(["rules", "G06"]) == 0
    assert "GraphQL mutation podStop (pods) -> POST /v2/pods/{id}/action {action: stop}" in capsys.readouterr().out


def test_an_unknown_rule_is_a_usage_error(capsys):
    """Guards against `v1bridge rules Q99` printing nothing and exiting 0."""
    assert main(["rules", "Q99"]) == 2
    assert "unknown rule 'Q99'" in capsys.readouterr().err


def test_docs_rules_md_is_current():
    """Guards docs/rules.md against drifting from mappings/ and the examples (regenerate with
    `v1bridge rules --format markdown > docs/rules.md`)."""
    assert DOCS.read_text(encoding="utf-8") == render_markdown()
