"""Where `v1bridge rewrite` leaves each v1 call site of the client corpus: issue 21's three states, and the silent.

Judged from outside the codemod: the corpus manifests (tests/codemod/corpus/MANIFEST.yaml and
tests/codemod/projects/MANIFEST.yaml) say where every v1 call site is and which v1 route it calls; this script
copies the corpus, runs the real `v1bridge rewrite` command on the copy (one run, as a user would), maps each call
site's line to the rewritten text and classifies the statement found there:

  3  flagged: a `# v1bridge: <RULE> ...` comment directly above the statement (`cause` when the comment has the
     `<RULE> <cause>: <remedy>` form);
  2  v2 through a compat helper: the statement calls `v1bridge_compat.`, or it is unchanged on a moved base
     and calls a function of its module that sends through `call_v1` (a helper translating each call at run time;
     counted with the calls through `call_v1`, and with any v1 spelling the line keeps);
  1  v2: no comment, no compat call, no v1 spelling (a v1 host, a path segment only v1 has, a v1-only field name)
     and the base it goes through no longer v1 (a constant of its module still on v1 keeps it v1; a statement left
     unchanged counts only when a base constant of its module moved);
  silent: none of these, and the statement is byte for byte the original (a v1 call left without a word), or
     unchanged on a moved base although its v1 route differs on v2 (a v1 path sent to v2);
  v1-left: changed, but still spelling v1 (half a migration) and no comment.

The share the issue asks for is states 1 + 2 with no v1 spelling left on the line, over every v1 call site.
This is a count of outcomes, not a performance figure: it is printed, not written to docs.

    .venv/bin/python bench/rewrite_states.py [--jobs N] [--json] [--files]

`--files` lists every call site (`*`: a v1 spelling is left on it). State 2 by `call_v1` (the whole call translated
at run time) is counted apart as well: issue 21 wants a compat helper to wrap only the part v2 lacks.
"""
from __future__ import annotations

import argparse
import ast
import difflib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mappings.index import index  # noqa: E402

CORPORA = (ROOT / "tests" / "codemod" / "corpus", ROOT / "tests" / "codemod" / "projects")
V1_ROUTE = re.compile(r"^(?:not a v1 route: )?(GET|POST|PUT|PATCH|DELETE) (/[^\s,]*)")
V1_HOST = re.compile(r"runpod\.io/v1\b")
COMMENT = re.compile(r"#\s*v1bridge:\s*([A-Z]\d+)\b\s*(.*)")
STATES = ("1", "2", "3", "silent", "v1-left")


@dataclass
class Site:
    corpus: str
    file: str  # relative to its corpus directory
    line: int  # in the original
    route: str  # "METHOD /v1/path" as the manifest names it
    state: str
    cause: bool  # state 3 only: the comment names what the rewrite could not read
    v1_spelling: bool  # a v1 spelling is left on the rewritten statement
    runtime: bool  # state 2 by call_v1: the whole call translated at run time, not a helper for what v2 lacks
    body_runtime: bool  # state 2 by with_v1_body: the v2 route, its v1 body converted when it runs
    listed: bool  # the run's summary lists the statement among the items left to the user
    after: str  # the rewritten statement (first line)


def modules(corpus: Path) -> dict[str, dict]:
    """module -> its manifest entry, with every `file` relative to the corpus directory (a project's files are
    named relative to the project)."""
    manifest = corpus / "MANIFEST.yaml"
    if not manifest.exists():
        return {}
    data = yaml.safe_load(manifest.read_text())
    if "modules" in data:
        return data["modules"]
    out = {}
    for name, spec in data["projects"].items():
        out[name] = {key: [{**item, "file": f"{name}/{item['file']}"} for item in spec.get(key) or []]
                     for key in ("calls", "constants")}
    return out


def manifest_sites(corpus: Path) -> list[tuple[str, str, int, str]]:
    """(module, file, line, route) of every v1 call site a corpus manifest lists (helpers and non-v1 calls left
    out)."""
    out = []
    for name, spec in modules(corpus).items():
        for call in spec.get("calls") or []:
            match = V1_ROUTE.match(str(call.get("v1", "")))
            if call.get("outcome") == "untouched" or match is None:
                continue
            out.append((name, call.get("file") or name, call["line"], f"{match[1]} {match[2]}"))
    return out


def base_lines(corpus: Path) -> dict[str, list[tuple[str, int]]]:
    """module -> (file, line) of the manifest's v1 base constants (the calls of that module go through them)."""
    out: dict[str, list[tuple[str, int]]] = {}
    for name, spec in modules(corpus).items():
        for const in spec.get("constants") or []:
            if V1_HOST.search(const.get("at", "")):
                out.setdefault(name, []).append((const.get("file") or name, const["line"]))
    return out


