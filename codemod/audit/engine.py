"""Run the code audit: walk (the rewrite's walk), prefilter, scan candidates, apply markers, give statuses.

Python goes through the rewrite's facts and decisions (`codemod.engine.analyze_python`
with `edits=False`: one engine for both commands; the audit builds no edit); other text files through `scan_text`. A cheap
byte-level prefilter from the shared index (`mappings/index.py`) decides which files are parsed
at all; with `jobs > 1` chunks of files go to a process pool.
"""
from __future__ import annotations

import dataclasses
import os
import re
import time
from collections.abc import Iterable
from functools import lru_cache
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import NamedTuple

from codemod.audit import baseline
from codemod.audit import markers as markers_mod
from codemod.audit import parsed as parsed_mod
from codemod.audit import project
from codemod.audit.catalogue import catalogue
from mappings.index import index
from codemod.audit.model import AuditReport, FileResult, Signals
from codemod.audit.scan_text import SUFFIXES, Language, language_for, scan_text
from codemod.audit.status import enrich, finish
from codemod.walk import Skipped, iter_files
from codemod.project_model import ProjectIndex

PY_SUFFIXES = (".py", ".pyi")
PYTHON_TEXT = Language("python", ("#",), (), "\"'")
MAX_BYTES = 2_000_000  # default of --max-target-bytes: larger files are usually data, not client code
BINARY = "binary (a NUL byte in the first 1 KiB)"
CHUNK = 64
MARKED = re.compile(rb"(?:v1bridge|rp-migrate)\s*:\s*(?:ignore|keep-v1)[ \t:-]*file\b", re.IGNORECASE)  # whole-file markers


@lru_cache(maxsize=1)
def _prefilter() -> re.Pattern[bytes]:
    """Bytes any file worth parsing holds: the shared index's tokens (hosts, path roots, the /v2 prefix, v1 names).

    Case-sensitive on purpose: IGNORECASE makes the alternation many times slower; hosts are tried in lower and upper case.
    """
    return index().prefilter(bytes_=True)


def _python_detector():
    try:
        from codemod.engine import analyze_python  # the rewrite's facts and decision
    except ImportError:  # pragma: no cover
        return None
    return analyze_python


SHEBANGS = {"bash": ".sh", "sh": ".sh", "dash": ".sh", "ksh": ".sh", "pwsh": ".ps1", "python": ".py",
            "python3": ".py", "node": ".js"}


def _interpreter(head: bytes) -> str:
    """`#!/usr/bin/env bash` -> bash; `#!/bin/sh -e` -> sh; no shebang -> ''."""
    if not head.startswith(b"#!"):
        return ""
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return ""
    prog = words[0].rsplit("/", 1)[-1]
    if prog == "env" and len(words) > 1:
        prog = next((w for w in words[1:] if not w.startswith("-")), "")
    return prog


def analyze_source(text: str, rel: str, suffix: str | None = None, externals: dict | None = None,
                   exports: dict | None = None) -> FileResult:
    """Scan one file's text into a FileResult with a status (see `_analyze_source`); a file marked as a whole
    (`v1bridge: ignore file`, `rp-migrate: keep-v1 file`) is listed with that marker's status."""
    result = _analyze_source(text, rel, suffix, externals, exports)
    if markers_mod.has_marker(text):
        whole = markers_mod.parse(text).file_kind
        if whole is not None:
            result.file_marker = whole.kind
            finish(result)
    return result


