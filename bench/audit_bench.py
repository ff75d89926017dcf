"""Benchmark `v1bridge audit`: files per second on a generated tree of N files, P% of which call the API.

    .venv/bin/python bench/audit_bench.py [--files 10000] [--api-share 0.05] [--jobs 2] [--keep DIR]

Prints files/s for --jobs 1 and --jobs N measured in the same run, their ratio, and
the CPU seconds of each (all processes: the figure a loaded machine disturbs least). Goal (issue 25): >= 10,000
files/s at --jobs 2.
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codemod.audit.engine import audit_paths  # noqa: E402

PLAIN_PY = '''"""Module {i}: ordinary application code."""
import json


def handler_{i}(event):
    items = [x * 2 for x in event.get("values", [])]
    return json.dumps({{"count": len(items), "name": "job-{i}"}})
'''
PLAIN_JS = '''export function render{i}(rows) {{
  return rows.map((r) => `<li>${{r.title}}</li>`).join("");
}}
'''
API_PY = '''import requests

BASE = "https://rest.runpod.io/v1"


def create_{i}():
    body = {{"name": "p{i}", "imageName": "img:{i}", "gpuTypeIds": ["NVIDIA A40"]}}
    return requests.post(f"{{BASE}}/pods", json=body).json()


def stop_{i}(pod_id):
    return requests.post(f"{{BASE}}/pods/{{pod_id}}/stop")


def volumes_{i}():
    return [v["id"] for v in requests.get(BASE + "/networkvolumes").json()]
'''
API_V2_PY = '''import requests

BASE = "https://api.runpod.io/v2"


def pods_{i}():
    return requests.get(f"{{BASE}}/pods").json()["pods"]
'''
API_JS = '''const BASE = "https://rest.runpod.io/v1";
export const stop{i} = (id) => fetch(`${{BASE}}/pods/${{id}}/stop`, {{ method: "POST" }});
export const state{i} = (pod) => pod.desiredStatus;
'''

# Multi-file clients, for the project-wide pass (codemod/audit/project.py): the base and a wrapper in one file,
# calls with paths v2 also has in others; a shell helper file with no host or path of its own.
PROJECT = {
    "sh": {
        "lib/http.sh": 'RP_REST_BASE=${{RP_REST_BASE:-https://rest.runpod.io/v1}}\n'
                       'rp::http() {{\n  local method=$1 path=$2\n'
                       '  curl -sS -X "$method" "${{RP_REST_BASE}}${{path}}"\n}}\n',
        "lib/util.sh": '_list{i}() {{\n  rp::http GET "$1"\n}}\n',
        "commands/c{i}.sh": 'cmd_{i}() {{\n  rp::http GET /templates\n  _list{i} /pods\n'
                            '  rp::http DELETE "/templates/$1"\n}}\n',
    },
    "go": {
        "client.go": 'package rp{i}\n\nconst DefaultBaseURL = "https://rest.runpod.io/v1"\n\n'
                     'type Client struct{{ baseURL string }}\n\n'
                     'func New() *Client {{ return &Client{{baseURL: DefaultBaseURL}} }}\n\n'
                     'func (c *Client) do(method, path string) error {{\n'
                     '\t_, err := http.NewRequest(method, c.baseURL+path, nil)\n\treturn err\n}}\n\n'
                     'func (c *Client) Get(path string) error {{ return c.do(http.MethodGet, path) }}\n',
        "pods.go": 'package rp{i}\n\nfunc (c *Client) Pods() error {{ return c.Get("/pods") }}\n',
    },
    "ts": {
        "client.ts": 'const BASE = process.env.RP_URL ?? "https://rest.runpod.io/v1";\n'
                     'export class Api {{\n  async request(method: string, path: string) {{\n'
                     '    return fetch(`${{BASE}}${{path}}`, {{ method }});\n  }}\n'
                     '  get(path: string) {{ return this.request("GET", path); }}\n}}\n',
        "tool.ts": 'import {{ Api }} from "./client.js";\n'
                   'export const t{i} = (api: Api) => api.get("/templates");\n',
    },
}


def generate(root: Path, files: int, api_share: float, seed: int = 7) -> int:
    """FILES files under ROOT, about API_SHARE of them calling the API (one in four of those as part of a
    multi-file client); returns how many were written to call it."""
    rng = random.Random(seed)
    api = 0
    i = 0
    while i < files:
        folder = root / f"pkg{i % 50}" / f"sub{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        is_api = rng.random() < api_share
        js = rng.random() < 0.3
        if is_api and rng.random() < 0.25:
            kind = rng.choice(sorted(PROJECT))
            project = folder / f"{kind}{i}"
            for name, text in PROJECT[kind].items():
                if i >= files:
                    break
                (project / name.format(i=i)).parent.mkdir(parents=True, exist_ok=True)
                (project / name.format(i=i)).write_text(text.format(i=i))
                api += "/util." not in name  # the helper file holds no host nor path of its own
                i += 1
            continue
        if is_api:
            api += 1
            template = rng.choice([API_JS] if js else [API_PY, API_PY, API_V2_PY])
        else:
            template = PLAIN_JS if js else PLAIN_PY
        (folder / f"m{i}.{'js' if js else 'py'}").write_text(template.format(i=i))
        i += 1
    return api


GOAL = 10_000  # files/s at --jobs 2 on the 10,000-file tree, cross-file resolution on (issue 25)


def cpu_seconds() -> float:
    """CPU seconds of this process and of its finished children (the workers of --jobs N)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(root: Path, jobs: int) -> tuple[float, int, int]:
    start = time.perf_counter()
    report = audit_paths([str(root)], jobs=jobs)
    elapsed = time.perf_counter() - start
    return elapsed, report.scanned, len(report.api_files)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--api-share", type=float, default=0.05)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", help="generate into this folder and keep it")
    parser.add_argument("--repeat", type=int, default=3, help="runs per setting; the best is reported")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep or tmp) / "tree"
        root.mkdir(parents=True, exist_ok=True)
        api = generate(root, args.files, args.api_share)
        measure(root, 1)  # warm the page cache and the catalogue
        # best of --repeat runs each, interleaved, so a burst of load elsewhere hits both alike
        t1s, tns = [], []
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        for _ in range(args.repeat):
            cpu = cpu_seconds()
            t1, scanned, api_files = measure(root, 1)
            t1s.append((t1, cpu_seconds() - cpu))
            cpu = cpu_seconds()
            tn, _, _ = measure(root, args.jobs)
            tns.append((tn, cpu_seconds() - cpu))
        (t1, cpu1), (tn, cpun) = min(t1s), min(tns)
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        print(f"tree: {scanned} files, {api} written to call the API, {api_files} reported as talking to it")
        print(f"cpus available: {cpus}; load average before the run: {load:.2f}")
        print(f"--jobs 1: {t1:.2f} s, {scanned / t1:,.0f} files/s ({cpu1:.2f} s CPU)")
        print(f"--jobs {args.jobs}: {tn:.2f} s, {scanned / tn:,.0f} files/s ({cpun:.2f} s CPU, all processes)")
        print(f"ratio jobs {args.jobs} / jobs 1: {t1 / tn:.2f}x")
        print(f"goal (issue 25) >= {GOAL:,} files/s at --jobs {args.jobs}: {'met' if scanned / tn >= GOAL else 'NOT met'}"
              f"; load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
