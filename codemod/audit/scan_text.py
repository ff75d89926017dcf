"""Scanner for every text file that is not Python: JS/TS, Go, shell and curl, HTML, config, OpenAPI documents.

Driven by the catalogue (`codemod.audit.catalogue`, built from `mappings/`):
hosts, v1 route templates, field and parameter names, rule IDs. It works on a
"code view" of the file in which comments are blanked out (so `// was
imageName` is not live code) while strings stay in place, and it looks for:

- hosts: a v1 base URL is a finding (also when held only in .env/YAML/TOML/JSON);
  the v2 host marks the file as v2, the serverless runtime host as "not the
  control plane" (never a finding);
- routes: a path at the start of a string, after a host, after `/v1`, or
  after an interpolated base (`${BASE}/pods/${id}/stop`, `"%s/pods"`,
  `$API/pods`, `"/pods/" + id + "/stop"`). Paths after `/v2`, after another
  host or inside a longer path (`/api/v1/namespaces/x/pods`, import paths) are
  not call sites. A path v2 also has (`/pods`, `/templates/{id}`) counts only
  where the file gives no sign of v2;
- helper-built paths: a call whose string arguments spell a v1-only route
  (`url("networkvolumes", id)`) is an indirect finding (file status review);
- fields and query parameters of the catalogue in key, subscript, property or
  query-string position (never as a bare identifier).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from codemod.audit.catalogue import RouteInfo, catalogue
from codemod.audit.matching import (HOLE, IMPORT_LIKE, SEG, Hit, Language, Lines, dedupe, method_near, name_hits,
                                    normalise, path_anchor, patterns, split_version, suffix_of)
from codemod.audit.model import RawFinding, Signals


# ------------------------------------------------------------------ languages


C_LIKE = Language("c", ("//",), (("/*", "*/"),), "\"'`")
GO = Language("go", ("//",), (("/*", "*/"),), "\"'`")
HTML = Language("html", ("//",), (("<!--", "-->"), ("/*", "*/")), "\"'`")
SHELL = Language("shell", ("#",), (), "\"'", hash_needs_space=True)
HASH_CONFIG = Language("config", ("#", ";"), (), "\"'", hash_needs_space=True, config=True)
YAML = Language("yaml", ("#",), (), "\"'", hash_needs_space=True, config=True)
TOML = Language("toml", ("#",), (), "\"'", config=True)
DOTENV = Language("dotenv", ("#",), (), "\"'", hash_needs_space=True, config=True)
JSON = Language("json", (), (), '"', config=True)
JSONC = Language("json", ("//",), (("/*", "*/"),), '"', config=True)
SQL = Language("sql", ("--",), (("/*", "*/"),), "'\"")
HCL = Language("hcl", ("#", "//"), (("/*", "*/"),), '"', config=True)

BY_SUFFIX: dict[str, Language] = {
    **{s: C_LIKE for s in (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".java", ".kt", ".kts",
                           ".scala", ".rs", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".swift", ".dart",
                           ".groovy", ".gradle", ".php")},
    ".go": GO,
    **{s: HTML for s in (".html", ".htm", ".vue", ".svelte", ".astro", ".xml")},
    **{s: SHELL for s in (".sh", ".bash", ".zsh", ".ksh", ".fish", ".ps1", ".rb", ".pl", ".r", ".mk")},
    **{s: YAML for s in (".yaml", ".yml")},
    ".toml": TOML,
    **{s: HASH_CONFIG for s in (".ini", ".cfg", ".conf", ".properties")},
    ".env": DOTENV,
    ".json": JSON,
    ".jsonc": JSONC,
    ".sql": SQL,
    ".lua": SQL,
    **{s: HCL for s in (".tf", ".hcl")},
}
BY_NAME: dict[str, Language] = {"Dockerfile": SHELL, "Makefile": SHELL, "Procfile": SHELL, "Jenkinsfile": C_LIKE}
ENV_NAMES = (".env.local", ".env.development", ".env.production", ".env.staging", ".env.test", ".env.example",
             ".env.sample", ".envrc")
SUFFIXES: tuple[str, ...] = tuple(BY_SUFFIX) + tuple(BY_NAME) + ENV_NAMES


LABELS: dict[str, str] = {
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".go": "go", ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".json": "json", ".yaml": "yaml",
    ".yml": "yaml", ".toml": "toml", ".html": "html", ".htm": "html",
}


def label_for(path: str, lang: Language) -> str:
    """A language name for the report (typescript, go, yaml, dotenv, ...)."""
    return LABELS.get(suffix_of(path), lang.name)


def language_for(path: str) -> Language | None:
    name = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    if name in BY_NAME:
        return BY_NAME[name]
    if name.startswith(".env"):
        return DOTENV
    return BY_SUFFIX.get(suffix_of(name))


@lru_cache(maxsize=None)
def _token_regex(lang: Language) -> re.Pattern[str]:
    parts = []
    for start, end in lang.block_comments:
        parts.append(f"(?P<b{len(parts)}>{re.escape(start)}.*?(?:{re.escape(end)}|\\Z))")
    for opener in lang.line_comments:
        pre = r"(?:(?<=\s)|(?<=^))" if (opener == "#" and lang.hash_needs_space) or opener == ";" else ""
        parts.append(f"(?P<l{len(parts)}>{pre}{re.escape(opener)}[^\\n]*)")
    for q in lang.quotes:
        if q == "`":
            parts.append(r"(?P<s%d>`(?:[^`\\]|\\.)*`)" % len(parts))
        elif q == "'" and lang is SHELL:
            parts.append(r"(?P<s%d>'[^'\n]*')" % len(parts))
        else:
            qe = re.escape(q)
            parts.append(f"(?P<s{len(parts)}>{qe}(?:[^{qe}\\\\\\n]|\\\\.)*{qe})")
    return re.compile("|".join(parts), re.DOTALL | re.MULTILINE)


def code_view(text: str, lang: Language) -> tuple[str, list[tuple[int, int]]]:
    """The text with comments blanked (newlines kept), and the spans of string literals."""
    out = []
    strings: list[tuple[int, int]] = []
    pos = 0
    for m in _token_regex(lang).finditer(text):
        kind = m.lastgroup or ""
        if kind.startswith("s"):
            strings.append(m.span())
            continue
        out.append(text[pos:m.start()])
        out.append(re.sub(r"[^\n]", " ", m.group(0)))
        pos = m.end()
    out.append(text[pos:])
    return "".join(out), strings


# ------------------------------------------------------------------ patterns


CONCAT = re.compile(r"""^(["'`])\s*\+\s*([\w.$\[\]()]+(?:\([^()\n]*\))?)\s*(?:\+\s*(["'`])|(?=[,)\s;]|$))""")


# ------------------------------------------------------------------ scanning


@dataclass
class TextAnalysis:
    findings: list[RawFinding]
    signals: Signals
    language: str


def scan_text(text: str, path: str, lang: Language | None = None) -> TextAnalysis:
    lang = lang or language_for(path) or C_LIKE
    cat = catalogue()
    pats = patterns()
    view, string_spans = code_view(text, lang)
    lines = Lines(text)
    hits: list[Hit] = []
    uses_v1 = uses_v2 = runtime = False

    # hosts ---------------------------------------------------------------
    host_hits: list[tuple[int, str, str]] = []
    for m in pats.host.finditer(view):
        kind = cat.host_kind(m.group(0))
        after = view[m.end():m.end() + 4]
        if kind == "v2" and after.lower().startswith("/v1"):
            kind = "v1"
        if view[m.end():m.end() + 8].lower().startswith("/graphql"):
            continue  # the GraphQL API: codemod.audit.graphql reports it
        host_hits.append((m.start(), kind or "", m.group(0)))
        if kind == "v1":
            uses_v1 = True
        elif kind == "v2":
            uses_v2 = True
        elif kind == "runtime":
            runtime = True
    if patterns().v2_relative.search(view):
        uses_v2 = True

    # routes --------------------------------------------------------------
    candidates: list[tuple[int, int, tuple[str, ...], str, str]] = []
    for m in pats.path.finditer(view):
        raw = m.group(0)
        start = m.start()
        version, raw_path = split_version(raw, cat)
        if version == "v2":
            uses_v2 = True
            continue
        if version == "other":
            continue
        anchor = path_anchor(view, start, cat, lang)
        if anchor in ("other-host", "runtime", "word"):
            continue
        segs = normalise(raw_path)
        end = m.end()
        # "/pods/" + id + "/stop": follow string concatenation
        while end < len(view) and view[end] in "\"'`":
            cm = CONCAT.match(view[end:end + 200])
            if not cm:
                break
            segs = segs + (HOLE,)
            if cm.group(3):
                nxt = re.match(r"(?:/" + SEG + r")*/?", view[end + cm.end():])
                segs = segs + normalise(nxt.group(0)) if nxt else segs
                end = end + cm.end() + (nxt.end() if nxt else 0)
            else:
                break
        if anchor == "v2" and version != "v1":
            anchor = "base"
        if version == "v1":
            anchor = "v1" if anchor in ("v1", "base", "v2") else anchor
        candidates.append((start, end, segs, anchor, raw))

    definite: list[tuple[int, RouteInfo, str | None]] = []
    ambiguous: list[tuple[int, RouteInfo]] = []
    for start, _end, segs, anchor, raw in candidates:
        route = cat.match_route(segs)
        if route is None:
            continue
        if anchor == "v1":
            definite.append((start, route, None))
        else:
            ambiguous.append((start, route))

    distinctive_hits = name_hits(view, lines, cat, lang, generic=False)
    strong_v1 = uses_v1 or bool(definite) or bool(distinctive_hits)
    control_plane = strong_v1 or uses_v2
    for start, route in ambiguous:
        if route.v1_only:
            # a spelling only v1 writes is a v1 call wherever its base comes from; in configuration (no call in
            # sight, the base unknown) it is left for review
            definite.append((start, route, "indirect" if lang.config and not control_plane else None))
        elif strong_v1 and not uses_v2:
            definite.append((start, route, None))
    if definite:
        uses_v1 = True

    route_starts = set()
    for start, route, kind in definite:
        line, col = lines.locate(start)
        route_starts.add(line)
        method = method_near(lines, line, route)
        if method is None and len(route.methods()) == 1:
            method = route.methods()[0]
        label = f"{method or '|'.join(route.methods())} {route.path}"
        target = cat.v2_target(route, method)
        for rule_id in cat.route_rules(route, method):
            rule = cat.rules[rule_id]
            why = " (review: a v1 path in configuration; the base it is joined to is not in sight)" \
                if kind == "indirect" else ""
            hits.append(Hit(kind or "call", rule_id, line, col,
                            f"v1 {label} -> {target}: {rule.summary}{why}", label, target))

    # helper-built paths ------------------------------------------------------
    if not lang.config:
        for m in pats.call_args.finditer(view):
            if m.group("callee").split(".")[-1] in IMPORT_LIKE:
                continue
            args = re.findall(r"""("[^"\n]*"|'[^'\n]*'|`[^`\n]*`|[\w.$\[\]]+)""", m.group("args"))
            segs: list[str] = []
            literal_first = None
            for a in args:
                if a[0] in "\"'`":
                    value = a[1:-1]
                    if re.search(r"[^A-Za-z0-9/_{}-]", value):
                        segs = []
                        break
                    parts = [p for p in value.strip("/").split("/") if p]
                    if literal_first is None and parts:
                        literal_first = parts[0]
                    segs.extend(parts)
                else:
                    segs.append(HOLE)
            if not segs or literal_first is None or segs[0] not in cat.first_segments:
                continue
            route = cat.match_route(tuple(segs))
            if route is None or not route.v1_only:
                continue
            line, col = lines.locate(m.start("args"))
            if line in route_starts:
                continue
            method = method_near(lines, line, route)
            label = f"{method or '|'.join(route.methods())} {route.path}"
            target = cat.v2_target(route, method)
            for rule_id in cat.route_rules(route, method)[:1]:
                hits.append(Hit("indirect", rule_id, line, col,
                                f"path built by a helper spells v1 {label} -> {target} (review: "
                                f"`{m.group('callee')}` joins it to a base not in sight)", label, target))

    # base URLs --------------------------------------------------------------
    for start, kind, text_host in host_hits:
        if kind != "v1":
            continue
        line, col = lines.locate(start)
        if line in route_starts:
            continue
        rule_id = cat.base_url_rule
        if rule_id:
            rule = cat.rules[rule_id]
            where = "configuration" if lang.config else "code"
            hits.append(Hit("base-url", rule_id, line, col,
                             f"v1 base URL {text_host} in {where}: {rule.remedy}", None,
                             cat.mappings.conventions.hosts.v2[0] + cat.v2_prefix))

    # fields and params -------------------------------------------------------
    field_hits = distinctive_hits
    if strong_v1 and not lang.config:
        field_hits = field_hits + name_hits(view, lines, cat, lang, generic=True)
    if runtime and not (uses_v1 or uses_v2 or definite):
        field_hits = []  # a serverless job client: its endpointId and friends are not control-plane fields
    hits.extend(field_hits)

    findings = dedupe(hits, lines)
    from codemod.audit import graphql

    findings.extend(graphql.scan_strings(graphql.span_strings(text, string_spans, lines), lines.source))
    findings.sort(key=lambda f: (f.line, f.column, f.rule))
    indirect_only = bool(findings) and all(f.kind == "indirect" for f in findings)
    return TextAnalysis(findings, Signals(uses_v1 or bool(findings), uses_v2, runtime, indirect_only),
                        label_for(path, lang))
