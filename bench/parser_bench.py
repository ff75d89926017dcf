"""Which parser for the audit's JS/TS, Go, shell and PowerShell files: tree-sitter or ast-grep-py?

    .venv/bin/python bench/parser_bench.py [--copies 40]

The same files (the audit's sample clients of those languages, each copied --copies times
with a distinct name, the way a tree holds many similar clients) go through:

- tree-sitter: `tree_sitter.Parser.parse` + one Python walk of the tree collecting string
  and comment nodes (what `codemod.audit.parsed` does);
- tree-sitter + query: the same nodes captured by a compiled `tree_sitter.Query` (in C);
- ast-grep-py: `SgRoot(text, lang)` + `find_all(kind=...)` for the same node kinds (its
  bundled grammars; it has no PowerShell);
- and, end to end, the audit's scanners on those files: the old line-based text scanner
  (`scan_text`) and the parser-backed one (`scan_parsed`).

Prints ms per file for each, measured in one run, and the ratios.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from codemod.audit.parsed import grammars as parsed  # noqa: E402
from codemod.audit.scan_text import scan_text  # noqa: E402

STRING_KINDS = {
    "javascript": ("string", "template_string"), "typescript": ("string", "template_string"),
    "go": ("interpreted_string_literal", "raw_string_literal"), "shell": ("string", "raw_string"),
    "powershell": ("expandable_string_literal", "verbatim_string_characters"),
}
SG_LANG = {".js": "javascript", ".ts": "typescript", ".tsx": "tsx", ".go": "go", ".sh": "bash"}


def corpus(copies: int) -> list[tuple[str, str]]:
    files = []
    for path in sorted((ROOT / "tests" / "audit" / "samples").rglob("*")):
        if path.is_file() and path.suffix.lower() in parsed.GRAMMARS:
            text = path.read_text(encoding="utf-8", errors="replace")
            files.extend((f"c{i}/{path.name}", text) for i in range(copies))
    return files


def best(fn, files, repeat=3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for name, text in files:
            fn(name, text)
        times.append(time.perf_counter() - start)
    return min(times) / len(files) * 1000


def ts_walk(name: str, text: str) -> int:
    suffix = Path(name).suffix.lower()
    tree = parsed.parser(suffix).parse(text.encode())
    kinds = STRING_KINDS[parsed.GRAMMARS[suffix].name]
    found = 0
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in kinds or node.type == "comment":
            found += 1
        stack.extend(node.children)
    return found


_QUERIES: dict[str, object] = {}


def ts_query(name: str, text: str) -> int:
    import tree_sitter

    suffix = Path(name).suffix.lower()
    grammar = parsed.GRAMMARS[suffix]
    if suffix not in _QUERIES:
        language = tree_sitter.Language(grammar.loader())
        pattern = " ".join(f"({k}) @s" for k in STRING_KINDS[grammar.name]) + " (comment) @c"
        _QUERIES[suffix] = tree_sitter.QueryCursor(tree_sitter.Query(language, pattern))
    tree = parsed.parser(suffix).parse(text.encode())
    return sum(len(v) for v in _QUERIES[suffix].captures(tree.root_node).values())


def sg(name: str, text: str) -> int:
    from ast_grep_py import SgRoot

    suffix = Path(name).suffix.lower()
    lang = SG_LANG[suffix]
    root = SgRoot(text, lang).root()
    kinds = STRING_KINDS["javascript" if lang in ("typescript", "tsx") else
                         {"bash": "shell"}.get(lang, lang)] + ("comment",)
    return sum(len(root.find_all(kind=k)) for k in kinds)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=40)
    args = ap.parse_args()
    files = corpus(args.copies)
    no_ps = [(n, t) for n, t in files if Path(n).suffix.lower() in SG_LANG]
    print(f"files: {len(files)} ({len(no_ps)} in languages ast-grep-py bundles; PowerShell: tree-sitter only)")
    for fn in (ts_walk, ts_query, sg):
        fn(*no_ps[0])  # load grammars
    walk = best(ts_walk, no_ps)
    query = best(ts_query, no_ps)
    try:
        grep = best(sg, no_ps)
    except ImportError:
        grep = float("nan")
    print(f"tree-sitter parse + Python walk:   {walk:.3f} ms/file")
    print(f"tree-sitter parse + query (C):     {query:.3f} ms/file")
    print(f"ast-grep-py SgRoot + find_all:     {grep:.3f} ms/file  ({grep / query:.2f}x tree-sitter + query)")
    text_scan = best(lambda n, t: scan_text(t, n), files)
    parsed_scan = best(lambda n, t: parsed.scan_parsed(t, n), files)
    print(f"audit, line-based text scanner:    {text_scan:.3f} ms/file")
    print(f"audit, parser-backed scanner:      {parsed_scan:.3f} ms/file  ({parsed_scan / text_scan:.2f}x text)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
