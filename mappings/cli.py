"""`v1bridge routes`: the operation table, for people and for tools."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from mappings.loader import MappingError, Mappings, default_mappings, load


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument("--mappings", metavar="DIR", help="read mapping data from DIR instead of the packaged files")


def route_rows(mappings: Mappings) -> list[dict[str, Any]]:
    rows = []
    for op in mappings.operations:
        rows.append(
            {
                "id": op.id,
                "v1": {"method": op.v1.method, "path": mappings.conventions.v1_prefix + op.v1.path},
                "v2": None if op.v2 is None else {"method": op.v2.method, "path": op.v2.path, "body": op.v2.body},
                "policy": op.policy,
                "emulation": op.emulation,
                "rules": list(op.rules),
            }
        )
    return rows


def _text(rows: list[dict[str, Any]]) -> str:
    def v2_cell(row: dict[str, Any]) -> str:
        if row["v2"] is None:
            return "-"
        body = f" {json.dumps(row['v2']['body'], separators=(',', ':'))}" if row["v2"]["body"] else ""
        return f"{row['v2']['method']} {row['v2']['path']}{body}"

    table = [("V1", "V2", "POLICY", "RULES")]
    for row in rows:
        policy = row["policy"] + (f" ({row['emulation']})" if row["emulation"] else "")
        table.append((f"{row['v1']['method']} {row['v1']['path']}", v2_cell(row), policy, ",".join(row["rules"])))
    widths = [max(len(line[i]) for line in table) for i in range(3)]
    return "\n".join(
        f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c:<{widths[2]}}  {d}".rstrip() for a, b, c, d in table
    )


def run(args: argparse.Namespace) -> int:
    try:
        mappings = load(args.mappings) if args.mappings else default_mappings()
    except (MappingError, OSError) as exc:
        print(f"v1bridge routes: {exc}", file=sys.stderr)
        return 2
    rows = route_rows(mappings)
    if args.format == "json":
        print(json.dumps({"operations": rows}, indent=2))
    else:
        print(_text(rows))
    return 0
