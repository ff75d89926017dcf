"""Benchmark `v1bridge rewrite`: files per second on a generated tree, --jobs 1 vs --jobs 2.

    .venv/bin/python bench/rewrite_bench.py [--files 10000] [--api-share 0.05]

The tree: `--files` Python modules, of which `--api-share` call the v1 API
(copies of the realistic client fixtures of tests/codemod/fixtures, in turn);
the others are ordinary code that mentions no API path or host, so the
prefilter built from mappings/ lets them through unparsed. Each run is the
real console script in --check mode (reads every file, writes nothing),
timed end to end including start-up. Prints files/s per job count, the CPU
seconds of each run (all processes), the ratio measured in the same run and
the goal of issue 21 (>= 1,500 files/s at --jobs 2).
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "codemod" / "fixtures"

PLAIN = '''"""Module {i}: ordinary application code, no API calls."""
from __future__ import annotations

import dataclasses
import json
import logging

log = logging.getLogger(__name__)


@dataclasses.dataclass
class Record{i}:
    name: str
    size: int = 0
    tags: tuple[str, ...] = ()

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self))


def parse_{i}(lines: list[str]) -> list[Record{i}]:
    out = []
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        name, _, size = line.partition(",")
        try:
            out.append(Record{i}(name.strip(), int(size or 0)))
        except ValueError:
            log.warning("bad line %r", line)
    return out


def total_{i}(records: list[Record{i}]) -> int:
    return sum(r.size for r in records if r.size > {k})
'''


def build_tree(root: Path, files: int, api_share: float, seed: int = 7) -> int:
    rnd = random.Random(seed)
    clients = [p.read_text() for p in sorted(FIXTURES.glob("*.before.py"))]
    n_api = int(round(files * api_share))
    api_slots = set(rnd.sample(range(files), n_api))
    for i in range(files):
        folder = root / f"pkg{i // 200:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        text = clients[i % len(clients)] if i in api_slots else PLAIN.format(i=i, k=rnd.randint(0, 99))
        (folder / f"mod{i:05d}.py").write_text(text)
    return n_api


GOAL = 1_500  # files/s at --jobs 2 on the 10,000-file tree (issue 21)


def children_cpu() -> float:
    """CPU seconds of the finished child processes so far (the console script and its workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(tree: Path, jobs: int) -> tuple[float, int]:
    exe = [sys.executable, "-m", "v1bridge.cli", "rewrite", "--check", "--quiet", "--jobs", str(jobs), str(tree)]
    start = time.perf_counter()
    proc = subprocess.run(exe, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    return elapsed, proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--api-share", type=float, default=0.05)
    parser.add_argument("--repeat", type=int, default=3, help="runs per job count; the best is reported")
    parser.add_argument("--keep", action="store_true", help="keep the generated tree")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="v1bridge-bench-"))
    try:
        n_api = build_tree(tmp, args.files, args.api_share)
        print(f"tree: {args.files} files, {n_api} call the v1 API ({args.api_share:.0%}); cpus: {os.cpu_count()}")
        results = {}
        print(f"load average before the run: {os.getloadavg()[0]:.2f}")
        for jobs in (1, 2):
            times = []
            for _ in range(args.repeat):
                cpu = children_cpu()
                elapsed, code = run_once(tmp, jobs)
                if code != 1:
                    print(f"unexpected exit code {code} with --jobs {jobs}", file=sys.stderr)
                    return 2
                times.append((elapsed, children_cpu() - cpu))
            best, cpu = min(times)
            results[jobs] = best
            print(f"--jobs {jobs}: best of {args.repeat}: {best:.2f} s  ->  {args.files / best:,.0f} files/s "
                  f"({cpu:.2f} s CPU, all processes)")
        print(f"speed-up --jobs 2 vs --jobs 1: x{results[1] / results[2]:.2f}")
        print(f"goal (issue 21) >= {GOAL:,} files/s at --jobs 2: {'met' if args.files / results[2] >= GOAL else 'NOT met'}"
              f"; load average after: {os.getloadavg()[0]:.2f}")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
