"""Every `--help` explains every flag and shows examples that run."""
from __future__ import annotations

import argparse
import importlib

import pytest

from v1bridge.cli import EXAMPLES, SUBCOMMANDS, main


def _actions(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _actions(sub)
        elif action.dest != "help":
            yield action


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_every_option_has_a_one_line_description(name):
    parser = argparse.ArgumentParser(prog=f"v1bridge {name}")
    importlib.import_module(SUBCOMMANDS[name][0]).configure(parser)
    undocumented = ["/".join(a.option_strings) or a.dest for a in _actions(parser) if not (a.help or "").strip()]
    assert undocumented == []


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_help_ends_with_examples(name, capsys):
    assert main([name, "--help"]) == 0
    out = capsys.readouterr().out
    examples = out.split("examples:\n", 1)[1].splitlines()
    assert len(EXAMPLES[name]) >= 2 and all(f"  {line}" in examples for line in EXAMPLES[name])


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_every_example_parses(name):
    """The examples are real command lines: each parses with the subcommand's own parser."""
    import shlex

    module = importlib.import_module(SUBCOMMANDS[name][0])
    for line in EXAMPLES[name]:
        argv = shlex.split(line.split("  #")[0])[2:]
        parser = argparse.ArgumentParser(prog=f"v1bridge {name}", exit_on_error=False)
        module.configure(parser)
        if name == "proxy":
            parser.add_argument("--config")
        parser.parse_args(argv)
