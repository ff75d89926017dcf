"""Run the rewrite on one file: analyse, decide, build and apply the edits of what migrates, verify.

`rewrite_source(text)` is pure (no I/O) and used by the tests, the CLI and the
benchmark. The output always parses; a file whose rewrite would not parse,
or would change again on a second pass, is reported and left unchanged.
"""
from __future__ import annotations

import ast
import codecs
import dataclasses
import functools
import gc
import io
import re
import tokenize
import warnings
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

import libcst as cst

from codemod import pieces
from codemod.analysis import analyze
from codemod.changes import Edit, Finding
from codemod.plan import APPLIERS, ORDER, build_edits, decide_file
from codemod.prefilter import needs_parse


@dataclass
class PythonAnalysis:
    """What the audit and the rewrite read of one module: findings and flags (the decisions), and for the rewrite
    the edits built from them."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    uses_v1: bool = False
    uses_v2: bool = False
    serverless_runtime: bool = False
    indirect_only: bool = False
    error: str | None = None
    module: cst.Module | None = None
    edits: list[Edit] = field(default_factory=list)  # empty when asked for the decisions only (the audit)
    manual: list[tuple[int, str, str]] = field(default_factory=list)  # (line, rule, message) of each flag
    parents: dict[int, cst.CSTNode] = field(default_factory=dict)  # id(node) -> parent node
    verdicts: dict = field(default_factory=dict)  # (origin, name) -> crossfile.Verdict on a shared constant
    module_facts: object = None  # codemod.crossfile.ModuleFacts of the module (None: nothing to share)
    states: list = field(default_factory=list)  # codemod.changes.CallState of each v1 call site
    v1_left: bool = False  # a call or read stays on v1 (flagged): `rewrite --check` fails on it
    compat_calls: list = field(default_factory=list)  # (line, function) of the v1bridge_compat calls in the module
    line_of: object = None  # node -> the line it starts on (Analyzer.line_of): where a piece's edits are
    path_arguments: list = field(default_factory=list)  # codemod.analysis.facts.PathArgument of each call (the audit)
    positions: object = None  # codemod.analysis.syntax.LazyPositions of the module (its code generation is reused)


def _collector_paused(work):
    """WORK with Python's cycle collector off until it returns (then on again, as it was). A libcst tree is
    hundreds of thousands of objects that live until the file is done: each collection of the oldest generation
    walked all of them again, a sixth of an analysis. A tree holds no cycles (its garbage goes by reference
    count); what the analysis leaves in cycles is collected once the collector runs again."""
    @functools.wraps(work)
    def paused(*args, **kwargs):
        if not gc.isenabled():
            return work(*args, **kwargs)
        gc.disable()
        try:
            return work(*args, **kwargs)
        finally:
            gc.enable()
    return paused


@_collector_paused
def analyze_python(source: str, path: str, *, v2_base: str | None = None, externals: dict | None = None,
                   exports: dict | None = None, edits: bool = True,
                   compat_import: str | None = None, whole: bool = False) -> PythonAnalysis:
    """Facts, then the rules' decisions and the whole-client decision, for one module; with EDITS, the edits of
    what migrates, built from them (the audit asks for the decisions only). Never raises on bad input.

    EXTERNALS / EXPORTS: string constants shared with other files of the run (`codemod.crossfile`).
    A large module is analysed in pieces (`codemod.pieces`) when only the decisions are asked for, unless WHOLE."""
    if not edits and not whole:
        cut = pieces.split(source)
        if cut is not None:
            merged = _analyze_pieces(cut, path, v2_base=v2_base, externals=externals, exports=exports)
            if merged is not None:
                return merged
    an, facts = analyze(source, path, v2_base=v2_base, externals=externals, exports=exports)
    result = PythonAnalysis(path=path, error=facts.error)
    if facts.error:
        return result
    result.module_facts = facts.module_facts
    try:
        plan = decide_file(an, facts, compat_import)
        if edits:
            result.edits = build_edits(plan)
    except RecursionError:
        result.error = "too deeply nested to analyse"
        return result
    result.findings = plan.all_findings()
    result.manual = plan.manual_items()
    result.module = facts.module
    result.parents = an.ix.parent
    result.verdicts = plan.verdicts
    result.states = plan.states
    result.compat_calls = facts.compat_calls
    result.path_arguments = facts.path_arguments
    result.line_of = an.line_of
    result.positions = an.pos
    result.v1_left = any(f.blocking for flags in plan.flags.values() for f in flags)
    result.uses_v2 = facts.uses_v2
    result.serverless_runtime = facts.serverless_runtime
    _uses_v1(result)
    return result


def _uses_v1(result: PythonAnalysis) -> None:
    direct = any(f.kind != "indirect" for f in result.findings)
    result.uses_v1 = direct or any(f.kind == "indirect" for f in result.findings)
    result.indirect_only = result.uses_v1 and not direct


_piece_pool = None  # an executor the pieces of a large module are analysed in (`pieces_in`); None: this process


@contextmanager
def pieces_in(executor):
    """While in this block, the pieces of a large module are analysed (and rewritten) in EXECUTOR's processes,
    as many at a time as it has (`--jobs N` with one large file); what each piece gives back is the same."""
    global _piece_pool
    _piece_pool, before = executor, _piece_pool
    try:
        yield
    finally:
        _piece_pool = before


@dataclass
class _PieceDone:
    """What one piece gives back, without its tree: its analysis (decisions only), and when rewriting, the counts
    by rule of the edits it keeps, its new text (None: the edits could not be applied) and why that text does not
    parse (None: it does)."""

    analysis: PythonAnalysis | None
    rules: Counter = field(default_factory=Counter)
    new_text: str | None = None
    error: str | None = None


@_collector_paused
def _piece_work(task: tuple) -> _PieceDone:
    k, piece, shared, path, edits, options = task
    analysis = analyze_python(piece.text, path, edits=edits, whole=True, **options)
    if analysis.error:
        return _PieceDone(None)
    done = _PieceDone(analysis)
    if edits:
        # the line alone: `where` would generate the code of each edited statement to learn its column
        done.rules = _count([e for e in analysis.edits
                             if pieces.keeps(shared, k, piece.module_line(analysis.line_of(e.node))[1])])
        try:
            done.new_text = _applied(analysis) if analysis.edits else piece.text
        except Exception:
            done.new_text = None
        if done.new_text is not None:
            try:  # the output must parse: each piece's (whole statements: the module of them parses then)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ast.parse(done.new_text, path)
            except Exception as exc:
                done.error = f"internal: rewrite failed ({type(exc).__name__}: {exc})"
        analysis.findings = _merge_reads(analysis.findings, k, piece, shared)
    analysis.module, analysis.parents, analysis.line_of, analysis.edits = None, {}, None, []  # the tree stays here
    analysis.positions = None
    return done


def _merge_reads(findings: list[Finding], k: int, piece: pieces.Piece, shared: set[int]) -> list[Finding]:
    """The findings of piece K a rewrite's merge reads, in their order: those in the shared statements (the pieces
    must agree on them) and, of those the piece reports, the first of each rule (`_left_out` names a rule left out
    by its first line). The others (a finding per call site) were most of what a piece sent back to the parent,
    pickled there and read again."""
    out: list[Finding] = []
    first: set[str] = set()
    for f in findings:
        in_shared = piece.module_line(f.line)[1] in shared
        reported = not in_shared or k == 0
        if in_shared or (reported and f.rule not in first):
            out.append(f)
        if reported:
            first.add(f.rule)
    return out


def _piece_analyses(cut: pieces.Split, path: str, *, edits: bool, **options):
    """(piece index, piece, what it gives back) in order, one piece's tree at a time in this process (or in the
    processes of `pieces_in`); stops at a piece the analysis fails on (the caller analyses the module whole)."""
    tasks = ((k, piece, cut.shared, path, edits, options) for k, piece in enumerate(cut.pieces))
    done_all = _piece_pool.map(_piece_work, tasks) if _piece_pool is not None else map(_piece_work, tasks)
    for k, (piece, done) in enumerate(zip(cut.pieces, done_all)):
        yield k, piece, done
        if done.analysis is None:
            return


_PLAIN: dict[type, frozenset[str] | None] = {}  # a dataclass -> its fields, when `moved` may copy them as they are


def moved(item, **changes):
    """`dataclasses.replace(ITEM, **CHANGES)`: for a dataclass whose __init__ only sets its fields (no __post_init__,
    every field set by __init__, a __dict__), the fields are copied as they are instead of through __init__ (a
    piece's findings and call states are each copied to move their line: that was most of a merge, in the parent
    while the workers wait for it); anything else goes through `replace`."""
    cls = type(item)
    names = _PLAIN.get(cls, False)
    if names is False:
        fields = dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else None
        names = _PLAIN[cls] = frozenset(f.name for f in fields) if fields is not None and all(
            f.init for f in fields) and not hasattr(cls, "__post_init__") and not hasattr(cls, "__slots__") else None
    if names is None or not names.issuperset(changes):
        return replace(item, **changes)
    new = object.__new__(cls)
    new.__dict__.update(item.__dict__)
    new.__dict__.update(changes)
    return new


class _Merged:
    """What the pieces of a module found, with their lines in the module's numbering, once each."""

    def __init__(self, cut: pieces.Split, path: str) -> None:
        self.cut, self.path = cut, path
        self.findings: list = []
        self.manual: list = []
        self.states: list = []
        self.compat_calls: list = []
        self.path_arguments: list = []
        self.verdicts: dict = {}
        self.constants: dict = {}
        self.imports: dict = {}  # in the order first found (a dict: a set that keeps it)
        self.helpers: dict = {}
        self.fields: dict = {}
        self.instances: dict = {}
        self.v1_left = self.uses_v2 = self.serverless_runtime = False
        self.shared: list | None = None  # what the first piece found in the shared statements

    def add(self, k: int, piece: pieces.Piece, a: PythonAnalysis) -> bool:
        """Take what piece K found in its own statements (and in the shared ones, for the first piece); False when
        it found something else in a shared statement than the first piece did (the module is analysed whole)."""
        shared: list = []

        def here(line: int, item=lambda: None) -> int | None:
            """LINE of the piece in the module's numbering, None when another piece reports it; ITEM() is what a
            shared statement holds there (made only for those: a copy of each finding was most of a merge)."""
            module_line, segment = piece.module_line(line)
            if segment in self.cut.shared:
                shared.append((module_line, item()))
            return module_line if self.cut.keeps(k, segment) else None

        for f in a.findings:
            if (line := here(f.line, lambda: moved(f, line=0))) is not None:
                self.findings.append(moved(f, line=line))
        for line, rule, message in a.manual:
            if (at := here(line, lambda: (rule, message))) is not None:
                self.manual.append((at, rule, message))
        for st in a.states:
            if (line := here(st.line, lambda: moved(st, line=0))) is not None:
                self.states.append(moved(st, line=line))
        for line, name in a.compat_calls:
            if (at := here(line, lambda: name)) is not None:
                self.compat_calls.append((at, name))
        for arg in a.path_arguments:  # the call and its argument: lines of one statement of the module
            if (line := here(arg.line, lambda: moved(arg, line=0, call_line=0, statement=(0, 0)))) is not None:
                first, last = arg.statement
                self.path_arguments.append(moved(
                    arg, line=line, call_line=piece.module_line(arg.call_line)[0],
                    statement=(piece.module_line(first)[0], piece.module_line(last)[0])))
        for key, verdict in a.verdicts.items():
            self.verdicts.setdefault(key, []).append(verdict)
        if a.module_facts is not None:
            self.constants.update(a.module_facts.constants)
            self.imports.update(dict.fromkeys(a.module_facts.imports))
            self.helpers.update(dict.fromkeys(a.module_facts.helpers))
            self.fields.update(dict.fromkeys(a.module_facts.fields))
            self.instances.update(dict.fromkeys(a.module_facts.instances))
        self.v1_left |= a.v1_left
        self.uses_v2 |= a.uses_v2
        self.serverless_runtime |= a.serverless_runtime
        if self.shared is None:
            self.shared = shared
        return shared == self.shared

    def module_facts(self):
        from codemod.crossfile import ModuleFacts

        if not self.constants and not self.imports and not self.helpers:
            return None
        return ModuleFacts(self.path, self.constants, tuple(self.imports), tuple(self.helpers),
                           fields=tuple(self.fields), instances=tuple(self.instances))

    def agreed_verdicts(self) -> dict:
        """Each piece's word on a constant shared with other files, as one file's: kept when a piece keeps it."""
        from codemod.crossfile import Verdict

        out = {}
        for key, verdicts in self.verdicts.items():
            stay = next((v for v in verdicts if v.state == "stay"), None)
            texts = {v.text for v in verdicts if v.state == "go"}
            if stay is not None:
                out[key] = replace(stay, line=0)
            elif len(texts) > 1:
                out[key] = Verdict("stay", why="its calls need different edits of it")
            elif texts:
                out[key] = next(v for v in verdicts if v.state == "go")
            else:
                out[key] = verdicts[0]
        return out


