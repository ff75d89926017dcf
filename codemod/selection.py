"""Rule selection shared by `v1bridge audit` and `v1bridge rewrite` (`--select` / `--ignore`, as ruff does).

A token is a rule ID (`Q13`), a rule class (`loud`, `quiet`, `removed`, `retiring`) or an ID
prefix (`Q`: every quiet-numbered rule, `G`: every GraphQL rule). `--select` keeps only what
it names (default: every rule); `--ignore` then drops what it names. An unknown token is a
usage error, never silently nothing.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Iterable, Mapping

from mappings.errors import UsageError


class SelectionError(UsageError):
    """A --select/--ignore/--scope token that names no rule, class or prefix."""


def _tokens(values: Iterable[str] | None) -> tuple[str, ...]:
    out: list[str] = []
    for value in values or ():
        out.extend(t.strip() for t in value.split(",") if t.strip())
    return tuple(out)


@dataclass(frozen=True)
class Selection:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    @property
    def is_default(self) -> bool:
        return not self.select and not self.ignore

    def resolve(self, rules: Mapping[str, str]) -> frozenset[str]:
        """The selected rule IDs out of RULES (id -> class); raises SelectionError on an unknown token."""
        def expand(token: str) -> set[str]:
            low = token.lower()
            by_class = {rid for rid, cls in rules.items() if cls == low}
            if by_class:
                return by_class
            if token.upper() in rules:
                return {token.upper()}
            by_prefix = {rid for rid in rules if rid.startswith(token.upper())}
            if by_prefix:
                return by_prefix
            raise SelectionError(f"unknown rule, class or prefix: {token!r} (see `v1bridge rules`)")

        chosen = set(rules) if not self.select else set().union(*(expand(t) for t in self.select))
        for token in self.ignore:
            chosen -= expand(token)
        return frozenset(chosen)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--select", action="append", metavar="RULES",
                        help="only these rule IDs, classes (loud, quiet, removed, retiring) or ID prefixes; "
                             "comma-separated, repeatable (default: all)")
    parser.add_argument("--ignore", action="append", metavar="RULES",
                        help="leave out these rule IDs, classes or ID prefixes (applied after --select)")
    parser.add_argument("--exclude", action="append", default=[], metavar="PATTERN",
                        help="skip files matching this gitignore-style pattern, relative to each PATH; repeatable "
                             "(added to .gitignore and the built-in skips)")


def from_args(args: argparse.Namespace) -> Selection:
    return Selection(_tokens(getattr(args, "select", None)), _tokens(getattr(args, "ignore", None)))


def all_rules() -> dict[str, str]:
    """Every rule the tools know (id -> class), from mappings/."""
    from mappings import default_mappings

    return {rid: rule.rule_class for rid, rule in default_mappings().rules.items()}