def _analyze_source(text: str, rel: str, suffix: str | None = None, externals: dict | None = None,
                    exports: dict | None = None) -> FileResult:
    """Scan one file's text (already known to be worth scanning) into a FileResult with a status.

    SUFFIX: the language of a file whose name has none (from its shebang). EXTERNALS / EXPORTS: for Python,
    the constants it imports from other files of the run and those it defines for them (codemod.crossfile)."""
    if suffix is not None:
        result = analyze_source(text, rel + suffix, externals=externals, exports=exports)
        result.path = rel
        result.findings = [dataclasses.replace(f, path=rel) for f in result.findings]
        result.deferred = [(c, dataclasses.replace(f, path=rel)) for c, f in result.deferred]
        if result.facts is not None:
            result.facts = project.renamed(result.facts, rel)
        return result
    cat = catalogue()
    is_python = rel.endswith(PY_SUFFIXES)
    if is_python:
        language = "python"
        detector = _python_detector()
        if detector is not None:
            analysis = detector(text, rel, externals=externals or None, exports=exports or None, edits=False)
            if analysis.error:
                # not Python the parser accepts (a syntax error, a Python 2 file): still report what
                # the text scanner finds, and say why the detector could not look
                scanned = scan_text(text, rel, PYTHON_TEXT)
                result = FileResult(rel, language, enrich(scanned.findings, rel, language, cat, markers_mod.parse(text)),
                                    scanned.signals)
                result = finish(result)
                result.error = f"{analysis.error}; scanned as text"
                return result
            raw = list(analysis.findings) + _python_graphql(text)
            # v1 names read on objects handed in from elsewhere come from the detector too
            # (`attributed=False` findings): one engine, no second scan of Python.
            signals = Signals(analysis.uses_v1, analysis.uses_v2, analysis.serverless_runtime,
                              analysis.indirect_only)
        else:
            scanned = scan_text(text, rel, PYTHON_TEXT)
            raw, signals = scanned.findings, scanned.signals
    elif rel.lower().endswith(PAGE_SUFFIXES) and SCRIPT_BLOCK.search(text):
        return _analyze_page(text, rel, cat)
    elif rel.lower().endswith(parsed_mod.SUFFIXES):
        analysis = parsed_mod.scan_parsed(text, rel)
        marker_map = markers_mod.parse(text)
        language = analysis.language
        result = FileResult(rel, language, enrich(analysis.findings, rel, language, cat, marker_map),
                            analysis.signals, markers=len(marker_map.markers))
        _keep_facts(result, analysis, rel, language, cat, marker_map)
        return finish(result)
    else:
        lang = language_for(rel)
        scanned = scan_text(text, rel, lang)
        raw, signals, language = scanned.findings, scanned.signals, scanned.language
    marker_map = markers_mod.parse(text)
    result = FileResult(rel, language, enrich(raw, rel, language, cat, marker_map), signals,
                        markers=len(marker_map.markers))
    if is_python and detector is not None:
        result.module_facts = analysis.module_facts
        result.verdicts = analysis.verdicts
    return finish(result)


def _python_graphql(text: str) -> list:
    """GraphQL operations and URL in Python strings (the rewrite's detector knows REST only)."""
    from codemod.audit import graphql
    from codemod.audit.matching import Lines

    if "graphql" not in text and not any(t in text for t in graphql.inventory().tokens):
        return []
    lines = Lines(text)
    return graphql.scan_strings(graphql.python_strings(text, lines), lines.source)


PAGE_SUFFIXES = (".vue", ".svelte", ".html", ".htm", ".astro")
SCRIPT_BLOCK = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.DOTALL | re.IGNORECASE)


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def _analyze_page(text: str, rel: str, cat) -> FileResult:
    """Vue/Svelte/HTML: `<script>` blocks parsed as JavaScript or TypeScript (`lang="ts"`), the markup read by
    the text scanner; one view of the file each, same line and column numbers."""
    script_parts, markup_parts, pos, ts = [], [], 0, False
    for m in SCRIPT_BLOCK.finditer(text):
        body_start, body_end = m.start(2), m.end(2)
        ts = ts or bool(re.search(r"""lang\s*=\s*["']?ts""", m.group(1)))
        script_parts.append(_blank(text[pos:body_start]) + text[body_start:body_end])
        markup_parts.append(text[pos:body_start] + _blank(text[body_start:body_end]))
        pos = body_end
    script_parts.append(_blank(text[pos:]))
    markup_parts.append(text[pos:])
    scripts = parsed_mod.scan_parsed("".join(script_parts), rel + (".ts" if ts else ".js"))
    markup = scan_text("".join(markup_parts), rel, language_for(rel))
    seen = set()
    raw = []
    for f in sorted(scripts.findings + markup.findings, key=lambda f: (f.line, f.column, f.rule)):
        if (f.rule, f.line, f.column) not in seen:
            seen.add((f.rule, f.line, f.column))
            raw.append(f)
    a, b = scripts.signals, markup.signals
    signals = Signals(a.uses_v1 or b.uses_v1, a.uses_v2 or b.uses_v2, a.serverless_runtime or b.serverless_runtime,
                      bool(raw) and all(f.kind == "indirect" for f in raw))
    marker_map = markers_mod.parse(text)
    result = FileResult(rel, markup.language, enrich(raw, rel, markup.language, cat, marker_map), signals,
                        markers=len(marker_map.markers))
    _keep_facts(result, scripts, rel, markup.language, cat, marker_map)
    return finish(result)