def _analyze_pieces(cut: pieces.Split, path: str, **options) -> PythonAnalysis | None:
    merged = _Merged(cut, path)
    for k, piece, done in _piece_analyses(cut, path, edits=False, **options):
        if done.analysis is None or not merged.add(k, piece, done.analysis):
            return None
    result = PythonAnalysis(path=path)
    result.findings = sorted(merged.findings, key=lambda f: (f.line, f.column, f.rule))
    result.manual = sorted(merged.manual)
    result.states = sorted(merged.states, key=lambda st: st.line)
    result.compat_calls = sorted(merged.compat_calls)
    result.path_arguments = merged.path_arguments  # in the order the calls are met, piece after piece
    result.verdicts = merged.agreed_verdicts()
    result.module_facts = merged.module_facts()
    result.v1_left, result.uses_v2 = merged.v1_left, merged.uses_v2
    result.serverless_runtime = merged.serverless_runtime
    _uses_v1(result)
    return result


@dataclass
class ManualItem:
    path: str
    line: int
    rule: str
    message: str


@dataclass
class FileResult:
    path: str
    source: str
    new_source: str
    rules: Counter = field(default_factory=Counter)
    manual: list[ManualItem] = field(default_factory=list)
    error: str | None = None
    parsed: bool = False
    verdicts: dict = field(default_factory=dict)  # (origin, name) -> crossfile.Verdict on a shared constant
    module_facts: object = None  # codemod.crossfile.ModuleFacts (the run's cross-file table is built from them)
    states: list = field(default_factory=list)  # codemod.changes.CallState of each v1 call site
    v1_left: bool = False  # a v1 dependency remains after this rewrite (a call or read flagged: state 3)

    @property
    def uses_compat(self) -> bool:
        """Its new text calls the compat module (a call in state 2, or a helper's request translated at run time)."""
        return self.changed and "v1bridge_compat" in self.new_source


    @property
    def changed(self) -> bool:
        return self.error is None and self.new_source != self.source


