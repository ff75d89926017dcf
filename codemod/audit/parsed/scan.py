"""From a parsed file to findings: routes, hosts and wrappers in its string expressions, routes passed to
wrappers, helper-built paths, path segments in variables, fields, jq/error-body reads, GraphQL strings."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from codemod.audit import graphql
from codemod.audit.catalogue import RouteInfo, catalogue
from codemod.audit.matching import (IMPORT_LIKE, Hit, Lines, dedupe, match_loose, method_near, name_hits, normalise,
                                    path_anchor, patterns, split_version)
from codemod.audit.model import RawFinding, Signals
from codemod.audit.parsed.grammars import parse
from codemod.audit.parsed.tree import (HOLE_TEXT, Evaluator, ParsedFile, Part, StringExpr, Value, Walker, Wrapper,
                                       references, text_of)

METHOD_WORDS = ("GET", "POST", "PUT", "PATCH", "DELETE")



@dataclass
class Deferred:
    """A route spelled in an argument of a call to CALLEE that no rule of this file settles.

    It becomes a finding when CALLEE is a v1 wrapper defined anywhere in the audited tree."""

    callee: str
    finding: RawFinding


@dataclass
class PotentialWrapper:
    """A function whose URL is a variable this file does not define followed by a parameter
    (`"${RP_API}${path}"` with RP_API set in lib/config.sh): a wrapper when another file of the tree
    defines that variable as a base."""

    function: str
    var: str
    param: str
    line: int
    column: int
    finding: RawFinding | None = None
    index: int = -1  # position of the parameter among the function's own
    method: str | None = None  # the method its request line always sends, if fixed


@dataclass
class ParsedAnalysis:
    findings: list[RawFinding]
    signals: Signals
    language: str
    wrappers: list[Wrapper] = field(default_factory=list)
    deferred: list[Deferred] = field(default_factory=list)
    bases: dict[str, str] = field(default_factory=dict)  # top-level variables holding a v1/v2 base
    potential: list[PotentialWrapper] = field(default_factory=list)
    base_lines: dict[str, int] = field(default_factory=dict)  # where each of `bases` is set
    base_from: dict[str, str] = field(default_factory=dict)  # a base set from another base of the file
    forwards: list["Forward"] = field(default_factory=list)
    imports: tuple[str, ...] = ()  # what the file imports or sources (module specifiers, Go import paths)


@dataclass(frozen=True)
class Forward:
    """A function that hands one of its parameters on as an argument of a call to another function
    (`Get(path) { return c.do(ctx, http.MethodGet, path, nil, out) }`, `_billing() { rp::http GET "$1$q"; }`):
    a wrapper when that function is one, here or in another file."""

    function: str
    index: int  # position of the parameter among the function's own
    callee: str
    position: int  # position of the argument in the call
    method: str | None
    line: int


class Positions:
    """Byte offsets of the source to (line, column) of the text, and source lines."""

    def __init__(self, text: str, source: bytes) -> None:
        self.lines = Lines(text)
        self.ascii = len(source) == len(text)
        self.source = source

    def char(self, byte_offset: int) -> int:
        if self.ascii:
            return byte_offset
        return len(self.source[:byte_offset].decode("utf-8", "replace"))

    def locate(self, byte_offset: int) -> tuple[int, int]:
        return self.lines.locate(self.char(byte_offset))


def offset_at(value: Value, index: int) -> int | None:
    """The source byte offset of character INDEX of the value's text, when it is literally in the source."""
    pos = 0
    for part in value:
        if pos <= index < pos + len(part.text):
            if part.offset is None:
                return None
            return part.offset + len(part.text[:index - pos].encode("utf-8"))
        pos += len(part.text)
    return None


def param_after(value: Value, index: int) -> Part | None:
    """The parameter hole that starts at character INDEX, if any."""
    pos = 0
    for part in value:
        if pos == index and part.param is not None:
            return part
        pos += len(part.text)
    return None


