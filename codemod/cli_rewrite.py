"""`v1bridge rewrite PATH...`: rewrite Python v1 client code to v2 in place.

Exit codes: 0 done or nothing to do; 1 changes needed (--check); 2 usage or
internal error. Writes go through `codemod.safe_write` (atomic, mode and owner
kept, hard links kept by writing in place) and keep the file's encoding, BOM
and line endings. A symlink named directly is skipped unless --follow-symlinks.
"""
from __future__ import annotations

import argparse
import difflib
import os
import stat
import sys
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from codemod import safe_write, selection, workers
from codemod.walk import Skipped, SourceFile, iter_files, read_file
from mappings.errors import V1bridgeError

EXIT_OK, EXIT_CHANGES, EXIT_ERROR = 0, 1, 2
PROGRESS_MIN_FILES = 200


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to rewrite")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--diff", action="store_true", help="print unified diffs, write nothing")
    mode.add_argument("--check", action="store_true", help="write nothing; exit 1 when something would change")
    parser.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="worker processes (default 1; 0 = one per CPU)")
    parser.add_argument("--v2-base", metavar="URL", default=None,
                        help="v2 base address replacing v1 ones (default: the v2 host of mappings/ plus /v2)")
    parser.add_argument("--quiet", "-q", action="store_true", help="print only errors and the exit status summary line")
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    parser.add_argument("--follow-symlinks", action="store_true",
                        help="rewrite the target of a symlink named as a PATH (default: skip it, and say so)")
    parser.add_argument("--compat-module", metavar="PATH", default=None,
                        help="where the generated v1bridge_compat.py goes (a .py file or a folder; default: the "
                             "folder of the files given, or their top-level package)")
    parser.add_argument("--format", choices=("text", "json", "markdown"), default="text",
                        help="summary format on stdout for json/markdown (default: text on stderr)")
    selection.add_arguments(parser)


@dataclass
class Outcome:
    """What happened to one file (picklable, so workers can send it back)."""

    path: str
    changed: bool = False
    written: bool = False
    diff: str = ""
    rules: dict[str, int] = field(default_factory=dict)
    manual: list[tuple[int, str, str]] = field(default_factory=list)
    error: str | None = None
    skipped: str | None = None  # a reason: the file was not looked at (e.g. generated)
    module_facts: object = None  # codemod.crossfile.ModuleFacts: what other files of the run may import
    verdicts: dict = field(default_factory=dict)  # its word on constants shared across files
    pending: tuple[str, str] | None = None  # (new text, encoding) held back until the cross-file table is known
    note: str | None = None  # how it was written when not by an atomic rename (safe_write: "in place: ...")
    states: list[tuple[int, int, str, str]] = field(default_factory=list)  # (line, state 1/2/3, rule, cause)
    v1_left: bool = False  # a call or read still depends on v1 (flagged): --check fails
    uses_compat: bool = False  # its new text calls the compat module