class _Apply(cst.CSTTransformer):
    """Applies the edits; descends only into subtrees that hold an edited node (the rest is kept as is)."""

    def __init__(self, edits: list[Edit], parents: dict[int, cst.CSTNode]) -> None:
        super().__init__()
        self.by_node: dict[int, list[Edit]] = {}
        for edit in edits:
            self.by_node.setdefault(id(edit.node), []).append(edit)
        for group in self.by_node.values():
            group.sort(key=lambda e: ORDER[e.kind])
        self.on_path: set[int] = set()
        for edit in edits:
            node = parents.get(id(edit.node))
            while node is not None and id(node) not in self.on_path:
                self.on_path.add(id(node))
                node = parents.get(id(node))

    def on_visit(self, node) -> bool:  # type: ignore[override]
        return id(node) in self.on_path

    def on_leave(self, original_node, updated_node):  # type: ignore[override]
        for edit in self.by_node.get(id(original_node), ()):
            updated_node = APPLIERS[edit.kind](updated_node, edit.data)
        return updated_node

    def on_visit_attribute(self, node, attribute) -> None:  # type: ignore[override]
        """Nothing: this transformer has no visit_<Node>_<field> methods for libcst's to look up by name (a
        formatted name and a failed getattr for each field of each node on the way to an edit)."""

    def on_leave_attribute(self, original_node, attribute) -> None:  # type: ignore[override]
        """Nothing, as on_visit_attribute."""


