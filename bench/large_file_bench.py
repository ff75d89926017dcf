"""Benchmark one large Python file through `v1bridge rewrite --check` and `v1bridge audit` (issue 23 item 10).

    .venv/bin/python bench/large_file_bench.py [--sizes 0.25,0.5,1] [--timeout 300] [--jobs 2]

The file: pairs of small client functions on one module-level v1 base (a GET of a pod with a read of
`desiredStatus`, a stop), about 2 v1 calls per 270 bytes: 1 MB holds about 7,400 v1 calls, as the file of the
issue did. Each size is one run of the real console script with `--jobs N` (default 2: the pieces of the file
are analysed in two workers), timed end to end (start-up included), with the CPU time of that process and its
workers and the peak resident size of the largest of them (os.wait4). The ratio that matters is measured in the same run:
seconds per MB of each size against the smallest (1.0 = linear; a quadratic cost doubles it with each doubling).
A run past --timeout is killed and reported as such. Goal (issue 23): 5 MB in under 30 s and under 1 GB.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAD = 'import requests\n\nBASE = "https://rest.runpod.io/v1"\nHEADERS = {"Authorization": "Bearer x"}\n\n'


def client_module(functions: int) -> str:
    """FUNCTIONS pairs of small client functions on one module-level base: one family of call sites
    (also tests/codemod/test_large_files.py's input)."""
    return HEAD + "".join(
        f'def pod_status_{i}(pod_id):\n'
        f'    r = requests.get(f"{{BASE}}/pods/{{pod_id}}", headers=HEADERS)\n'
        f'    r.raise_for_status()\n'
        f'    return r.json()["desiredStatus"]\n\n\n'
        f'def stop_pod_{i}(pod_id):\n'
        f'    requests.post(f"{{BASE}}/pods/{{pod_id}}/stop", headers=HEADERS).raise_for_status()\n\n\n'
        for i in range(functions))


PAIR_BYTES = len(client_module(1)) - len(HEAD)
QUICK_SIZES = (0.125, 0.5)  # about 40 s on a quiet machine: run_all --quick sections stay under a minute
FULL_SIZES = (0.25, 1.0, 5.0)
# the audit's size limit is off: a file over it would be listed as not read, not measured
COMMANDS = {"rewrite": ["rewrite", "--check", "--no-progress"], "audit": ["audit", "--max-target-bytes", "0"]}


def make_file(folder: Path, mb: float) -> tuple[Path, int]:
    """A client module of about MB megabytes; its size and number of v1 calls."""
    pairs = max(1, int(mb * 1_000_000) // PAIR_BYTES)
    path = folder / f"client_{mb:g}mb.py"
    path.write_text(client_module(pairs))
    return path, pairs * 2


GOAL_SECONDS, GOAL_MB = 30.0, 1024.0  # a 5 MB file (issue 23 item 10)
JOBS = 2


def run_once(command: str, path: Path, timeout: float, jobs: int = JOBS) -> dict:
    """Wall and CPU seconds and peak RSS (MB) of one run of the console script; killed past TIMEOUT."""
    exe = str(Path(sys.executable).with_name("v1bridge"))
    started = time.perf_counter()
    proc = subprocess.Popen([exe, *COMMANDS[command], "--jobs", str(jobs), str(path)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    killed = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - started > timeout:
            os.kill(proc.pid, signal.SIGKILL)
            killed = True
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.05)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"wall_s": time.perf_counter() - started, "cpu_s": usage.ru_utime + usage.ru_stime,
            "rss_mb": usage.ru_maxrss / 1024, "killed": killed, "exit": proc.returncode}


def measure(sizes: tuple[float, ...], timeout: float, jobs: int = JOBS) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="large-file-") as tmp:
        for mb in sizes:
            path, calls = make_file(Path(tmp), mb)
            for command in COMMANDS:
                row = {"command": command, "mb": path.stat().st_size / 1_000_000, "calls": calls,
                       **run_once(command, path, timeout, jobs)}
                rows.append(row)
                print(f"{command:8} {row['mb']:.2f} MB {calls:6,} calls: {row['wall_s']:.1f} s wall, "
                      f"{row['cpu_s']:.1f} s CPU, {row['rss_mb']:.0f} MB RSS"
                      + (" (killed at the timeout)" if row["killed"] else ""), file=sys.stderr)
    return rows


def render(rows: list[dict], timeout: float, jobs: int = JOBS) -> list[str]:
    lines = ["One generated Python file per size (pairs of client functions on one module-level v1 base, ~2 v1 "
             f"calls per 270 bytes), through the real console script: `rewrite --check --jobs {jobs}` and "
             f"`audit --max-target-bytes 0 --jobs {jobs}` (its size limit off, so the file is read; a large file's "
             "pieces go to the workers). CPU seconds are the process's and its workers', peak RSS the largest "
             "process's (os.wait4); *CPU s/MB vs smallest* is the seconds per MB of "
             "that size over the smallest size's, in this run: 1.0 is linear, a quadratic cost doubles with each "
             "doubling of the size. Target (issue 23): 5 MB in under 30 s and under 1 GB.", "",
             "| command | size | v1 calls | wall s | CPU s | peak RSS MB | CPU s/MB vs smallest |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for command in COMMANDS:
        mine = [r for r in rows if r["command"] == command]
        base = mine[0]["cpu_s"] / mine[0]["mb"] if mine and not mine[0]["killed"] else None
        for r in mine:
            ratio = "" if base is None or r["killed"] else f"{(r['cpu_s'] / r['mb']) / base:.2f}"
            wall = f"killed at {timeout:.0f}" if r["killed"] else f"{r['wall_s']:.1f}"
            lines.append(f"| {command} | {r['mb']:.2f} MB | {r['calls']:,} | {wall} | {r['cpu_s']:.1f} | "
                         f"{r['rss_mb']:.0f} | {ratio} |")
    five = [r for r in rows if r["mb"] >= 5.0]
    if five:
        lines.append("")
        lines.extend(f"Goal (issue 23), {r['command']} of {r['mb']:.2f} MB under {GOAL_SECONDS:.0f} s and "
                     f"{GOAL_MB:,.0f} MB: time **{'met' if not r['killed'] and r['wall_s'] < GOAL_SECONDS else 'not met'}**"
                     f", memory **{'met' if r['rss_mb'] < GOAL_MB else 'not met'}**." for r in five)
    return lines


def section(full: bool, sizes: tuple[float, ...] | None = None) -> list[str]:
    """bench/run_all.py's section: quick sizes up to 0.5 MB, full ones up to 5 MB, or the sizes asked for."""
    sizes = sizes or (FULL_SIZES if full else QUICK_SIZES)
    timeout = 600.0 if full or max(sizes) > max(QUICK_SIZES) else 180.0
    load = os.getloadavg()[0]
    rows = measure(sizes, timeout)
    return [*render(rows, timeout), "", f"Load average (1 min) at the start: {load:.2f}, at the end: "
            f"{os.getloadavg()[0]:.2f}; command: "
            f"`.venv/bin/python bench/large_file_bench.py --sizes {','.join(f'{s:g}' for s in sizes)}`."]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(f"{s:g}" for s in QUICK_SIZES), help="sizes in MB, comma-separated")
    parser.add_argument("--timeout", type=float, default=300.0, help="kill a run after this many seconds")
    parser.add_argument("--jobs", type=int, default=JOBS, help="the commands' --jobs")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    rows = measure(tuple(float(s) for s in args.sizes.split(",")), args.timeout, args.jobs)
    print("\n".join(render(rows, args.timeout, args.jobs)))
    print(f"\nLoad average (1 min) at the start: {load:.2f}, at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