def process_file(path: str, rel: str, write: bool, want_diff: bool, v2_base: str | None,
                 selected: frozenset[str] | None = None, externals: dict | None = None,
                 exports: dict | None = None, hold: bool = True, compat_module: str | None = None) -> Outcome:
    """Rewrite one file. Never raises: a problem becomes `Outcome.error`.

    HOLD: a changed file that shares constants with others (it has module-level constants or `from`
    imports) is not written here; its text waits in `Outcome.pending` until the run's cross-file table
    says whether it must be rewritten again (codemod.crossfile)."""
    from codemod.engine import decode, rewrite_source
    from codemod.prefilter import needs_parse
    from codemod.walk import GENERATED_HEAD_BYTES, is_generated

    out = Outcome(rel)
    try:
        data = read_file(path)
    except OSError as exc:
        out.error = f"unreadable: {exc.strerror or exc}"
        return out
    # the generated marker is checked here, on the bytes read anyway, not by a second open in the walk
    if is_generated(data[:GENERATED_HEAD_BYTES]):
        out.skipped = "generated"
        return out
    try:
        text, encoding = decode(data)
    except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
        out.error = f"unreadable: {exc}"
        return out
    if externals is None and not needs_parse(text):  # most files of a tree: nothing to parse, no compat import
        out.uses_compat = "v1bridge_compat" in text
        if rel.rsplit("/", 1)[-1] == "__init__.py":  # it may hand a client class of the run on to its importers
            from codemod.engine import package_facts

            out.module_facts = package_facts(text, rel)
        return out
    try:
        result = rewrite_source(text, rel, v2_base=v2_base, selected=selected, externals=externals, exports=exports,
                                compat_import=_compat_import(path, compat_module), prefilter=False)
    except Exception as exc:  # one bad file never stops the run
        out.error = f"internal: {type(exc).__name__}: {exc}"
        return out
    out.module_facts, out.verdicts = result.module_facts, result.verdicts
    out.manual = [(m.line, m.rule, m.message) for m in result.manual]
    out.states = [(st.line, st.state, st.rule, st.cause) for st in result.states]
    out.v1_left = result.v1_left
    out.uses_compat = result.uses_compat or (result.error is None and "v1bridge_compat" in text)
    if result.error:
        out.error = result.error
        return out
    out.rules = dict(result.rules)
    if not result.changed:
        return out
    out.changed = True
    if want_diff:
        out.diff = "".join(
            difflib.unified_diff(
                text.splitlines(keepends=True), result.new_source.splitlines(keepends=True), f"a/{rel.lstrip('/')}", f"b/{rel.lstrip('/')}"
            )
        )
    if write and hold and result.module_facts is not None:
        out.pending = (result.new_source, encoding)
    elif write:
        _write(out, path, result.new_source, encoding)
    return out


def _compat_import(path: str, module: str | None) -> str | None:
    """The statement importing the compat module from PATH ("" when none reaches it: its calls stay flagged)."""
    if module is None:
        return None
    from codemod import compat

    return compat.import_statement(Path(path), Path(module)) or ""


def _write(out: Outcome, path: str, text: str, encoding: str) -> None:
    from codemod.engine import encode

    try:
        how = safe_write.replace(path, encode(text, encoding))
    except (OSError, UnicodeEncodeError) as exc:  # safe_write.ReadOnlyFile too
        out.error = f"not written: {exc}"
        # its calls are still v1 on disk: the file is counted among the errors, never as v2 or compat
        out.states, out.rules = [], {}
        return
    out.written = True
    if how.startswith("in place"):
        out.note = f"written {how}"


def _star(args: tuple) -> Outcome:
    return process_file(*args)


def _chunk(tasks: list[tuple]) -> list[Outcome]:
    out = []
    for task in tasks:
        workers.stop_if_orphaned()  # a worker whose parent was killed writes nothing more
        out.append(process_file(*task))
    return out


def _warm() -> None:
    """Import the engine and index mappings/ once per worker, before the first chunk arrives."""
    from codemod.engine import rewrite_source

    rewrite_source('import requests\nrequests.get("https://rest.runpod.io/v1/pods")\n', "warm.py")


