"""Refresh the Python examples of codemod/audit/examples.yaml: each `after` is what `v1bridge rewrite` makes of its
`before`, so `v1bridge rules ID` and docs/rules.md show the whole change the rewrite makes, never a hand-made one.

    .venv/bin/python scripts/refresh_rule_examples.py              # rewrite the afters in place
    .venv/bin/python scripts/refresh_rule_examples.py --check      # exit 1 when one is stale (the test does this)

Then regenerate docs/rules.md: `.venv/bin/v1bridge rules --format markdown > docs/rules.md`.
"""
from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from codemod.engine import rewrite_source  # noqa: E402

EXAMPLES = ROOT / "codemod" / "audit" / "examples.yaml"
HEADER = """# One before/after pair per rule, shown by `v1bridge rules ID` and docs/rules.md.
# Tested by tests/audit/test_rules_cli.py. Python examples (the rules `rewrite` fixes): `after` is exactly what
# `v1bridge rewrite` makes of `before` (refresh with scripts/refresh_rule_examples.py). Other languages: `before`
# raises the rule in the audit, `after` does not.
"""


def rewritten(before: str) -> str:
    return rewrite_source(before, "example.py").new_source


class _Literal(yaml.SafeDumper):
    pass


_Literal.add_representer(str, lambda d, s: d.represent_scalar("tag:yaml.org,2002:str", s, style="|" if "\n" in s else None))


def main(argv: list[str]) -> int:
    data = yaml.safe_load(EXAMPLES.read_text())
    stale = [rid for rid, ex in data.items() if ex["language"] == "python" and ex["after"] != rewritten(ex["before"])]
    if "--check" in argv:
        print("\n".join(stale))
        return 1 if stale else 0
    for rid in stale:
        data[rid]["after"] = rewritten(data[rid]["before"])
    EXAMPLES.write_text(HEADER + yaml.dump(data, Dumper=_Literal, sort_keys=True, width=120, allow_unicode=True))
    print(f"refreshed {len(stale)} example(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