def _applied(analysis: PythonAnalysis) -> str:
    """The code of the module with the analysis's edits applied (what no edit touched is copied, not regenerated)."""
    new_module = analysis.module.visit(_Apply(analysis.edits, analysis.parents))  # type: ignore[union-attr]
    return analysis.positions.code_of_rewritten(new_module)  # type: ignore[union-attr]


def _count(edits: list[Edit]) -> Counter:
    counts: Counter = Counter()
    for edit in edits:
        if edit.kind in ("comment", "page-call", "page-loop", "page-import", "compat-call", "compat-view",
                         "compat-import", "uncomment"):  # a cursor loop counts once (its page-json)
            continue
        if edit.kind == "string":
            for rule in {span[3] for span in edit.data}:  # one literal, one rewrite per rule
                counts[rule] += 1
        else:
            counts[edit.rule] += 1
    return counts


@_collector_paused
def rewrite_source(source: str, path: str = "<string>", *, v2_base: str | None = None, prefilter: bool = True,
                   selected: frozenset[str] | None = None, externals: dict | None = None,
                   exports: dict | None = None, compat_import: str | None = None) -> FileResult:
    """The v2 version of `source` (or `source` itself), the rewrites by rule and the manual items.

    SELECTED (from --select/--ignore, `codemod.selection`): a file whose planned rewrite needs a
    rule left out is left byte for byte, with one manual item per left-out rule (a client is
    migrated as a unit or not at all)."""
    result = FileResult(path, source, source)
    if prefilter and externals is None and not needs_parse(source):  # with externals: a file the run reads whole
        return result
    result.parsed = True
    cut = pieces.split(source)
    if cut is not None:
        done = _rewrite_pieces(cut, result, selected, v2_base=v2_base, externals=externals, exports=exports,
                               compat_import=compat_import)
        if done is not None:
            return done
    analysis = analyze_python(source, path, v2_base=v2_base, externals=externals, exports=exports,
                              compat_import=compat_import, whole=True)
    if analysis.error:
        result.error = analysis.error
        return result
    result.states = analysis.states
    result.v1_left = analysis.v1_left
    result.verdicts = analysis.verdicts
    result.module_facts = analysis.module_facts
    result.manual = [ManualItem(path, line, rule, message) for line, rule, message in analysis.manual
                     if selected is None or rule in selected]
    if not analysis.edits:
        return result
    if _left_out(result, _count(analysis.edits), analysis.findings, selected):
        return result
    try:
        new_source = _applied(analysis)
        # the output must parse: CPython's own parser is the judge (and much faster than a re-parse with libcst)
        ast.parse(new_source, path)
    except Exception as exc:  # never write something that does not parse
        result.error = f"internal: rewrite failed ({type(exc).__name__}: {exc})"
        return result
    result.new_source = new_source
    result.rules = _count(analysis.edits)
    return result


