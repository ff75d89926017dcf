"""GraphQL findings (rules of class `retiring`, from `mappings/data/graphql.yaml`), in every language.

Three signs of the GraphQL API in a file:

- its URL (`https://api.runpod.io/graphql`, also with `?api_key=...`): rule G01;
- a GraphQL document in a string (`mutation { podStop(input: {podId: $id}) { id } }`,
  `query { myself { pods { id } } }`): each operation of the inventory it selects, at the
  operation's name, with its own rule (G02...) naming the v2 route that replaces it;
- an operation name on its own in a string (`operationName: "podTerminate"`), in a file
  that already talks to GraphQL (the URL or a document).

The strings come from each language's own reader: the tree-sitter string expressions of
`codemod.audit.parsed` (variables and concatenations followed), Python's `ast` for Python
(f-string parts kept, interpolations as holes), and the comment-blanked view for config files.
A document is read with a small GraphQL tokenizer (names, braces, parenthesised arguments
skipped, strings skipped), so a comment or a field that merely shares a name is not a finding.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache

from codemod.audit.catalogue import catalogue
from codemod.audit.model import RawFinding

HOLE = "\u2063"  # stands for an interpolated value inside a document (never a brace)
DOC_START = re.compile(r"^\s*(?:(?:query|mutation)\b|\{)")
TOKEN = re.compile(r'"""(?:.|\n)*?"""|"(?:[^"\\\n]|\\.)*"|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|[{}()]|\S', re.DOTALL)


@dataclass(frozen=True)
class Inventory:
    endpoint_rule: str
    endpoint_paths: tuple[str, ...]
    root: dict[str, str]  # root field -> rule id
    nested: dict[tuple[str, str], str]  # (parent, field) -> rule id
    bare_names: frozenset[str]  # names distinctive enough to count on their own
    tokens: frozenset[str]  # prefilter tokens


@lru_cache(maxsize=1)
def inventory() -> Inventory:
    inv = catalogue().mappings.graphql
    root, nested = {}, {}
    for op in inv.operations:
        if op.parent:
            nested[(op.parent, op.field)] = op.id
        else:
            root[op.field] = op.id
    bare = frozenset(n for n in root if any(c.isupper() for c in n[1:]))
    parents = {p for p, _ in nested}
    return Inventory(inv.endpoint.id, tuple(inv.endpoint.paths), root, nested, bare,
                     frozenset(bare | parents | {p.strip("/") for p in inv.endpoint.paths}))


@dataclass(frozen=True)
class Hit:
    rule: str
    start: int  # offset of the name in the document text
    name: str


ESCAPES = re.compile(r'\\+"?|\\n')
EMBEDDED = re.compile(r"(?<![A-Za-z0-9_$])(?:query|mutation)\b")


def operations(document: str) -> list[Hit]:
    """The inventory operations a GraphQL document selects (empty when the text is no document).

    The document may sit inside a JSON body (`{"query": "mutation { ... }"}`, quotes escaped):
    escapes are blanked (offsets kept) and reading starts at the first `query`/`mutation`."""
    document = ESCAPES.sub(lambda m: " " * len(m.group(0)), document)
    first = EMBEDDED.search(document)
    if first is not None:
        document = " " * first.start() + document[first.start():]
    elif not DOC_START.match(document):
        return []
    inv = inventory()
    out: list[Hit] = []
    stack: list[str | None] = []  # the field that opened each selection set
    last_name: str | None = None
    depth_paren = 0
    in_operation_header = False
    for m in TOKEN.finditer(document):
        tok = m.group(0)
        if tok.startswith(("#", '"')):
            continue
        if depth_paren:
            depth_paren += tok == "("
            depth_paren -= tok == ")"
            continue
        if tok == "(":
            depth_paren = 1
            continue
        if tok == "{":
            stack.append(None if in_operation_header or not stack else last_name)
            in_operation_header = False
            last_name = None
            continue
        if tok == "}":
            if stack:
                stack.pop()
            last_name = None
            continue
        if not (tok[0].isalpha() or tok[0] == "_"):
            continue
        if not stack and tok in ("query", "mutation", "subscription", "fragment"):
            in_operation_header = True
            continue
        if not stack:
            continue
        if len(stack) == 1:
            rule = inv.root.get(tok)
            if rule:
                out.append(Hit(rule, m.start(), tok))
        elif len(stack) == 2 and stack[1] is not None:
            rule = inv.nested.get((stack[1], tok))
            if rule:
                out.append(Hit(rule, m.start(), tok))
        last_name = tok
    return out


def _endpoint(text: str) -> list[int]:
    """Offsets of the GraphQL URL (host + /graphql) in TEXT."""
    cat = catalogue()
    inv = inventory()
    hosts = {h.split("/")[0] for h in cat.v2_hosts} | {h.split("/")[0] for h in cat.v1_hosts}
    out = []
    for host in hosts:
        for path in inv.endpoint_paths:
            start = 0
            needle = host + path
            while True:
                i = text.find(needle, start)
                if i < 0:
                    break
                after = text[i + len(needle):i + len(needle) + 1]
                if not after or not (after.isalnum() or after in "-_"):
                    out.append(i)
                start = i + 1
    return sorted(out)


@dataclass
class StringValue:
    """One string of a file: its text (holes as HOLE) and where each character is in the source."""

    text: str
    locate: object  # callable(index) -> (line, column), or None where the text came from a variable
    fallback: tuple[int, int] | None = None  # where the string expression starts (a use of a variable)


def scan_strings(strings: list[StringValue], source_line) -> list[RawFinding]:
    """GraphQL findings from a file's strings; SOURCE_LINE(line) gives the line's text."""
    cat = catalogue()
    inv = inventory()
    found: list[tuple[str, int, int, str]] = []
    talks_graphql = False
    named: list[tuple[StringValue, int, str]] = []
    for s in strings:
        for i in _endpoint(s.text):
            talks_graphql = True
            # the URL where it is written, and where a variable holding it is used (the request line)
            where = s.locate(i) or s.fallback
            if where:
                found.append((inv.endpoint_rule, *where, "endpoint"))
        hits = operations(s.text)
        if hits:
            talks_graphql = True
        for h in hits:
            where = s.locate(h.start)
            if where:  # None: the text came from a variable, reported where it is written
                found.append((h.rule, *where, h.name))
        bare = s.text.strip()
        if bare in inv.bare_names:
            named.append((s, s.text.index(bare), bare))
    if talks_graphql:
        for s, i, name in named:
            where = s.locate(i)
            if where:
                found.append((inv.root[name], *where, name))
    out: list[RawFinding] = []
    seen = set()
    for rule_id, line, col, name in sorted(found, key=lambda x: (x[1], x[2], x[0])):
        if (rule_id, line, col) in seen:
            continue
        seen.add((rule_id, line, col))
        rule = cat.rules[rule_id]
        if name == "endpoint":
            message = f"GraphQL API URL: {rule.summary}"
            route = "POST /graphql"
            target = None
        else:
            op = next(o for o in cat.mappings.graphql.operations if o.id == rule_id)
            message = f"GraphQL {op.kind} {op.selection} -> {op.v2 or 'no v2 equivalent'}: {op.note}"
            route = f"GraphQL {op.kind} {op.selection}"
            target = op.v2 or "no v2 equivalent"
        out.append(RawFinding(rule_id, line, col, message, False, route, target, "graphql", source_line(line)))
    return out


# ------------------------------------------------------------------ readers per language


def python_strings(text: str, lines) -> list[StringValue]:
    """Python string literals and f-strings (interpolations as holes) with their positions."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    starts = lines.starts
    out: list[StringValue] = []
    # module constants (`GRAPHQL_URL = "https://..."`), substituted into f-strings that use them
    def literal(v) -> str | None:
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            return v.value
        if isinstance(v, ast.Call) and v.args and isinstance(v.args[-1], ast.Constant) \
                and isinstance(v.args[-1].value, str):
            return v.args[-1].value  # os.environ.get("X", "https://...") / os.getenv: the default
        return None

    constants = {t.id: literal(n.value) for n in tree.body if isinstance(n, ast.Assign) and literal(n.value)
                 for t in n.targets if isinstance(t, ast.Name)}

    def part(v) -> str:
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            return v.value
        if isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name) and v.value.id in constants:
            return constants[v.value.id]
        return HOLE

    # docstrings and other bare string statements are documentation, not requests
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    for node in ast.walk(tree):
        if id(node) in docs:
            continue
        if isinstance(node, ast.JoinedStr):
            value = "".join(part(v) for v in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            value = node.value
        else:
            continue
        if "graphql" not in value and not DOC_START.match(value) and value.strip() not in inventory().bare_names:
            continue
        out.append(StringValue(value, _python_locator(text, starts, node, value),
                               (node.lineno, node.col_offset + 1)))
    return out


def _python_locator(text: str, starts: list[int], node, value: str):
    begin = starts[node.lineno - 1] + node.col_offset
    end = starts[node.end_lineno - 1] + node.end_col_offset if node.end_lineno else len(text)
    segment = text[begin:end]

    def locate(index: int) -> tuple[int, int]:
        # find the same word in the literal's source (escapes and prefixes shift plain offsets)
        word = re.match(r"[A-Za-z_][A-Za-z0-9_./:-]*", value[index:])
        target = word.group(0) if word else value[index:index + 1]
        nth = value[:index].count(target)
        pos = -1
        for _ in range(nth + 1):
            pos = segment.find(target, pos + 1)
            if pos < 0:
                pos = 0
                break
        absolute = begin + pos
        line = text.count("\n", 0, absolute) + 1
        return line, absolute - starts[line - 1] + 1

    return locate


def span_strings(text: str, spans: list[tuple[int, int]], lines) -> list[StringValue]:
    """For files read as text (config, HTML, SQL...): each string literal the comment-blanking found."""
    out = []
    for start, end in spans:
        body = text[start + 1:end - 1]
        if "graphql" in body or DOC_START.match(body) or body.strip() in inventory().bare_names:
            out.append(StringValue(body, lambda i, base=start + 1: lines.locate(base + i)))
    return out
