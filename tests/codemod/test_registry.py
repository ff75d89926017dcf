"""One module per fixable rule ID, checked against mappings/data/rules.yaml at import."""
from __future__ import annotations

import pytest

from codemod.rules import RULES, RuleRegistryError, check_registry, select
from mappings.index import index


def test_every_fixable_rule_has_exactly_one_module() -> None:
    assert set(RULES) == index().fixable_rules()
    for rule_id, rule in RULES.items():
        assert rule.module == f"codemod.rules.{rule.module.rsplit('.', 1)[1]}"
        assert rule.module.rsplit(".", 1)[1].startswith(rule_id.lower() + "_")


def test_a_fixable_rule_without_a_module_is_an_error() -> None:
    with pytest.raises(RuleRegistryError, match="fixable without a module: Q99"):
        check_registry(index().fixable_rules() | {"Q99"})


def test_a_module_for_a_rule_that_is_not_fixable_is_an_error() -> None:
    with pytest.raises(RuleRegistryError, match="module for a rule that is not fixable: L04"):
        check_registry(index().fixable_rules() - {"L04"})


def test_select_orders_the_rules_and_refuses_unknown_ids() -> None:
    assert [r.id for r in select(["Q02", "L01", "L04"])] == ["L01", "L04", "Q02"]
    with pytest.raises(KeyError):
        select(["L01", "X01"])