def _left_out(result: FileResult, counts: Counter, findings: list, selected: frozenset[str] | None) -> bool:
    """A planned rewrite needing a rule --select/--ignore leaves out: the file is left as is, said per rule."""
    left_out = sorted(set(counts) - selected) if selected is not None else []
    if left_out:
        lines: dict[str, int] = {}
        for f in findings:
            lines.setdefault(f.rule, f.line)
        result.manual.extend(ManualItem(result.path, lines.get(rule, 1), rule, "not rewritten: the file's migration "
                                        "needs this rule, which --select/--ignore leaves out (file left as is)")
                             for rule in left_out)
    return bool(left_out)


def _rewrite_pieces(cut: pieces.Split, result: FileResult, selected: frozenset[str] | None,
                    **options) -> FileResult | None:
    """The rewrite of a large module a piece at a time (`codemod.pieces`); None when the pieces disagree on a
    shared statement, or one fails (the module is then rewritten whole)."""
    path = result.path
    merged = _Merged(cut, path)
    rules: Counter = Counter()
    head: str | None = None
    texts: dict[int, str] = {}
    for k, piece, done in _piece_analyses(cut, path, edits=True, **options):
        if done.analysis is None or not merged.add(k, piece, done.analysis):
            return None
        rules.update(done.rules)
        if done.new_text is None:
            return None
        if done.error is not None:
            result.error = done.error
            return result
        chunks = cut.chunks(done.new_text, piece)
        if chunks is None:
            return None
        before, by_segment = chunks
        if head is None:
            head = before
        elif before != head:
            return None
        for segment, text in by_segment.items():
            if texts.setdefault(segment, text) != text:  # a shared statement rewritten differently
                return None
    result.states = sorted(merged.states, key=lambda st: st.line)
    result.v1_left = merged.v1_left
    result.verdicts = merged.agreed_verdicts()
    result.module_facts = merged.module_facts()
    result.manual = [ManualItem(path, line, rule, message) for line, rule, message in sorted(merged.manual)
                     if selected is None or rule in selected]
    if not rules and all(texts[i] == cut.segments[i] for i in texts) and not head:
        return result
    if _left_out(result, rules, merged.findings, selected):
        return result
    result.new_source = (head or "") + "".join(texts[i] for i in range(len(cut.segments)))
    result.rules = rules
    return result