def _keep_facts(result: FileResult, analysis, rel: str, language: str, cat, marker_map) -> None:
    """What a parsed file defines and calls by name, for the project-wide pass (`codemod.audit.project`)."""
    def one(raw):
        return enrich([raw], rel, language, cat, marker_map)[0]

    result.facts = project.FileFacts(
        analysis.language,
        helpers=[project.Helper(w.name, w.kind, w.index, w.line, w.base) for w in analysis.wrappers],
        bases={name: (kind, analysis.base_lines.get(name, 0)) for name, kind in analysis.bases.items()},
        base_from=dict(analysis.base_from),
        pending=[project.Pending(pw.function, pw.var, pw.index, pw.line,
                                 one(pw.finding) if pw.finding is not None else None) for pw in analysis.potential],
        forwards=[project.Forward(f.function, f.index, f.callee, f.position, f.method, f.line)
                  for f in analysis.forwards],
        calls=[(d.callee, one(d.finding)) for d in analysis.deferred if not d.callee.startswith("@")],
        imports=analysis.imports,
    )
    result.deferred = [(d.callee, one(d.finding)) for d in analysis.deferred if d.callee.startswith("@")]


def join_project(results: list[FileResult]) -> ProjectIndex:
    """The project-wide pass of the parsed languages (`codemod.audit.project`): calls through a helper defined
    in another file get their verdict from where its base is set. Then a Go file's v1 error type (`"@DIR"`) is
    v1 when another file of its package calls v1."""
    index = project.resolve(results)
    project.apply(results, index)
    v1_go_dirs = {r.path.rsplit("/", 1)[0] if "/" in r.path else "" for r in results
                  if r.language == "go" and any(f.kind in ("call", "base-url") for f in r.findings)}
    for result in results:
        if not result.deferred:
            continue
        added = [f for callee, f in result.deferred if callee.startswith("@") and callee[1:] in v1_go_dirs]
        result.deferred = []
        if added:
            seen = {(f.rule, f.line, f.column) for f in result.findings}
            result.findings.extend(f for f in added if (f.rule, f.line, f.column) not in seen)
            result.findings.sort(key=lambda f: (f.line, f.column, f.rule))
            finish(result)
    return index


class NotRead(NamedTuple):
    """A candidate file the audit did not read (too large, unreadable): no verdict of clean while one remains."""

    path: str
    reason: str


def _too_large(size: int, max_bytes: int) -> str:
    return f"too large: {size:,} bytes (over --max-target-bytes {max_bytes:,})"