def line_map(before: list[str], after: list[str]) -> list[int]:
    """For each line of `before` (0-based), the 0-based line of `after` it became (the start of a replaced block)."""
    out = [0] * len(before)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        for k, i in enumerate(range(i1, i2)):
            out[i] = j1 + k if tag == "equal" else min(j1 + k, max(j2 - 1, j1))
            # a replaced line that gained its comment above: the line itself, below the comment
            while tag != "equal" and out[i] + 1 < j2 and COMMENT.match(after[out[i]].strip()):
                out[i] += 1
    return out


def statement_at(tree: ast.AST, lines: list[str], line: int) -> tuple[int, int]:
    """(first, last) 1-based lines of the innermost statement holding `line` (a compound one's header only)."""
    best = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        last = node.end_lineno or node.lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            last = body[0].lineno - 1  # the header of a with/if/for/def
        if node.lineno <= line <= last and (best is None or last - node.lineno <= best[1] - best[0]):
            best = (node.lineno, last)
    return best or (line, line)


def statement_calls(tree: ast.AST, first: int) -> set[str]:
    """`called_names` of the innermost statement starting at line FIRST (`statement_at`'s: a compound one's header
    only, its test, iterable or context managers)."""
    stmt = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno == first:
            stmt = node  # ast.walk goes outside in: the last one found is the innermost
    if stmt is None:
        return set()
    body = getattr(stmt, "body", None)
    if not (isinstance(body, list) and body and isinstance(body[0], ast.stmt)):
        return called_names(stmt)
    header = [getattr(stmt, name, None) for name in ("test", "iter", "items")]
    return set().union(*(called_names(part) for item in header if item is not None
                         for part in (item if isinstance(item, list) else [item])))


def comment_above(lines: list[str], first: int) -> str | None:
    """The `# v1bridge:` comment directly above line `first` (1-based), comments only in between."""
    i = first - 2
    while i >= 0 and lines[i].strip().startswith("#"):
        if COMMENT.match(lines[i].strip()):
            return lines[i].strip()
        i -= 1
    return None


def v1_spelled(text: str, route: str) -> bool:
    """A v1 host, a literal path segment the v1 route has and its v2 route lacks, or a v1-only field name."""
    if V1_HOST.search(text):
        return True
    ix = index()
    method, path = route.split(" ", 1)
    matches = ix.match(path.split("?")[0], method)
    if matches:
        literal = {s for s in matches[0].v1_segments if not s.startswith("{")}
        # a route v2 does not have (reset): every literal segment after the resource is v1's
        gone = literal - set(matches[0].v2_segments or matches[0].v1_segments[:1])
        # a path segment (`/stop`, `"templates/"`, `"endpoints"`), not the v2 action value `{"action": "stop"}`
        if any(re.search(rf"/{re.escape(s)}(?![\w-])|(?<!\"action\": )[\"']{re.escape(s)}(?=[\"'/])", text)
               for s in gone):
            return True
    else:  # no v1 route (a call that never worked on v1): spelled unless v2 has the path
        segs = tuple("{}" if s.startswith("{") else s for s in path.split("?")[0].strip("/").split("/"))
        literal = [s for s in segs if s != "{}"]
        if not ix.is_v2_relative(segs) and any(
                re.search(rf"/{re.escape(s)}(?![\w-])|[\"']{re.escape(s)}(?=[\"'/])", text) for s in literal[1:]):
            return True
    return any(re.search(rf"[\"']{re.escape(name)}[\"']", text) for name in ix.v1_only_names)


def bases_named(corpus: Path, constants: list[tuple[str, int]], text: str) -> list[tuple[str, int]]:
    """The base constants of the module the statement TEXT names (`BASE + "/pods"`: BASE's line); all of them
    when it names none (a helper or a client holds the base)."""
    named = []
    for file, line in constants:
        target = (corpus / file).read_text().splitlines()[line - 1].split("=", 1)[0].strip()
        if target.isidentifier() and re.search(rf"\b{re.escape(target)}\b", text):
            named.append((file, line))
    return named or constants


def base_still_v1(corpus: Path, copy: Path, constants: list[tuple[str, int]]) -> bool:
    """A base constant of the module still holds a v1 address after the rewrite (a comment on the constant is
    not one on the calls through it)."""
    for file, line in constants:
        after = (copy / file).read_text().splitlines()
        at = line_map((corpus / file).read_text().splitlines(), after)[line - 1]
        if V1_HOST.search(after[at]):
            return True
    return False


def listed_lines(summary: str, copy: Path) -> set[tuple[str, int]]:
    """(file, line) of every manual item the rewrite's summary lists (`  <path>:<line>: <RULE> ...`)."""
    out = set()
    for match in re.finditer(r"^\s+(\S+?):(\d+):(?:\d+:)? [A-Z]\d+\b", summary, re.M):
        path = Path(match[1])
        if path.is_absolute() and path.is_relative_to(copy):
            out.add((str(path.relative_to(copy)), int(match[2])))
    return out