def _text_lang(path: str):
    from codemod.audit.scan_text import language_for

    return language_for(path)


def _call_method(walker: Walker, ev: Evaluator, args: list, named: dict) -> str | None:
    for node in list(named.get("method", []) and [named["method"]]) + list(args):
        text = text_of(ev.value(node)).strip().strip("'\"").upper()
        if text in METHOD_WORDS:
            return text
    return None


def scan_parsed(text: str, path: str) -> ParsedAnalysis:

    parsed = parse(text, path)
    assert parsed is not None
    walker: Walker = parsed._walker  # type: ignore[attr-defined]
    ev: Evaluator = parsed._evaluator  # type: ignore[attr-defined]
    cat = catalogue()
    pats = patterns()
    lang = _text_lang(path)
    pos = Positions(text, parsed.source)
    lines = pos.lines

    # the view the field scan reads: comments blanked by the parser, strings kept
    view_chars = list(text) if parsed.comments else None
    if view_chars is not None:
        for start, end in parsed.comments:
            for i in range(pos.char(start), pos.char(end)):
                if view_chars[i] != "\n":
                    view_chars[i] = " "
    view = "".join(view_chars) if view_chars is not None else text
    # generic catalogue names (`workers`, `version`) count as keys of values, not as members of a type
    generic_view = view
    if parsed.types:
        chars = list(view)
        for start, end in parsed.types:
            for i in range(pos.char(start), pos.char(end)):
                if chars[i] != "\n":
                    chars[i] = " "
        generic_view = "".join(chars)

    uses_v1 = uses_v2 = runtime = False
    host_hits: list[tuple[int, str, str]] = []  # (byte offset, kind, host text)
    wrappers: list[Wrapper] = []
    wrapper_lines: list[tuple[int, str, str]] = []  # a wrapper's request line whose base is a variable
    potential: list[PotentialWrapper] = []
    # (byte offset, route, anchor, callee, expr)
    candidates: list[tuple[int, RouteInfo, str, str | None, StringExpr]] = []
    v2_rel = pats.v2_relative

    top_level = {name for name, entries in parsed.symbols.items() if any(where is None for _v, where in entries)}
    for expr in parsed.exprs:
        resolved = text_of(expr.value)
        _potential_wrapper(expr, parsed, potential, pos, lines)
        if "/" not in resolved:
            continue
        for m in pats.host.finditer(resolved):
            kind = cat.host_kind(m.group(0))
            after = resolved[m.end():m.end() + 4]
            if kind == "v2" and after.lower().startswith("/v1"):
                kind = "v1"
            if kind == "v2" and after.lower().startswith("/graphql"):
                continue  # the GraphQL API (see codemod.audit.graphql), not REST v2
            offset = offset_at(expr.value, m.start())
            if kind == "v1":
                uses_v1 = True
            elif kind == "v2":
                uses_v2 = True
            elif kind == "runtime":
                runtime = True
            if offset is not None:
                host_hits.append((offset, kind or "", m.group(0)))
            # a wrapper: a base followed directly by one of the function's parameters
            if kind in ("v1", "v2") and expr.function is not None:
                tail = re.match(r"(?:/v\d+)?/?", resolved[m.end():])
                hole = param_after(expr.value, m.end() + (tail.end() if tail else 0))
                if hole is not None and hole.param is not None and hole.param[0] in parsed.functions:
                    fname, params = parsed.functions[hole.param[0]]
                    if fname:
                        index = params.index(hole.param[1]) if hole.param[1] in params else -1
                        line_no = pos.locate(expr.node.start_byte)[0]
                        base_var = next(iter(sorted(references(walker, expr.node) & top_level)), None)
                        wrappers.append(Wrapper(fname, kind, hole.param[1], index, line_no, base_var,
                                                request_method(lines.source(line_no))))
                        if kind == "v1" and offset is None:
                            wrapper_lines.append((expr.node.start_byte, fname, hole.param[1]))
        if v2_rel.search(resolved):
            uses_v2 = True
        for m in pats.path.finditer(resolved):
            raw = m.group(0)
            version, raw_path = split_version(raw, cat)
            if version == "v2":
                uses_v2 = True
                continue
            if version == "other":
                continue
            anchor = path_anchor(resolved, m.start(), cat, lang) if lang is not None else "base"
            if anchor in ("other-host", "runtime", "word"):
                continue
            route = match_loose(cat, normalise(raw_path))
            if route is None:
                continue
            if anchor == "v2" and version != "v1":
                anchor = "base"
            if version == "v1":
                anchor = "v1" if anchor in ("v1", "base", "v2") else anchor
            offset = offset_at(expr.value, m.start())
            if offset is None:
                offset = offset_at(expr.value, m.start() + len(raw) - len(raw_path))
            lead = expr.value[0].var if (m.start() == len(HOLE_TEXT) and expr.value and expr.value[0].var) else None
            candidates.append((offset if offset is not None else expr.node.start_byte, route, anchor,
                               ("$" + lead) if lead else expr.callee, expr))

    # wrappers of this file and of the tree
    known: dict[str, Wrapper] = {}
    for w in wrappers:
        known.setdefault(w.name, w)
    wrapper_args: dict[int, tuple[Wrapper, str | None]] = {}
    for name, node, args, named in parsed.calls:
        w = known.get(name)
        if w is None:
            continue
        method = _call_method(walker, ev, args, named)
        arg = named.get(w.param.lower()) if named else None
        if arg is None and 0 <= w.index < len(args):
            arg = args[w.index]
        if arg is None:
            for a in args:  # the first argument that spells a path
                if text_of(ev.value(a)).startswith(("/", HOLE_TEXT + "/")):
                    arg = a
                    break
        if arg is not None:
            wrapper_args[arg.start_byte] = (w, method)

    distinctive_hits = name_hits(view, lines, cat, lang, generic=False) if lang is not None else []
    definite: list[tuple[int, RouteInfo, str | None, str | None]] = []  # offset, route, kind, method
    ambiguous: list[tuple[int, RouteInfo, str | None, StringExpr]] = []
    for offset, route, anchor, callee, expr in candidates:
        via = wrapper_args.get(expr.node.start_byte)
        if via is not None:
            if via[0].kind == "v1":
                definite.append((offset, route, None, via[1]))
            continue  # a v2 wrapper's path is a v2 path
        if anchor == "v1":
            definite.append((offset, route, None, None))
        else:
            ambiguous.append((offset, route, callee, expr))
    strong_v1 = uses_v1 or bool(definite) or bool(distinctive_hits)
    deferred_raw: list[tuple[str, int, RouteInfo, str | None]] = []
    call_args = {node.id: (args, named) for _name, node, args, named in parsed.calls}
    for offset, route, callee, expr in ambiguous:
        # a method word among the call's arguments (`rp::http GET "/pods/$id"`, `-Method Post`)
        args, named = call_args.get(expr.call_node.id, ([], {})) if expr.call_node is not None else ([], {})
        method = _call_method(walker, ev, args, named) if callee else None
        if route.v1_only:
            definite.append((offset, route, None, method))  # a spelling only v1 writes, wherever the base is
        elif strong_v1 and not uses_v2:
            definite.append((offset, route, None, method))
        elif not callee:
            continue
        if callee:
            # a wrapper defined elsewhere in the project decides (codemod.audit.project): v1 when its base is,
            # and the finding then names where that base is set
            deferred_raw.append((callee if callee.startswith("$") else callee_name(callee), offset, route, method))
    if definite:
        uses_v1 = True

    hits: list = []
    route_lines: set[int] = set()

    def route_hits(offset: int, route: RouteInfo, kind: str | None, method: str | None) -> list:
        line, col = pos.locate(offset)
        if method is None:
            method = method_near(lines, line, route)
        if method is None and "GET" in route.methods() and re.search(r"\bfetch\(", lines.source(line)) \
                and "method" not in lines.source(line):
            method = "GET"  # fetch with no method option
        if method is None and "GET" in route.methods() and re.search(r"Invoke-(?:RestMethod|WebRequest)\b",
                                                                     lines.source(line), re.I) \
                and not re.search(r"-Method\b", lines.source(line), re.I):
            method = "GET"  # Invoke-RestMethod's default
        if method is None and len(route.methods()) == 1:
            method = route.methods()[0]
        label = f"{method or '|'.join(route.methods())} {route.path}"
        members = getattr(route, "members", None)
        if members:
            chosen = [r for r in members if method is None or method in r.methods()] or list(members)
            rule_ids = tuple(dict.fromkeys(rid for r in chosen for rid in cat.route_rules(r, method)))
            target = " | ".join(dict.fromkeys(cat.v2_target(r, method) for r in chosen))
        else:
            rule_ids = cat.route_rules(route, method)
            target = cat.v2_target(route, method)
        out = []
        for rule_id in rule_ids:
            rule = cat.rules[rule_id]
            out.append(Hit(kind or "call", rule_id, line, col, f"v1 {label} -> {target}: {rule.summary}",
                            label, target))
        return out

    for offset, route, kind, method in definite:
        found = route_hits(offset, route, kind, method)
        hits.extend(found)
        route_lines.update(h.line for h in found)

    # helper-built paths: a call whose string arguments spell a v1-only route (`url("networkvolumes", id)`)
    for name, node, args, named in parsed.calls:
        if name in IMPORT_LIKE or name in known or len(args) > 6:
            continue
        segs: list[str] = []
        first_literal: tuple[str, int] | None = None
        for a in args:
            value = ev.value(a)
            text_value = text_of(value)
            if value and all(p.offset is not None for p in value):
                if not re.fullmatch(r"[A-Za-z0-9/_{}-]+", text_value):
                    segs = []
                    break
                parts = [x for x in text_value.strip("/").split("/") if x]
                if first_literal is None and parts:
                    first_literal = (parts[0], value[0].offset)
                segs.extend(parts)
            else:
                segs.append(HOLE_TEXT)
        if not segs or first_literal is None or segs[0] not in cat.first_segments or segs[0] != first_literal[0]:
            continue
        route = cat.match_route(tuple(segs))
        if route is None or not route.v1_only:
            continue
        line, col = pos.locate(first_literal[1] - 1 if first_literal[1] else 0)
        if line in route_lines:
            continue
        method = method_near(lines, line, route)
        label = f"{method or '|'.join(route.methods())} {route.path}"
        target = cat.v2_target(route, method)
        for rule_id in cat.route_rules(route, method)[:1]:
            hits.append(Hit("indirect", rule_id, line, col, f"path built by a helper spells v1 {label} -> {target} "
                            f"(review: `{name}` joins it to a base not in sight)", label, target))

    # a bare resource segment kept in a variable (`REGISTRY_SEGMENT=containerregistryauth`) that a reported
    # path is built from: the constant is part of the call too
    segment_vars = {e.assigned_to: e for e in parsed.exprs
                    if e.assigned_to and text_of(e.value) in cat.first_segments and e.value[0].offset is not None}
    if segment_vars:
        for offset, route, _kind, _method in definite:
            for expr in parsed.exprs:
                if not (expr.node.start_byte <= offset < expr.node.end_byte):
                    continue
                for name in references(walker, expr.node) & set(segment_vars):
                    seg_expr = segment_vars.pop(name)
                    line, col = pos.locate(seg_expr.value[0].offset)
                    rule_id = (cat.route_rules(route, None) or (cat.base_url_rule,))[0]
                    hits.append(Hit("call", rule_id, line, col,
                                     f"v1 path segment `{text_of(seg_expr.value)}` in `{name}`, used for {route.path}: "
                                     f"{cat.rules[rule_id].remedy}", None, None))

    for offset, fname, param in wrapper_lines:
        line, col = pos.locate(offset)
        if line in route_lines or not cat.base_url_rule:
            continue
        hits.append(Hit("base-url", cat.base_url_rule, line, col,
                         f"v1 wrapper `{fname}`: sends its `{param}` argument to the v1 base; "
                         f"{cat.rules[cat.base_url_rule].remedy}", None,
                         cat.mappings.conventions.hosts.v2[0] + cat.v2_prefix))

    for offset, kind, host_text in host_hits:
        if kind != "v1":
            continue
        line, col = pos.locate(offset)
        if line in route_lines or not cat.base_url_rule:
            continue
        rule = cat.rules[cat.base_url_rule]
        hits.append(Hit("base-url", cat.base_url_rule, line, col, f"v1 base URL {host_text} in code: {rule.remedy}",
                         None, cat.mappings.conventions.hosts.v2[0] + cat.v2_prefix))

    field_hits = distinctive_hits
    if strong_v1 and lang is not None:
        field_hits = field_hits + name_hits(generic_view, lines, cat, lang, generic=True)
    # PowerShell hashtable keys (`@{ imageName = $Image }`): body fields the `key:` pattern cannot see
    for name, offset in parsed.keys:
        rule_ids = cat.field_rules.get(name, ())
        if not rule_ids or (name not in cat.distinctive and not strong_v1):
            continue
        line, col = pos.locate(offset)
        for rule_id in rule_ids:
            field_hits.append(Hit("body-field", rule_id, line, col,
                                   f"v1 field `{name}`: {cat.rules[rule_id].summary}"))
    if runtime and not (uses_v1 or uses_v2 or definite):
        field_hits = []
    hits.extend(field_hits)

    # jq filters reading the v1 error body (`jq -r '.message // .error'`) in a file that calls v1, or that
    # holds a wrapper whose base is set in another file (then decided with that file, like a deferred call)
    error_reads: list[Hit] = []
    if parsed.language == "shell":
        keys = "|".join(re.escape(k) for k in cat.mappings.conventions.v1_error_keys_read)
        for name, node, args, named in parsed.calls:
            if name != "jq":
                continue
            # a filter written in pieces (`'.message // "HTTP '"$code"'"'`) is read piece by piece
            pieces = [p for a in args for p in ([a] if a.type != "concatenation" else a.named_children)]
            for arg in pieces:
                if arg.type not in ("raw_string", "string"):
                    continue
                for m in re.finditer(r"(?<![\w\]])\.(" + keys + r")\b", walker.t(arg)):
                    line, col = pos.locate(arg.start_byte + len(walker.t(arg)[:m.start()].encode()))
                    for rule_id in cat.field_rules.get(m.group(1), ()):
                        error_reads.append(Hit("error-read", rule_id, line, col,
                                                f"v1 error body read `{m.group(1)}`: {cat.rules[rule_id].summary}"))
    for key, offset in parsed.error_reads:
        line, col = pos.locate(offset)
        for rule_id in cat.field_rules.get(key, ()):
            error_reads.append(Hit("error-read", rule_id, line, col,
                                    f"v1 error body read `{key}`: {cat.rules[rule_id].summary}"))
    if error_reads and (strong_v1 or any(w.kind == "v1" for w in wrappers)):
        hits.extend(error_reads)
        error_reads = []
    findings = dedupe(hits, lines) + graphql.scan_strings(_graphql_strings(parsed, pos), lines.source)
    findings.sort(key=lambda f: (f.line, f.column, f.rule))
    deferred = []
    for callee, offset, route, method in deferred_raw:
        for h in route_hits(offset, route, None, method):
            deferred.append(Deferred(callee, RawFinding(h.rule, h.line, h.column, h.message, False, h.route,
                                                        h.v2_target, h.kind, lines.source(h.line))))
    bases: dict[str, str] = {}
    base_lines: dict[str, int] = {}
    base_from: dict[str, str] = {}  # a base set from another (`baseURL: DefaultBaseURL`)
    for name, entries in parsed.symbols.items():
        for value_node, where in entries:
            if where is not None:
                continue
            text_value = text_of(ev.value(value_node))
            hm = pats.host.search(text_value)
            kind = cat.host_kind(hm.group(0)) if hm else None
            if kind in ("v1", "v2") and re.match(r"^(?:[a-z]+://)?[^/]+(?:/v\d+)?/?$", text_value.split("{}")[0]):
                bases[name] = kind
                base_lines.setdefault(name, pos.locate(value_node.start_byte)[0])
                if value_node.type in ("identifier", "selector_expression", "simple_expansion", "expansion",
                                       "member_expression"):
                    base_from.setdefault(name, re.sub(r"^.*[.$]|[{}]", "", walker.t(value_node)).split(":")[0])
    # still undecided: decided with the file holding the wrapper's base, or (Go) with the package's other files
    keys = ["$" + pw.var for pw in potential[:1]] or (
        ["@" + path.replace("\\", "/").rsplit("/", 1)[0] if "/" in path else "@"] if parsed.language == "go" else [])
    for h in error_reads:
        for key in keys:
            deferred.append(Deferred(key, RawFinding(h.rule, h.line, h.column, h.message, False, None, None,
                                                     h.kind, lines.source(h.line))))
    for pw in potential:
        pw.finding = RawFinding(cat.base_url_rule or "L01", pw.line, pw.column,
                                f"v1 wrapper `{pw.function}`: sends its `{pw.param}` argument to the v1 base "
                                f"held in `{pw.var}`", False, None,
                                cat.mappings.conventions.hosts.v2[0] + cat.v2_prefix, "base-url",
                                lines.source(pw.line))
    indirect_only = bool(findings) and all(f.kind == "indirect" for f in findings)
    return ParsedAnalysis(findings, Signals(uses_v1 or bool(findings), uses_v2, runtime, indirect_only),
                          parsed.language, wrappers, deferred, bases, potential, base_lines,
                          {k: v for k, v in base_from.items() if v in bases and v != k},
                          _forwards(parsed, walker, ev, pos, known), _imports(parsed))