def _analyze_path(path: str, rel: str, externals: dict | None = None, exports: dict | None = None,
                  passed_over: list | None = None, force: bool = False,
                  max_bytes: int = MAX_BYTES) -> FileResult | NotRead | Skipped | None:
    """Read and scan one file: its result; NotRead when it is over MAX_BYTES (0: no limit); Skipped when binary;
    None when it is not worth scanning. A parsed-language file the prefilter passes over is added to
    PASSED_OVER: it may still define a helper other files call (read again by `_helpers_of`)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1) if max_bytes else handle.read()
            if max_bytes and len(data) > max_bytes:
                return NotRead(rel, _too_large(os.fstat(handle.fileno()).st_size, max_bytes))
    except OSError as exc:  # an error of the run, and not read (audit_paths lists it under both)
        return FileResult(rel, "unknown", error=f"unreadable: {exc.strerror or exc}")
    if b"\x00" in data[:1024]:
        return Skipped(rel, BINARY)
    suffix = None
    name = rel.rsplit("/", 1)[-1]
    if "." not in name and language_for(rel) is None:
        # a script with no suffix (bin/rpctl): its shebang says what it is
        suffix = SHEBANGS.get(_interpreter(data[:128]))
        if suffix is None:
            return None
    if not force and not _prefilter().search(data) and not MARKED.search(data):
        if passed_over is not None and (suffix or rel).lower().endswith(parsed_mod.SUFFIXES):
            passed_over.append((path, rel))
        return None
    text = data.decode("utf-8", errors="replace")
    try:
        return analyze_source(text, rel, suffix, externals, exports)
    except Exception as exc:  # one bad file must not stop the audit
        return FileResult(rel, "unknown", error=f"{type(exc).__name__}: {exc}")


def _analyze_chunk(chunk: list[tuple[str, str]], max_bytes: int = MAX_BYTES,
                   ) -> tuple[list[FileResult | NotRead | Skipped], list[tuple[str, str]]]:
    out = []
    passed_over: list[tuple[str, str]] = []
    for path, rel in chunk:
        result = _analyze_path(path, rel, passed_over=passed_over, max_bytes=max_bytes)
        if result is not None:
            out.append(result)
    return out, passed_over


TRANSPORTS = frozenset({"fetch", "curl", "wget", "http", "Invoke-RestMethod", "Invoke-WebRequest", "irm", "iwr",
                        "NewRequest", "NewRequestWithContext", "axios", "ky", "got", "superagent", "$fetch"})


def _family(path: str) -> str:
    grammar = parsed_mod.grammar_for(path)
    name = grammar.name if grammar is not None else "shell"  # an extensionless script passed over: by shebang
    return "js" if name in ("javascript", "typescript") else name


def _helpers_of(results: list[FileResult], passed_over: list[tuple[str, str]]) -> list[FileResult]:
    """Files the prefilter passed over that define a function another file of their language calls without
    any file defining it (a `lib/util.sh` holding `_billing() { rp::http GET "$1"; }`, with no host or path of
    its own): parsed after all, for their facts, so the call can be followed to its base. HTTP clients
    themselves (`fetch`, `curl`...) are never looked for."""
    defined: set[str] = set()
    called: dict[str, set[str]] = {}
    for r in results:
        if r.facts is None:
            continue
        defined.update(h.name for h in r.facts.helpers)
        defined.update(f.name for f in r.facts.forwards)
        defined.update(p.name for p in r.facts.pending)
        family = "js" if r.facts.language in ("javascript", "typescript") else r.facts.language
        called.setdefault(family, set()).update(c for c, _f in r.facts.calls if not c.startswith("$"))
    patterns = {}
    for family, names in called.items():
        missing = sorted(names - defined - TRANSPORTS)
        if missing:
            patterns[family] = re.compile(rb"(?<![\w$:.-])(?:" + b"|".join(re.escape(n.encode()) for n in missing)
                                          + rb")(?![\w$:-])")
    if not patterns or not passed_over:
        return []
    out = []
    for path, rel in passed_over:
        pattern = patterns.get(_family(rel))
        if pattern is None:
            continue
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_BYTES + 1)
        except OSError:
            continue
        if pattern.search(data):
            result = _analyze_path(path, rel, force=True)
            if result is not None and result.facts is not None:
                out.append(result)
    return out


def _root_for(paths: list[str]) -> Path:
    absolute = [Path(os.path.abspath(p)) for p in paths]
    dirs = [p if p.is_dir() else p.parent for p in absolute]
    if len(dirs) == 1:
        return dirs[0]
    return Path(os.path.commonpath([str(d) for d in dirs]))


def _relative(path: Path | str, root: Path) -> str:
    """PATH relative to the scanned root, "/"-separated (string work only: no resolve per file)."""
    rel = os.path.relpath(os.path.abspath(path), root)
    return rel.replace(os.sep, "/")


def audit_paths(paths: list[str], jobs: int = 1, exclude: Iterable[str] = (), max_bytes: int = MAX_BYTES) -> AuditReport:
    """Audit every file under PATHS; paths in the report are relative to the scanned root.

    With jobs > 1 the walk streams chunks of files to a process pool while it goes on. A candidate file
    over MAX_BYTES (0: no limit) or unreadable is not read: the report lists it and cannot be clean.
    """
    started = time.perf_counter()
    root = _root_for(paths)
    skipped_raw: list = []
    walk = iter_files(paths, include_suffixes=PY_SUFFIXES + SUFFIXES + parsed_mod.SUFFIXES, skipped=skipped_raw, check_generated=False,
                      include_extensionless=True, exclude=exclude)

    def chunks():
        chunk: list[tuple[str, str]] = []
        for source in walk:
            chunk.append((str(source.path), _relative(source.path, root)))
            if len(chunk) >= CHUNK:
                yield chunk
                chunk = []
        if chunk:
            yield chunk

    outcomes: list[FileResult | NotRead | Skipped] = []
    passed_over: list[tuple[str, str]] = []
    walked = 0
    if jobs > 1:
        _warm()  # build everything once in the parent; forked workers inherit it
        import multiprocessing

        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_warm) as pool:
            futures = []
            for chunk in chunks():
                walked += len(chunk)
                futures.append(pool.submit(_analyze_chunk, chunk, max_bytes))
            for future in futures:
                found, over = future.result()
                outcomes.extend(found)
                passed_over.extend(over)
    else:
        for chunk in chunks():
            walked += len(chunk)
            found, over = _analyze_chunk(chunk, max_bytes)
            outcomes.extend(found)
            passed_over.extend(over)
    results = [o for o in outcomes if isinstance(o, FileResult)]
    too_large = [o for o in outcomes if isinstance(o, NotRead)]
    failed = [r for r in results if r.error and r.language == "unknown"]  # unreadable, or the analysis failed
    unopened = sum(1 for r in failed if r.error.startswith("unreadable"))
    # the walk's unreadable files and folders hide candidates as surely as an unreadable file does
    not_read = too_large + [NotRead(r.path, r.error if r.error.startswith("unreadable") else f"not analysed: {r.error}")
                            for r in failed]
    not_read += [NotRead(_relative(Path(s.path), root), s.reason) for s in skipped_raw
                 if s.reason.startswith("unreadable")]
    skipped = sorted({(_relative(Path(s.path), root), s.reason) for s in skipped_raw
                      if not s.reason.startswith("unreadable")} | {(o.path, o.reason) for o in outcomes
                                                                   if isinstance(o, Skipped)})
    results.extend(_helpers_of(results, passed_over))
    _cross_file(results, root)
    report_index = join_project(results).merged(_python_segments(results, root))
    results.sort(key=lambda r: r.path)
    report = AuditReport(
        roots=[str(p) for p in paths],
        files=results,
        scanned=walked - len(too_large) - unopened,
        skipped=skipped,
        not_read=sorted(set(not_read)),
        elapsed_s=time.perf_counter() - started,
        jobs=jobs,
        project=report_index,
    )
    baseline.assign(report)
    return report


def _python_segments(results: list[FileResult], root: Path) -> ProjectIndex:
    """Python facts across modules: calls of a v1 helper imported from another module (`project.python_helpers`),
    path segments kept in their own constant and joined later (`project.python_segments`)."""
    @lru_cache(maxsize=64)
    def read(rel: str) -> str | None:
        try:
            return (root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    @lru_cache(maxsize=64)
    def marker_map(rel: str):
        return markers_mod.parse(read(rel) or "")

    def markers_of(rel: str, line: int):
        return marker_map(rel).lookup(line)

    helpers = project.python_helpers(results, read)
    if helpers.uses:
        project.apply_python_helpers(results, helpers, read, markers_of)
    index = project.python_segments(results, read)
    if index.definitions:
        project.apply_segments(results, index, read, markers_of)
    return index.merged(helpers)


def _cross_file(results: list[FileResult], root: Path) -> None:
    """Python files that share string constants (a base in a sibling module) are read again with them, agreed
    the way the rewrite agrees them (`codemod.crossfile.resolve`: a constant one of its users keeps stays v1 for
    all): the audit reports what the rewrite decides, under the same rules."""
    from codemod import crossfile

    table = crossfile.Table(r.module_facts for r in results)
    if not table.involved():
        return

    def run(batch):
        out = {}
        for path, ext, exp in batch:
            again = _analyze_path(str(root / path), path, ext, exp, max_bytes=0)  # read once already
            if isinstance(again, FileResult):
                out[path] = again
        return out

    final, _blocked = crossfile.resolve(table, run)
    for i, result in enumerate(results):
        if result.path in final:
            results[i] = final[result.path]


def _warm() -> None:
    """Build the catalogue, the prefilter and the detector's tables once per process."""
    catalogue()
    _prefilter()
    parsed_mod.available()  # load every grammar once
    detector = _python_detector()
    if detector is not None:
        try:
            detector("import requests\nrequests.get('https://rest.runpod.io/v1/pods')\n", "warm.py", edits=False)
        except Exception:  # pragma: no cover - warming is best effort
            pass


def narrow(report: AuditReport, allowed: frozenset[str]) -> None:
    """Keep only findings of ALLOWED rules (--select/--ignore/--scope) and give each file its status again.

    A file whose every finding was left out no longer counts as using v1 (its status is what its
    other signals say: v2, not-control-plane, or none)."""
    for fr in report.files:
        kept = [f for f in fr.findings if f.rule in allowed]
        if len(kept) != len(fr.findings):
            if not kept and fr.findings:
                fr.signals = Signals(False, fr.signals.uses_v2, fr.signals.serverless_runtime, False)
            fr.findings = kept
            finish(fr)
        fr.deferred = [(c, f) for c, f in fr.deferred if f.rule in allowed]