def _run_all(tasks: list[tuple], jobs: int, progress) -> Iterable[Outcome]:
    if jobs <= 1 or len(tasks) < 2:
        with _pieces_in_workers(tasks, jobs):
            for task in tasks:
                yield _star(task)
                if progress:
                    progress()
        return
    # Small chunks submitted at once: few pickling round trips, and the files that need
    # parsing (a few per cent, scattered) spread evenly over the workers.
    size = max(1, min(32, len(tasks) // (jobs * 8) or 1))
    _warm()  # once here: the forked workers inherit it instead of each building it (mappings, installed modules)
    with workers.pool(jobs, _warm) as pool:
        futures = [pool.submit(_chunk, tasks[i:i + size]) for i in range(0, len(tasks), size)]
        for future in futures:
            for outcome in future.result():
                yield outcome
                if progress:
                    progress()


@contextmanager
def _pieces_in_workers(tasks: list[tuple], jobs: int):
    """With --jobs N and one file large enough to be rewritten in pieces (`codemod.pieces`), the pieces go to N
    workers (`codemod.engine.pieces_in`); otherwise nothing changes."""
    from codemod.pieces import LARGE_BYTES

    try:
        large = jobs > 1 and len(tasks) == 1 and os.path.getsize(tasks[0][0]) >= LARGE_BYTES
    except OSError:
        large = False
    if not large:
        yield
        return
    from codemod.engine import pieces_in

    _warm()
    with workers.pool(jobs, _warm) as pool, pieces_in(pool):
        yield


def _cross_file(outcomes: list[Outcome], paths: dict[str, str], write: bool, args, selected, jobs: int) -> list[Outcome]:
    """Files sharing constants (a base in a sibling module) are rewritten again, together
    (codemod.crossfile.resolve); every held-back text is then written."""
    from codemod import crossfile

    unparsed = [o.path for o in outcomes if o.module_facts is None and o.error is None and o.skipped is None]
    readers = set(crossfile.constant_readers([o.module_facts for o in outcomes], unparsed,
                                             lambda rel: _text_of(paths[rel])))
    if readers:
        tasks = [(paths[rel], rel, write, args.diff, args.v2_base, selected, {}, None, True, args.compat_location)
                 for rel in sorted(readers)]
        again = {o.path: o for o in _run_all(tasks, jobs if len(tasks) > 8 else 1, None)}
        outcomes = [again.get(o.path, o) for o in outcomes]
    table = crossfile.Table(o.module_facts for o in outcomes if o.error is None)
    involved = table.involved()
    if involved:
        def run(batch: list[tuple[str, dict, dict]]) -> dict[str, Outcome]:
            tasks = [(paths[rel], rel, write, args.diff, args.v2_base, selected, ext, exp, True, args.compat_location)
                     for rel, ext, exp in batch]
            return {o.path: o for o in _run_all(tasks, jobs if len(tasks) > 8 else 1, None)}

        results, _blocked = crossfile.resolve(table, run)
        outcomes = [results.get(o.path, o) for o in outcomes]  # type: ignore[misc]
    for outcome in outcomes:
        if outcome.pending is not None:
            text, encoding = outcome.pending
            outcome.pending = None
            _write(outcome, paths[outcome.path], text, encoding)
    return outcomes


def _text_of(path: str) -> str | None:
    from codemod.engine import decode

    try:
        return decode(read_file(path))[0]
    except (OSError, UnicodeDecodeError, SyntaxError, LookupError):
        return None


def _one_name_per_file(files: list[SourceFile], follow: bool, skipped: list[Skipped]) -> list[SourceFile]:
    """A symlink named as a PATH (the walk never yields one from a folder) is skipped, and said, or with
    FOLLOW its target is rewritten (the link stays a link). A file reached by several names (hard links,
    a link and its target) is rewritten once, under its first name; the others are skipped, and said."""
    out: list[SourceFile] = []
    seen: dict[tuple[int, int], str] = {}
    for source in files:
        named = source  # the file under its own path: the walk's SourceFile kept (one made per link followed)
        try:
            st = os.lstat(source.path)  # one call per file: is it a link, how many names has it
            if stat.S_ISLNK(st.st_mode):
                if not follow:
                    skipped.append(Skipped(source.rel, "symlink named directly: not followed "
                                                       "(--follow-symlinks rewrites its target)"))
                    continue
                named = SourceFile(Path(os.path.realpath(source.path)), source.rel)
                st = os.stat(named.path)
        except OSError:
            out.append(source)  # process_file reports what cannot be read
            continue
        if st.st_nlink > 1 or named is not source:
            first = seen.setdefault((st.st_dev, st.st_ino), source.rel)
            if first != source.rel:
                skipped.append(Skipped(source.rel, f"the same file as {first} (rewritten once, under that name)"))
                continue
        out.append(named)
    return out


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except (KeyboardInterrupt, V1bridgeError):  # a refusal (SelectionError, ...) is shown by v1bridge/cli.py
        raise
    except Exception as exc:  # internal error: exit 2 with a message, no traceback dump
        print(f"v1bridge rewrite: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_ERROR


def _run(args: argparse.Namespace) -> int:
    from rich.console import Console

    console = Console(stderr=True, highlight=False)
    jobs = args.jobs if args.jobs and args.jobs > 0 else (os.cpu_count() or 1)
    if args.v2_base is not None and not args.v2_base.startswith(("http://", "https://")):
        print("v1bridge rewrite: --v2-base must be an http(s) URL", file=sys.stderr)
        return EXIT_ERROR
    sel = selection.from_args(args)
    selected = None if sel.is_default else sel.resolve(selection.all_rules())  # SelectionError: v1bridge/cli.py
    skipped: list[Skipped] = []
    files = _one_name_per_file(list(iter_files(args.paths, skipped=skipped, check_generated=False, exclude=args.exclude)),
                               args.follow_symlinks, skipped)
    missing = [s for s in skipped if s.reason == "not found"]
    for item in missing:
        print(f"v1bridge rewrite: {item.path}: not found", file=sys.stderr)
    if missing and not files:
        return EXIT_ERROR
    write = not (args.diff or args.check)
    folders = sorted({str(f.path.parent) for f in files}) if write else []
    for path in (p for folder in folders for p in safe_write.remove_leftovers(folder)):
        print(f"v1bridge rewrite: removed {path}: a temporary file of a run that was killed", file=sys.stderr)
    args.compat_location = _compat_location(args.compat_module, files)
    tasks = [(str(f.path), f.rel, write, args.diff, args.v2_base, selected, None, None, True, args.compat_location)
             for f in files]
    outcomes: list[Outcome] = []
    show_bar = console.is_terminal and not args.no_progress and not args.quiet and len(tasks) >= PROGRESS_MIN_FILES
    if show_bar:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("rewrite"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console, transient=True) as bar:
            task_id = bar.add_task("files", total=len(tasks))
            for outcome in _run_all(tasks, jobs, lambda: bar.advance(task_id)):
                outcomes.append(outcome)
    else:
        outcomes = list(_run_all(tasks, jobs, None))
    outcomes = _cross_file(outcomes, {f.rel: str(f.path) for f in files}, write, args, selected, jobs)
    skipped.extend(Skipped(o.path, o.skipped) for o in outcomes if o.skipped)
    outcomes = [o for o in outcomes if not o.skipped]
    out = sys.stdout
    if args.diff:
        for outcome in outcomes:
            if outcome.diff:
                out.write(outcome.diff)
    errors = [o for o in outcomes if o.error]
    for outcome in errors:
        print(f"v1bridge rewrite: {outcome.path}: {outcome.error}", file=sys.stderr)
    changed = [o for o in outcomes if o.changed and (o.written or not write)]
    args.outside = _outside(changed, args.paths, files)
    compat_written = _write_compat(outcomes, args.compat_location, write)
    if not args.quiet:
        _summary(console, outcomes, changed, errors, skipped, args)
    if args.format != "text":
        from codemod import rewrite_report

        sys.stdout.write(rewrite_report.render(args.format, outcomes, changed, errors, skipped,
                                               args.compat_location if compat_written is not None else None,
                                               args.outside))
    if args.check and (changed or any(o.v1_left for o in outcomes)):
        return EXIT_CHANGES
    if compat_written is False and write:
        return EXIT_ERROR
    if any(o.error and o.error.startswith(("internal", "not written")) for o in outcomes):
        return EXIT_ERROR
    return EXIT_OK


def _outside(changed: list[Outcome], given, files) -> list:
    """Modules outside the paths given that import a module whose base constant or helper this run moved."""
    from codemod import outside
    from codemod.prefilter import needs_parse

    by_rel = {f.rel: f.path for f in files}
    moved = [by_rel[o.path] for o in changed if o.module_facts is not None and o.path in by_rel and (
        o.module_facts.helpers or any(needs_parse(value) for value in o.module_facts.constants.values()))]
    return outside.importers(moved, given, [f.path for f in files]) if moved else []


def _compat_location(option: str | None, files) -> str | None:
    """The compat module's file: --compat-module (a .py file, or a folder to put it in), else next to the files
    given (their folder, or the top-level package holding them)."""
    from codemod import compat

    if option is not None:
        where = Path(option)
        return str(where if where.suffix == ".py" else where / f"{compat.MODULE_NAME}.py")
    # one file per folder says where: the place depends on the files' folders only, and a resolve per file was a
    # twentieth of a run. A symlink named directly is its target here (`_one_name_per_file`), and the walk yields
    # none: a file's folder is its real one. Folders as strings (a Path per file to hash cost as much again).
    folders: set[str] = set()
    paths = []
    for f in files:
        folder = os.path.dirname(f.path)
        if folder not in folders:
            folders.add(folder)
            paths.append(f.path)
    return str(compat.default_location(paths)) if paths else None


def _write_compat(outcomes: list[Outcome], location: str | None, write: bool) -> bool | None:
    """Write (or refresh) the compat module when a file of the run calls it: True written or already current,
    False the write failed (reported), None not needed or not writing."""
    if not write or location is None or not any(o.uses_compat for o in outcomes):
        return None
    from codemod import compat

    try:
        compat.write(Path(location))
    except OSError as exc:
        print(f"v1bridge rewrite: {location}: compat module not written: {exc}", file=sys.stderr)
        return False
    return True


def _summary(console, outcomes: list[Outcome], changed: list[Outcome], errors: list[Outcome], skipped: list[Skipped], args) -> None:
    rules: Counter = Counter()
    for outcome in outcomes:
        rules.update(outcome.rules)
    verb = "would change" if (args.check or args.diff) else "changed"
    console.print(soft_wrap=True, *[f"v1bridge rewrite: {len(outcomes)} files checked, {len(changed)} {verb}, "
                  f"{len(errors)} not rewritten (errors), {len(skipped)} paths skipped"])
    for item in sorted(skipped, key=lambda s: s.path):
        console.print(f"  skipped {item.path}: {item.reason}", markup=False, soft_wrap=True)
    for outcome in outcomes:
        if outcome.note:
            console.print(f"  {outcome.path}: {outcome.note}", markup=False, soft_wrap=True)
    if rules:
        console.print("rewrites by rule: " + ", ".join(f"{rule} {count}" for rule, count in sorted(rules.items())), soft_wrap=True)
    from codemod.rewrite_report import state_counts

    totals, by_rule = state_counts(outcomes)
    if sum(totals.values()):
        console.print(f"v1 call sites: {sum(totals.values())}: {totals[1]} plain v2 (state 1), {totals[2]} v2 through "
                      f"v1bridge_compat (state 2), {totals[3]} flagged (state 3)", soft_wrap=True)
        for state, label in ((1, "plain v2"), (2, "through v1bridge_compat"), (3, "flagged")):
            if by_rule[state]:
                console.print(f"  {label} by rule: " + ", ".join(f"{rule} {n}" for rule, n in sorted(
                    by_rule[state].items())), soft_wrap=True)
    if getattr(args, "outside", None):
        console.print(f"modules outside the paths given import what this run moved to v2 ({len(args.outside)}): "
                      "check them, or rewrite them with it", soft_wrap=True)
        for item in args.outside:
            console.print(f"  {item.path}:{item.line}: imports {item.imports}", markup=False, soft_wrap=True)
    manual = [(o.path, line, rule, msg) for o in outcomes for (line, rule, msg) in o.manual]
    if manual:
        console.print(f"manual items left ({len(manual)}):", soft_wrap=True)
        for path, line, rule, msg in sorted(manual):
            console.print(f"  {path}:{line}: {rule} {msg}", markup=False, soft_wrap=True)
