"""Parser-backed scanning for JavaScript/TypeScript, Go, shell (bash/sh) and PowerShell.

Each file is parsed with tree-sitter (the `tree-sitter` package and the
per-language grammar wheels). One walk of the tree collects:

- comments (blanked out of the view the field scan reads: a comment is never a finding);
- the *string expressions* of the file: string literals, template literals,
  `+` concatenations, bash words and strings with expansions, PowerShell
  expandable strings, Go `fmt.Sprintf` formats;
- assignments (`const BASE = ...`, `BASE=...`, `$Base = ...`, `c.baseURL = ...`,
  `baseURL: DefaultBaseURL` in a Go composite literal), so a variable in a
  string expression is replaced by what it holds;
- functions and their parameters, so a *wrapper* is recognised: a function
  whose URL is a base followed by one of its own parameters
  (`rp::http() { curl "${RP_BASE}${2}" }`, `api(path) { fetch(`${BASE}${path}`) }`);
- calls and their arguments, so `rp::http GET "/pods/$id"` is a call of the
  v1 route through that wrapper, also when the wrapper lives in another file
  (the engine joins wrappers across files, see `engine.audit_paths`).

Every string expression is evaluated to a text in which the unknown parts are
holes (`{}`), with literal parts mapped back to their place in the source; the
route and host matching of `scan_text` then runs on that text. A value built
in a variable (`path="/pods/$1"`) is reported where it is built and where it
is sent (`rp::http DELETE "$path"`): both lines are part of the call.

Modules: `grammars` (tree-sitter grammars by suffix, `parse`), `tree` (the values of string expressions, the
generic walk and the evaluator), one walker per language (`lang_js`, `lang_go`, `lang_shell`,
`lang_powershell`), `scan` (from a parsed file to findings); the matching shared with the text scanner is
`codemod.audit.matching`.
"""
from codemod.audit.parsed.grammars import SUFFIXES, available, grammar_for, parse, parser
from codemod.audit.parsed.scan import ParsedAnalysis, scan_parsed

__all__ = ["SUFFIXES", "ParsedAnalysis", "available", "grammar_for", "parse", "parser", "scan_parsed"]