def translating_functions(module: Path) -> set[str]:
    """Names of the module's functions (a file, or a package's or project's files) whose request is translated at
    run time: a helper's own request handed to `call_v1` (`_translating`), or a call of such a function by name or
    on `self` (`get` -> `request` -> call_v1). A call wrapped in call_v1 where it is made is not one."""
    files = sorted(module.rglob("*.py")) if module.is_dir() else [module]
    calls: dict[str, set[str]] = {}  # function name -> the functions it calls (by name, or on self/cls)
    out: set[str] = set()
    for f in files:
        if f.name == "v1bridge_compat.py":
            continue
        for fn in ast.walk(ast.parse(f.read_text())):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for call in ast.walk(fn):
                if not isinstance(call, ast.Call):
                    continue
                if _translating(call):
                    out.add(fn.name)
                elif isinstance(call.func, ast.Name):
                    calls.setdefault(fn.name, set()).add(call.func.id)
                elif isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
                        and call.func.value.id in ("self", "cls"):
                    calls.setdefault(fn.name, set()).add(call.func.attr)
    while grown := {name for name, called in calls.items() if name not in out and called & out}:
        out |= grown
    return out


def _translating(call: ast.Call) -> bool:
    """`call_v1(send, method, url, ...)` translating a helper's request: its URL is the helper's own (`_url(path)`,
    `BASE_URL + path`), with no path written in it (a call wrapped where it is made names its route: `"/pods"`)."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if name not in ("call_v1", "acall_v1") or len(call.args) < 3:
        return False
    return not any(isinstance(node, ast.Constant) and isinstance(node.value, str) and "://" not in node.value
                   and re.search(r"[A-Za-z]", node.value) for node in ast.walk(call.args[2]))


def called_names(node: ast.AST) -> set[str]:
    """The names the calls under NODE call (`f(...)`: f; `x.f(...)`: f)."""
    return {call.func.id if isinstance(call.func, ast.Name) else call.func.attr for call in ast.walk(node)
            if isinstance(call, ast.Call) and isinstance(call.func, (ast.Name, ast.Attribute))}


def classify(corpus: Path, copy: Path, listed: set[tuple[str, int]] = frozenset()) -> list[Site]:
    sites = []
    bases = base_lines(corpus)
    texts: dict[str, tuple] = {}
    translators: dict[str, set[str]] = {}

    def translating(module: str) -> set[str]:
        top = module.split("/")[0]
        if top not in translators:
            translators[top] = translating_functions(copy / top)
        return translators[top]

    for module, file, line, route in manifest_sites(corpus):
        if file not in texts:
            before_text, after_text = (corpus / file).read_text(), (copy / file).read_text()
            before, after = before_text.splitlines(), after_text.splitlines()
            texts[file] = (before, ast.parse(before_text), after, ast.parse(after_text), line_map(before, after))
        before, b_tree, after, a_tree, mapping = texts[file]
        first, last = statement_at(a_tree, after, mapping[line - 1] + 1)
        text = "\n".join(after[first - 1:last])
        b_first, b_last = statement_at(b_tree, before, line)
        unchanged = "\n".join(before[b_first - 1:b_last]) == text
        comment = comment_above(after, first)
        spelled = v1_spelled(text, route)
        cause = runtime_helper = False
        if comment is not None:
            state = "3"
            cause = bool(re.match(r"\S.*?: \S", COMMENT.match(comment)[2]))
        elif "v1bridge_compat." in text:
            state = "2"
        elif (unchanged and bases.get(module) and not base_still_v1(corpus, copy, bases[module])
              and statement_calls(a_tree, first) & translating(module)):
            # the line is as it was, but its base moved and the helper it calls translates each call at run time
            # (call_v1 inside the helper): on v2, through state 2, with whatever v1 spelling the line keeps
            state = "2"
            runtime_helper = True
        elif spelled or (not V1_HOST.search(text)
                         and base_still_v1(corpus, copy, bases_named(corpus, bases.get(module, []), text))):
            state = "silent" if unchanged else "v1-left"
        elif unchanged and not bases.get(module):
            state = "silent"  # no base of its own moved and the line did not change: nothing took it to v2
        else:
            state = "1"
        runtime = runtime_helper or (state == "2" and re.search(r"\ba?call_v1\(", text) is not None)
        body_runtime = state == "2" and re.search(r"\ba?with_v1_body\(", text) is not None
        # the summary may number lines as they were before the run (main does) or as they are after it
        on_list = any((file, n) in listed for n in [*range(first, last + 1), *range(b_first, b_last + 1)])
        sites.append(Site(corpus.name, file, line, route, state, cause, spelled, runtime, body_runtime, on_list,
                          after[first - 1].strip()))
    return sites


def run(jobs: int, rewrite: bool = True) -> list[Site]:
    with tempfile.TemporaryDirectory(prefix="rewrite-states-") as tmp:
        sites = []
        for corpus in CORPORA:
            if not corpus.exists():
                continue
            copy = Path(tmp) / corpus.name
            shutil.copytree(corpus, copy, ignore=shutil.ignore_patterns("MANIFEST.yaml", "__pycache__"))
            if not rewrite:  # the judge's own check: the originals, left as they are, are all silent
                sites += classify(corpus, copy)
                continue
            done = subprocess.run([sys.executable, "-m", "v1bridge", "rewrite", "--no-progress",
                                   "--jobs", str(jobs), str(copy)], capture_output=True, text=True, cwd=ROOT)
            if done.returncode not in (0, 1):
                raise SystemExit(f"v1bridge rewrite failed ({done.returncode}):\n{done.stderr}")
            sites += classify(corpus, copy, listed_lines(done.stdout + done.stderr, copy))
        return sites


def section(full: bool) -> list[str]:
    """bench/run_all.py's section: the counts per corpus, against the baseline of the same run (the originals,
    judged without a rewrite: every site silent)."""
    sites, baseline = run(jobs=2), run(jobs=2, rewrite=False)
    lines = ["Command: `.venv/bin/python bench/rewrite_states.py --files` (per call site). Baseline: the same judge on",
             "the originals with no rewrite.", "",
             "| corpus | v1 call sites | 1 | 2 (of it call_v1) | 3 (no cause) | silent | half | 1+2 without a v1 spelling"
             " | baseline |", "|---|---|---|---|---|---|---|---|---|"]
    for part in ("corpus", "projects", None):
        judged = [s for s in sites if part is None or s.corpus == part]
        base = [s for s in baseline if part is None or s.corpus == part]
        count = Counter(s.state for s in judged)
        share = sum(1 for s in judged if s.state in ("1", "2") and not s.v1_spelling) / max(len(judged), 1)
        base_share = sum(1 for s in base if s.state in ("1", "2") and not s.v1_spelling) / max(len(base), 1)
        lines.append(f"| {part or 'all'} | {len(judged)} | {count['1']} | {count['2']} "
                     f"({sum(1 for s in judged if s.runtime)}) | {count['3']} "
                     f"({sum(1 for s in judged if s.state == '3' and not s.cause)}) | {count['silent']} | "
                     f"{count['v1-left']} | {share:.1%} (goal 90%) | {base_share:.1%} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="every call site as JSON")
    parser.add_argument("--files", action="store_true", help="one line per call site")
    parser.add_argument("--no-rewrite", action="store_true", help="classify the originals (every site silent)")
    args = parser.parse_args(argv)
    sites = run(args.jobs, rewrite=not args.no_rewrite)
    if args.json:
        print(json.dumps([asdict(s) for s in sites], indent=1))
        return 0
    per_file: dict[str, Counter] = {}
    for s in sites:
        per_file.setdefault(f"{s.corpus}/{s.file}", Counter())[s.state] += 1
    print(f"{'file':58} " + " ".join(f"{k:>7}" for k in STATES))
    for file, counts in sorted(per_file.items()):
        print(f"{file:58} " + " ".join(f"{counts[k]:>7}" for k in STATES))
    total = Counter(s.state for s in sites)
    print(f"{'total (' + str(len(sites)) + ' v1 call sites, ' + str(len(per_file)) + ' files)':58} "
          + " ".join(f"{total[k]:>7}" for k in STATES))
    if args.files:
        for s in sites:
            mark = "*" if s.v1_spelling else " "
            print(f"  {s.state:>7}{mark} {s.corpus}/{s.file}:{s.line} {s.route}: {s.after}")
    migrated = sum(1 for s in sites if s.state in ("1", "2") and not s.v1_spelling)
    no_cause = sum(1 for s in sites if s.state == "3" and not s.cause)
    runtime = sum(1 for s in sites if s.runtime)
    body_runtime = sum(1 for s in sites if s.body_runtime)
    unlisted = sum(1 for s in sites if s.state == "3" and not s.listed)
    print(f"states 1+2 with no v1 spelling left: {migrated}/{len(sites)} = {migrated / max(len(sites), 1):.1%}")
    print(f"of state 2, whole calls translated at run time (call_v1): {runtime}; bodies converted at run time "
          f"(with_v1_body): {body_runtime}; "
          f"state 3 without a cause: {no_cause}; state 3 not in the run's list: {unlisted}; silent: {total['silent']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
