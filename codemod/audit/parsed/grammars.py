"""Tree-sitter grammars by file suffix, and `parse`: one walk of a file's tree into a `ParsedFile`."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from codemod.audit.matching import suffix_of
from codemod.audit.parsed.lang_go import Go
from codemod.audit.parsed.lang_js import JS
from codemod.audit.parsed.lang_powershell import PowerShell
from codemod.audit.parsed.lang_shell import Bash
from codemod.audit.parsed.tree import Evaluator, ParsedFile, Walker, argument_exprs


@dataclass(frozen=True)
class Grammar:
    name: str  # language label in the report
    loader: Callable[[], object]


def _load(module: str, attr: str = "language") -> Callable[[], object]:
    def load() -> object:
        mod = __import__(module)
        return getattr(mod, attr)()
    return load


GRAMMARS: dict[str, Grammar] = {
    ".js": Grammar("javascript", _load("tree_sitter_javascript")),
    ".jsx": Grammar("javascript", _load("tree_sitter_javascript")),
    ".mjs": Grammar("javascript", _load("tree_sitter_javascript")),
    ".cjs": Grammar("javascript", _load("tree_sitter_javascript")),
    ".ts": Grammar("typescript", _load("tree_sitter_typescript", "language_typescript")),
    ".mts": Grammar("typescript", _load("tree_sitter_typescript", "language_typescript")),
    ".cts": Grammar("typescript", _load("tree_sitter_typescript", "language_typescript")),
    ".tsx": Grammar("typescript", _load("tree_sitter_typescript", "language_tsx")),
    ".go": Grammar("go", _load("tree_sitter_go")),
    ".sh": Grammar("shell", _load("tree_sitter_bash")),
    ".bash": Grammar("shell", _load("tree_sitter_bash")),
    ".ksh": Grammar("shell", _load("tree_sitter_bash")),  # the bash grammar reads ksh and zsh scripts' strings,
    ".zsh": Grammar("shell", _load("tree_sitter_bash")),  # expansions and calls (error-tolerant elsewhere)
    ".ps1": Grammar("powershell", _load("tree_sitter_powershell")),
    ".psm1": Grammar("powershell", _load("tree_sitter_powershell")),
}
SUFFIXES: tuple[str, ...] = tuple(GRAMMARS)


def grammar_for(path: str) -> Grammar | None:
    return GRAMMARS.get(suffix_of(path))


@lru_cache(maxsize=None)
def parser(suffix: str):
    import tree_sitter

    return tree_sitter.Parser(tree_sitter.Language(GRAMMARS[suffix].loader()))


def available() -> bool:
    """True when tree-sitter and every grammar wheel import (they are dependencies; this guards a broken install)."""
    try:
        for suffix in SUFFIXES:
            parser(suffix)
    except Exception:
        return False
    return True


WALKERS: dict[str, type[Walker]] = {"javascript": JS, "typescript": JS, "go": Go, "shell": Bash,
                                     "powershell": PowerShell}


def parse(text: str, path: str) -> ParsedFile | None:
    grammar = grammar_for(path)
    if grammar is None:
        return None
    source = text.encode("utf-8")
    tree = parser(suffix_of(path)).parse(source)
    parsed = ParsedFile(text, source, grammar.name)
    walker = WALKERS[grammar.name](parsed)
    walker.walk(tree.root_node)
    argument_exprs(parsed)
    ev = Evaluator(walker, parsed)
    for expr in parsed.exprs:
        ev.function = expr.function
        expr.value = ev.value(expr.node)
    parsed.exprs.sort(key=lambda e: e.node.start_byte)
    parsed._walker = walker  # type: ignore[attr-defined]
    parsed._evaluator = ev  # type: ignore[attr-defined]
    return parsed