def _graphql_strings(parsed: ParsedFile, pos: "Positions") -> list:
    out = []
    for expr in parsed.exprs:
        parts = expr.value
        text = "".join(graphql.HOLE if (p.offset is None and p.text == HOLE_TEXT) else p.text for p in parts)
        if not text.strip():
            continue

        def locate(index: int, parts=parts):
            at = 0
            for p in parts:
                size = 1 if (p.offset is None and p.text == HOLE_TEXT) else len(p.text)
                if at <= index < at + size:
                    if p.offset is None:
                        return None
                    return pos.locate(p.offset + len(p.text[:index - at].encode("utf-8")))
                at += size
            return None

        out.append(graphql.StringValue(text, locate, pos.locate(expr.node.start_byte)))
    return out


def _potential_wrapper(expr: StringExpr, parsed: ParsedFile, out: list, pos, lines) -> None:
    value = expr.value
    if expr.function is None or len(value) < 2:
        return
    first, second = value[0], value[1]
    if first.var is None or second.param is None or second.param[0] not in parsed.functions:
        return
    fname, params = parsed.functions[second.param[0]]
    if not fname:
        return
    line, col = pos.locate(expr.node.start_byte)
    index = params.index(second.param[1]) if second.param[1] in params else -1
    out.append(PotentialWrapper(fname, first.var, second.param[1], line, col, index=index,
                                method=request_method(lines.source(line))))



