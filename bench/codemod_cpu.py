"""CPU seconds of `audit` and `rewrite --check` (--jobs 1) on the 10,000-file bench trees, this tree against another.

    .venv/bin/python bench/codemod_cpu.py [--baseline DIR] [--rounds 5] [--files 10000] [--api-share 0.05]

Wall-clock files/s on a shared machine move 2-4x with the load; the CPU time a run takes
(user + system of a fresh process) hardly does. Each round runs, in this tree and in
the baseline tree when given (a worktree of another commit, run with this interpreter:
its own code is imported from its folder), one audit (in-process `audit_paths`, after a
warm-up run) and one rewrite (`python -m v1bridge.cli rewrite --check --quiet --jobs 1`,
start-up included), alternated. Prints the medians and every run.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.audit_bench import generate  # noqa: E402
from bench.rewrite_bench import build_tree  # noqa: E402

AUDIT = ("import sys, time; sys.path.insert(0, '.'); from codemod.audit.engine import audit_paths; "
         "audit_paths([sys.argv[1]], jobs=1); t = time.process_time(); audit_paths([sys.argv[1]], jobs=1); "
         "print(time.process_time() - t)")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="another checkout of the repository to compare with")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--api-share", type=float, default=0.05)
    args = parser.parse_args()
    trees = {"this": ROOT} | ({"baseline": Path(args.baseline).resolve()} if args.baseline else {})
    runs: dict[tuple[str, str], list[float]] = {(k, t): [] for k in ("audit", "rewrite") for t in trees}
    with tempfile.TemporaryDirectory() as tmp:
        audit_tree, rewrite_tree = Path(tmp) / "audit", Path(tmp) / "rewrite"
        audit_tree.mkdir()
        rewrite_tree.mkdir()
        generate(audit_tree, args.files, args.api_share)
        build_tree(rewrite_tree, args.files, args.api_share)
        for n in range(args.rounds):
            for name, tree in trees.items():
                out = subprocess.run([sys.executable, "-c", AUDIT, str(audit_tree)], cwd=tree, capture_output=True,
                                     text=True, check=True).stdout
                runs[("audit", name)].append(float(out.split()[-1]))
            for name, tree in trees.items():
                before = _children_cpu()
                code = subprocess.run([sys.executable, "-m", "v1bridge.cli", "rewrite", "--check", "--quiet",
                                       "--jobs", "1", str(rewrite_tree)], cwd=tree, capture_output=True).returncode
                if code != 1:
                    print(f"unexpected exit code {code} of the rewrite in {tree}", file=sys.stderr)
                    return 2
                runs[("rewrite", name)].append(_children_cpu() - before)
            print(f"round {n + 1}: load average {os.getloadavg()[0]:.2f}", flush=True)
    for (kind, name), values in runs.items():
        median = statistics.median(values)
        print(f"{kind:7} {name:8} median {median:6.2f} CPU-s -> {args.files / median:7,.0f} files per CPU-second "
              f"(runs: {', '.join(f'{v:.2f}' for v in values)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