def rewrite_files(texts: dict[str, str], *, v2_base: str | None = None,
                  selected: frozenset[str] | None = None) -> dict[str, FileResult]:
    """Rewrite the files of one run (path -> text) in this process, constants shared between them moving only
    with every use of them (`codemod.crossfile`). The CLI does the same with its worker pool."""
    from codemod import crossfile

    out = {path: rewrite_source(text, path, v2_base=v2_base, selected=selected) for path, text in texts.items()}
    for path in crossfile.constant_readers([r.module_facts for r in out.values()],
                                           [p for p, r in out.items() if not r.parsed], texts.get):
        out[path] = rewrite_source(texts[path], path, v2_base=v2_base, selected=selected, externals={})
    table = crossfile.Table(_with_packages({path: r.module_facts for path, r in out.items()}, texts))
    if table.involved():
        results, _blocked = crossfile.resolve(table, lambda batch: {
            path: rewrite_source(texts[path], path, v2_base=v2_base, selected=selected, externals=ext, exports=exp)
            for path, ext, exp in batch})
        out.update(results)  # type: ignore[arg-type]
    return out


def analyze_files(texts: dict[str, str], *, v2_base: str | None = None) -> dict[str, PythonAnalysis]:
    """The audit's view of the files of one run: each analysed with the constants it shares with the others,
    agreed as the rewrite agrees them (`codemod.crossfile.resolve`)."""
    from codemod import crossfile

    out = {path: analyze_python(text, path, v2_base=v2_base, edits=False) for path, text in texts.items()}
    table = crossfile.Table(_with_packages({path: a.module_facts for path, a in out.items()}, texts))
    if table.involved():
        results, _blocked = crossfile.resolve(table, lambda batch: {
            path: analyze_python(texts[path], path, v2_base=v2_base, externals=ext, exports=exp, edits=False)
            for path, ext, exp in batch})
        out.update(results)  # type: ignore[arg-type]
    return out


def _with_packages(facts: dict, texts: dict[str, str]) -> list:
    """The files' cross-file facts, with those of the packages' `__init__` files the prefilter passed over
    (`package_facts`), as the commands read them."""
    out = list(facts.values())
    if any(f is not None for f in out):
        out += [package_facts(texts[path], path) for path, f in facts.items()
                if f is None and path.endswith("__init__.py")]
    return out


def package_facts(source: str, path: str):
    """What a package's `__init__` with no sign of the API hands on to the other files of the run (`from .client
    import RunPodClient`: its codemod.crossfile.ModuleFacts, None when nothing), from the same analysis as every
    module: both commands pass such a file over before parsing, yet a class imported through it (`from runpodctl
    import RunPodClient`) is followed to the module defining it (`crossfile.Table`)."""
    _an, facts = analyze(source, path)
    return facts.module_facts


_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def decode(data: bytes) -> tuple[str, str]:
    """(text, encoding): PEP 263 cookie or BOM honoured; newlines kept exactly as in the file.

    A file with no BOM and no "coding" in its first two lines (where a cookie can be) is UTF-8 if it decodes as
    such: known without `tokenize.detect_encoding`, whose Python code cost as much as reading the file. Anything
    else, errors included, goes through it as before."""
    second = data.find(b"\n", data.find(b"\n") + 1)
    if not data.startswith(codecs.BOM_UTF8) and b"coding" not in (data if second < 0 else data[:second]):
        try:
            return data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            pass
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    return text, encoding


def encode(text: str, encoding: str) -> bytes:
    if encoding == "utf-8-sig":
        return text.encode("utf-8-sig")
    return text.encode(encoding)