CURL_METHOD = re.compile(r"""(?:-X|--request)[\s=]*["']?([A-Za-z$]\w*)""")
PS_METHOD = re.compile(r"""-Method\s+["']?([A-Za-z$][\w:]*)""", re.IGNORECASE)
CURL_SENDS = re.compile(r"\s(?:-d|--data(?:-raw|-binary|-urlencode)?|-F|--form|--json|-T|--upload-file)[\s=]")


def request_method(source: str) -> str | None:
    """The method a wrapper's request line always sends, when it is fixed there: curl with no -X (GET, POST
    with data) or a literal -X; Invoke-RestMethod with no -Method (GET) or a literal one. None otherwise."""
    if re.search(r"\[[@*]\]|\$[@*]|\$\{?\w*(?:args|opts|flags|curl)\w*\}?", source, re.IGNORECASE):
        return None  # options kept in an array or variable (`curl "${args[@]}" ...`): the method may be in them
    if re.search(r"\bcurl\b", source):
        m = CURL_METHOD.search(source)
        if m is None:
            return "POST" if CURL_SENDS.search(source) else "GET"
        return m.group(1).upper() if not m.group(1).startswith("$") else None
    if re.search(r"\bInvoke-(?:RestMethod|WebRequest)\b", source, re.IGNORECASE):
        m = PS_METHOD.search(source)
        if m is None:
            return "GET"
        return m.group(1).upper() if not m.group(1).startswith("$") else None
    return None


