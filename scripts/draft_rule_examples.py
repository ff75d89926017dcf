"""Draft codemod/audit/examples.yaml: one TypeScript before/after pair per rule, from mappings/.

Run once to start the fixture file; the file is then the fixture (hand-edited, tested by
tests/audit/test_rules_cli.py: each `before` raises its rule, each `after` does not).

    .venv/bin/python scripts/draft_rule_examples.py > codemod/audit/examples.yaml
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codemod.audit.catalogue import catalogue  # noqa: E402

CAT = catalogue()
M = CAT.mappings
V1 = M.conventions.hosts.v1[0]
V2 = M.conventions.hosts.v2[0] + CAT.v2_prefix


def concrete(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "${id}", path)


def v2_to(name: str) -> str | None:
    for req in M.requests.values():
        spec = req.fields.get(name)
        if spec is not None and spec.to:
            return spec.to
    return None


def v2_read(name: str) -> tuple[str, str] | None:
    """(v1 list path, v2 source) when NAME is a response field."""
    for resp in M.responses.values():
        spec = resp.fields.get(name)
        if spec is not None:
            return resp.id, getattr(spec, "source", None) or ""
    return None


def nested(path: str, value: str) -> str:
    parts = path.split(".")
    out = value
    for p in reversed(parts):
        out = f"{{ {p}: {out} }}" if not p.isdigit() else f"[{out}]"
    return out[2:-2] if out.startswith("{ ") else out


def example(rule) -> dict:
    for route in CAT.routes:
        for method in route.methods():
            if rule.id in CAT.route_rules(route, method):
                op = route.operation(method)
                before = (f'const BASE = "{V1}";\n'
                          f'export const call = (id: string) => fetch(`${{BASE}}{concrete(route.path)}`, {{ method: "{method}" }});\n')
                if op is None or op.v2 is None:
                    after = (f'const BASE = "{V2}";\n'
                             f"// {method} {route.path}: no v2 equivalent. {rule.remedy}\n")
                else:
                    body = ""
                    if op.v2.body:
                        body = ", body: JSON.stringify(" + "{ " + ", ".join(f'{k}: "{v}"' for k, v in op.v2.body.items()) + " })"
                    v2path = concrete(op.v2.path.removeprefix(CAT.v2_prefix))
                    after = (f'const BASE = "{V2}";\n'
                             f'export const call = (id: string) => fetch(`${{BASE}}{v2path}`, {{ method: "{op.v2.method}"{body} }});\n')
                return {"language": "typescript", "before": before, "after": after}
    for name in rule.concerns.fields:
        to = v2_to(name)
        read = v2_read(name)
        if to is None and read is not None:
            before = (f'const BASE = "{V1}";\n'
                      f'export async function value(id: string) {{\n'
                      f'  const pod = await (await fetch(`${{BASE}}/pods/${{id}}`)).json();\n'
                      f'  return pod.{name};\n}}\n')
            src = read[1]
            tail = f"  return pod.{src};\n" if src and "." not in src else (
                f"  return pod.{src};\n" if src else f"  return undefined; // {name}: {rule.remedy}\n")
            after = (f'const BASE = "{V2}";\n'
                     f'export async function value(id: string) {{\n'
                     f'  const pod = await (await fetch(`${{BASE}}/pods/${{id}}`)).json();\n' + tail + "}\n")
            return {"language": "typescript", "before": before, "after": after}
        before = (f'const BASE = "{V1}";\n'
                  f'export const create = (body: any) => fetch(`${{BASE}}/pods`, {{ method: "POST", body: JSON.stringify(body) }});\n'
                  f'export const example = {{ "{name}": VALUE }};\n')
        if to and to != name:
            after_line = f"export const example = {{ {nested(to, 'VALUE')} }};\n"
        else:
            after_line = f"// {name}: {rule.remedy}\nexport const example = {{}};\n"
        after = (f'const BASE = "{V2}";\n'
                 f'export const create = (body: any) => fetch(`${{BASE}}/pods`, {{ method: "POST", body: JSON.stringify(body) }});\n'
                 + after_line)
        return {"language": "typescript", "before": before, "after": after}
    for name in rule.concerns.params:
        before = (f'const BASE = "{V1}";\n'
                  f'export const list = () => fetch(`${{BASE}}/pods?{name}=VALUE`);\n')
        after = (f'const BASE = "{V2}";\n'
                 f"// {name}: {rule.remedy}\n"
                 f'export const list = () => fetch(`${{BASE}}/pods`);\n')
        return {"language": "typescript", "before": before, "after": after}
    return {}


def graphql_example(op) -> dict:
    doc = (f"query {{ {op.parent} {{ {op.field} }} }}" if op.parent
           else f"{op.kind} {{ {op.field}(input: {{podId: $id}}) {{ id }} }}")
    before = ('const GRAPHQL = "https://api.runpod.io/graphql";\n'
              f"const DOC = `{doc}`;\n"
              "export const run = () => fetch(GRAPHQL, { method: \"POST\", body: JSON.stringify({ query: DOC }) });\n")
    if op.v2:
        method, path = op.v2_route
        body = op.v2.split(None, 2)[2] if len(op.v2.split(None, 2)) > 2 else ""
        body_js = ""
        if body:
            inner = body.strip("{}").split(":")
            body_js = f", body: JSON.stringify({{ {inner[0].strip()}: \"{inner[1].strip()}\" }})"
        after = (f'const BASE = "{M.conventions.hosts.v2[0]}";\n'
                 f"export const run = (id: string) => fetch(`${{BASE}}{concrete(path)}`, {{ method: \"{method}\"{body_js} }});\n")
    else:
        after = f'// {op.selection}: no v2 equivalent. {op.note}\n'
    return {"language": "typescript", "before": before, "after": after}


def main() -> None:
    out = {}
    for rid, rule in sorted(CAT.rules.items()):
        if rule.rule_class == "retiring":
            continue
        out[rid] = example(rule)
    out["G01"] = {"language": "typescript",
                  "before": 'export const gql = (q: string) => fetch("https://api.runpod.io/graphql", { method: "POST", body: q });\n',
                  "after": f'const BASE = "{M.conventions.hosts.v2[0]}";\nexport const pods = () => fetch(`${{BASE}}/v2/pods`);\n'}
    for op in M.graphql.operations:
        out[op.id] = graphql_example(op)
    print("# One before/after pair per rule, shown by `v1bridge rules ID` and docs/rules.md.")
    print("# Tested by tests/audit/test_rules_cli.py: `before` raises the rule, `after` does not.")
    print("# Drafted by scripts/draft_rule_examples.py, then kept by hand.")
    class Literal(yaml.SafeDumper):
        pass

    Literal.add_representer(str, lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", v,
                                                                 style="|" if "\n" in v else None))
    yaml.dump(out, sys.stdout, Dumper=Literal, sort_keys=True, allow_unicode=True, width=200)


if __name__ == "__main__":
    main()
