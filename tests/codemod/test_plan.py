"""The planner loads the rule modules mappings/data/rules.yaml names (`rewrite`), in the order it gives them."""
from __future__ import annotations

import pytest

from codemod import plan
from codemod.plan import REWRITERS, RuleRegistryError, in_precedence, load, rule_modules
from mappings.index import index

CATALOGUE = index().mappings.rules


def _with(rule_id: str, **rewrite) -> dict:
    """The catalogue with RULE_ID's rewrite entry changed."""
    rule = CATALOGUE[rule_id]
    changed = rule.model_copy(update={"rewrite": rule.rewrite.model_copy(update=rewrite)})
    return {**CATALOGUE, rule_id: changed}


def test_every_rule_module_has_a_rules_yaml_entry_and_every_entry_its_module() -> None:
    declared = {r.rewrite.module for r in CATALOGUE.values() if r.rewrite is not None and r.rewrite.module}
    assert rule_modules() == declared
    assert {rw.module for rw in REWRITERS.values()} == {f"codemod.rules.{m}" for m in declared}


def test_every_fixable_rule_is_rewritten_by_a_module() -> None:
    fixable = {r.id for r in CATALOGUE.values() if r.fixable}
    assert fixable <= set(REWRITERS)
    assert REWRITERS["Q13"] is REWRITERS["L02"] and REWRITERS["R06"] is REWRITERS["L02"]
    assert REWRITERS["Q03"].module == "codemod.rules.q03_list_filters_ignored"  # planned although not fixable


def test_the_call_stage_runs_in_the_precedence_rules_yaml_gives() -> None:
    assert [rw.rule for rw in plan.CALL_STAGE] == ["R01", "L01", "Q01", "L04", "L02", "Q30", "Q03"]
    rewriters, _, _ = load(_with("L04", precedence=5))
    assert [rw.rule for rw in in_precedence(rewriters, "call")] == ["L04", "R01", "L01", "Q01", "L02", "Q30", "Q03"]
    assert [rw.rule for rw in plan.FILE_STAGE] == ["L01"]


def test_reads_of_a_whole_answer_go_to_the_rule_rules_yaml_names() -> None:
    assert plan.READ_OWNERS == {"list": "Q02", "billing": "Q25", "error": "Q29", "field": "L02"}


def test_a_module_without_a_function_for_a_declared_stage_is_an_error() -> None:
    with pytest.raises(RuleRegistryError, match=r"q29_error_shape.py plans the stages \['read'\], rules.yaml "
                                                r"declares \['param', 'read'\] for Q29"):
        load(_with("Q29", stages=("read", "param")))


def test_a_module_no_rule_names_is_an_error() -> None:
    catalogue = {**CATALOGUE, "Q29": CATALOGUE["Q29"].model_copy(update={"rewrite": None, "fixable": False})}
    with pytest.raises(RuleRegistryError, match=r"modules no rule of mappings/data/rules.yaml names as its rewrite: "
                                                r"q29_error_shape$"):
        load(catalogue)


def test_a_rules_yaml_entry_without_its_module_is_an_error() -> None:
    with pytest.raises(RuleRegistryError, match=r"^Q29's rewrite module codemod/rules/q29_gone.py does not exist; "
                                                r"codemod/rules/ holds modules no rule .*: q29_error_shape$"):
        load(_with("Q29", module="q29_gone"))


def test_an_edit_kind_two_modules_apply_is_an_error(monkeypatch) -> None:
    from codemod.rules import q29_error_shape

    monkeypatch.setattr(q29_error_shape, "APPLIES", {"subscript": lambda node, data: node}, raising=False)
    with pytest.raises(RuleRegistryError, match=r"edit kind 'subscript' in APPLIES of two modules"):
        load(CATALOGUE)