def callee_name(name: str) -> str:
    """The last name of a callee as written (`await client.get` -> `get`, `rp::http` stays, `c.Get` -> `Get`)."""
    words = re.findall(r"[A-Za-z_$][\w$:-]*", name.split("<", 1)[0])
    return words[-1] if words else name


METHOD_CONSTANT = re.compile(r"\bMethod(Get|Post|Put|Patch|Delete)\b|^[\"']?(GET|POST|PUT|PATCH|DELETE)[\"']?$")


def _forwards(parsed: ParsedFile, walker: Walker, ev: Evaluator, pos: "Positions", local: dict) -> list[Forward]:
    """Calls that hand a parameter of the enclosing function on as an argument (see `Forward`)."""
    out: list[Forward] = []
    for name, node, args, _named in parsed.calls:
        func = node.parent
        while func is not None and func.id not in parsed.functions:
            func = func.parent
        if func is None:
            continue
        fname, params = parsed.functions[func.id]
        if not fname or len(args) > 8:
            continue
        saved = ev.function
        ev.function = func
        try:
            for i, arg in enumerate(args):
                value = ev.value(arg)
                first = value[0] if value else None
                if first is None or first.param is None or first.param[0] != func.id:
                    continue
                if first.param[1] not in params:
                    continue
                method = None
                for other in args:
                    m = METHOD_CONSTANT.search(walker.t(other).strip())
                    if m:
                        method = (m.group(1) or m.group(2)).upper()
                        break
                out.append(Forward(fname, params.index(first.param[1]), callee_name(name), i, method,
                                   pos.locate(node.start_byte)[0]))
                break
        finally:
            ev.function = saved
    return out


IMPORT_SPEC = re.compile(r"""(?:\bfrom\s+|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"'\n]+)["']""")
SOURCE_SPEC = re.compile(r"""^\s*(?:source|\.)\s+["']?([^"'\s;]+)""", re.MULTILINE)
GO_IMPORT = re.compile(r'^\s*(?:[\w.]+\s+)?"([^"\n]+)"', re.MULTILINE)


def _imports(parsed: ParsedFile) -> tuple[str, ...]:
    """What the file imports: JS/TS module specifiers, Go import paths, shell `source` arguments."""
    text = parsed.text
    if parsed.language in ("javascript", "typescript"):
        return tuple(dict.fromkeys(IMPORT_SPEC.findall(text)))
    if parsed.language == "go":
        specs: list[str] = []
        for m in re.finditer(r"^import\s*(\((?:.|\n)*?\)|[^\n]+)", text, re.MULTILINE):
            specs.extend(GO_IMPORT.findall(m.group(1).strip("()")))
        return tuple(dict.fromkeys(specs))
    if parsed.language == "shell":
        return tuple(dict.fromkeys(SOURCE_SPEC.findall(text)))
    return ()
