"""Issue 21's proof on multi-module client projects (tests/codemod/projects/): execution is the judge.

Each project runs twice with the same commands, on two fresh sandboxes capped to PAGE-item pages and seeded
with more than a page of everything:
- BEFORE: the original code; its v1 calls reach the proxy (v1 over sandbox A);
- AFTER: the code `v1bridge rewrite` left; its v2 calls reach sandbox B straight. A call still addressed to
  v1 goes to a proxy over sandbox B and is recorded: after a full migration there is none.
What the commands print (ids and addresses normalised), the operations each sandbox accepted and the sandboxes'
end state must be the same. The projects are driven only through their own entry points (`main(argv)` of
their scripts), so every v1 field they read is read by the project's code, not by the test.

The static half of the proof (idempotence, `--jobs 1` = `--jobs 2`, code that is already v2 or not this service's
left byte for byte) is checked on the same projects.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
import yaml
from aiohttp import web

from proxy.app import create_proxy_app
from proxy.config import ProxyConfig
from sandbox.common import VIOLATIONS
from tests.codemod.project_harness import (JOBS, PROJECTS, V1, V2, HostMap, Loaded, copy_project, ids_in,
                                           normalized, rewrite, tree)
from tests.codemod.tools import Recording, client_ops, job_api_stub, paged, seed, state

MANIFEST: dict = yaml.safe_load((PROJECTS / "MANIFEST.yaml").read_text())["projects"]
# the exact code `v1bridge rewrite` leaves, for the projects whose every call reaches state 1 or 2 (the generated
# v1bridge_compat.py is the compat generator's, tested in tests/codemod/compat/)
EXPECTED = PROJECTS.parent / "projects_expected"


# ------------------------------------------------------------------ scenarios: what each project's user runs

async def podctl(project: Loaded, ids: dict) -> list[str]:
    out: list[str] = []
    out += await project.main("podctl.cli", ["up", "trainer"])  # the first GPU type of the list is out of stock
    pod = out[-1].split()[0]
    out += await project.main("wait_for_pod", [pod, "0.01"])
    out += await project.main("podctl.cli", ["ls"])
    out += await project.main("podctl.cli", ["ls", "--status", "RUNNING"])
    out += await project.main("podctl.cli", ["reset", pod])
    out += await project.main("podctl.cli", ["stop", pod])
    out += await project.main("podctl.cli", ["ls", "--status", "EXITED"])
    out += await project.main("podctl.cli", ["deploy", "whisper", "ghcr.io/acme/whisper:3"])
    out += await project.main("podctl.cli", ["scale", "whisper", "4"])
    out += await project.main("billing_report", ["--days", "2"])
    out += await project.main("podctl.cli", ["rm", pod])
    return out


async def fleet(project: Loaded, ids: dict) -> list[str]:
    out: list[str] = []
    out += await project.main("fleet.cli", ["up", "etl"])  # B200 out of stock: the next GPU type, on the volume
    out += await project.main("fleet.cli", ["report", "etl"])
    out += await project.main("fleet.cli", ["grow", "etl-data", "40"])
    out += await project.main("fleet.cli", ["restart", "etl"])
    out += await project.main("fleet.cli", ["workers", ids["endpoint"], "5"])
    out += await project.main("fleet.cli", ["report", "etl"])
    out += await project.main("fleet.cli", ["down", "etl"])
    out += await project.main("fleet.cli", ["report", "etl"])
    return out


async def nightly(project: Loaded, ids: dict) -> list[str]:
    out: list[str] = []
    out += await project.main("seed_ci", ["3"])
    out += await project.main("cleanup", ["--dry-run"])
    out += await project.main("cleanup", [])
    out += await project.main("cleanup", [])
    out += await project.main("registry", [])
    out += await project.main("registry", [])
    out += await project.main("spend", [])
    return out


async def gpuctl(project: Loaded, ids: dict) -> list[str]:
    return await project.main("gpuctl.main", ["whisper", "ghcr.io/acme/whisper:3"])


async def labkit(project: Loaded, ids: dict) -> list[str]:
    out: list[str] = []
    # H100 NVL out of stock: the next GPU type of the list, on the shared volume, image from the lab registry
    out += await project.main("labkit.cli", ["up", "exp1", "--volume", "datasets", "--private"])
    out += await project.main("ssh_into", ["exp1", "0.01"])
    out += await project.main("labkit.cli", ["ls", "--status", "RUNNING"])
    out += await project.main("labkit.cli", ["reset", "exp1"])
    out += await project.main("ssh_into", ["exp1", "0.01"])
    out += await project.main("labkit.cli", ["retag", "exp1", "ghcr.io/acme-lab/train:cu124"])
    out += await project.main("labkit.cli", ["stop", "exp1"])
    out += await project.main("labkit.cli", ["ls", "--status", "EXITED", "--prefix", "exp"])
    out += await project.main("labkit.cli", ["start", "exp1"])
    out += await project.main("labkit.cli", ["ls"])
    out += await project.main("labkit.cli", ["volumes"])
    out += await project.main("labkit.cli", ["rm", "exp1"])
    out += await project.main("labkit.cli", ["down", "datasets"])
    out += await project.main("labkit.cli", ["volumes"])
    return out


async def modelhub(project: Loaded, ids: dict) -> list[str]:
    out: list[str] = []
    out += await project.main("deploy", ["up", "whisper", "ghcr.io/acme/whisper:3", "--max", "2"])
    out += await project.main("deploy", ["up", "whisper", "ghcr.io/acme/whisper:4"])  # the template's image bumped
    out += await project.main("deploy", ["up", "whisper", "ghcr.io/acme/whisper:4"])  # the template found as it is
    out += await project.main("deploy", ["ls"])
    out += await project.main("deploy", ["scale", "whisper", "--max", "5", "--idle", "30"])
    out += await project.main("deploy", ["smoke", "whisper"])  # job API, REST and an already-v2 call gathered
    out += await project.main("deploy", ["spend", "--days", "2"])
    out += await project.main("deploy", ["spend", "--model", "whisper"])
    out += await project.main("deploy", ["ls", "--workers"])
    out += await project.main("deploy", ["down", "whisper"])
    out += await project.main("deploy", ["down", "whisper"])
    return out


async def opsbox(project: Loaded, ids: dict) -> list[str]:
    out: list[str] = []
    out += await project.main("volumes", ["make", "scratch", "50", "US-KS-2"])
    # the client tries its GPU types one create at a time, reading the API's error text: H100 NVL has no capacity
    out += await project.main("provision", ["oncall-1", "--poll", "0.01"])
    out += await project.main("provision", ["oncall-1"])
    for verb in ("stop", "start", "reset", "restart"):
        out += await project.main("lifecycle", [verb, "oncall-1"])
    out += await project.main("volumes", ["grow", "scratch", "80"])
    out += await project.main("volumes", ["show", "scratch"])
    out += await project.main("volumes", ["ls"])
    out += await project.main("spend", ["--per-pod"])
    out += await project.main("spend", ["--days", "2", "--gpu", "NVIDIA H100 80GB HBM3"])
    out += await project.main("lifecycle", ["rm", "oncall-1", "--force"])
    out += await project.main("lifecycle", ["rm", "oncall-1"])
    out += await project.main("volumes", ["rm", "scratch"])
    out += await project.main("volumes", [])
    return out


async def rpdash(project: Loaded, ids: dict) -> list[str]:
    out: list[str] = []
    # H100 NVL out of stock: the pod gets the A40, the next type of the list
    out += await project.main("launch", ["devbox", "0.01"])
    out += await project.main("dash", [])
    out += await project.main("dash", ["RUNNING"])
    out += await project.main("teardown", ["devbox"])
    out += await project.main("teardown", ["devbox"])
    out += await project.main("dash", ["RUNNING"])
    return out


async def podsdk(project: Loaded, ids: dict) -> list[str]:
    out: list[str] = []
    out += await project.main("launch", ["etl", "NVIDIA A40"])
    pod = out[-1].split()[0]
    out += await project.main("cost", [pod])  # the client class's answer, read in another module
    out += await project.main("stop", [pod])
    out += await project.main("cost", [pod])
    return out


async def runctl(project: Loaded, ids: dict) -> list[str]:
    out: list[str] = []
    out += await project.main("cli", ["up", "trainer", "NVIDIA RTX A5000"])
    pod = out[-1].split()[0]
    out += await project.main("cli", ["status", pod])
    out += await project.main("cli", ["ls"])
    out += await project.main("cli", ["stop", pod])
    out += await project.main("cli", ["ls", "EXITED"])
    out += await project.main("cli", ["start", pod])
    out += await project.main("cli", ["status", pod])
    out += await project.main("cli", ["vol", "scratch", "20"])
    out += await project.main("cli", ["grow", out[-1].split()[0], "40"])
    out += await project.main("cli", ["vols"])
    out += await project.main("cli", ["rm", pod])
    out += await project.main("cli", ["ls", "RUNNING"])
    return out


SCENARIOS = {"podctl": podctl, "fleet": fleet, "nightly": nightly, "gpuctl": gpuctl, "labkit": labkit,
             "modelhub": modelhub, "opsbox": opsbox, "rpdash": rpdash, "podsdk": podsdk, "runctl": runctl}

# Routes each project still sends to v1 after today's rewrite (issue 21 wants none): a ratchet, so the set may only
# shrink; emptied as the rebuilt rewrite lands.
LEFT_ON_V1: dict[str, set[str]] = {}

# Projects whose rewritten code runs on v2 (nothing left on v1) while `audit --fail-on-legacy` still exits 1: a
# ratchet like LEFT_ON_V1 (the test fails once the audit agrees, so the entry goes).
AUDIT_STILL_FLAGS: dict[str, str] = {}

# Projects on which `rewrite --check` exits 0 although v1 calls remain (issue 21: it exits 1 while any v1 dependency
# is left): a ratchet, the test fails once --check sees them.
CHECK_BLIND: dict[str, str] = {
}

# ------------------------------------------------------------------ servers

class Stack:
    """A recording sandbox (PAGE-item pages, seeded) with a proxy in front of it."""

    def __init__(self) -> None:
        self.ids: set[str] = set()

    async def start(self, aiohttp_server, session, sandbox_config, usage: Path) -> None:
        self.sandbox = Recording(paged(sandbox_config))

        @web.middleware
        async def collect_ids(request, handler):
            response = await handler(request)
            body = getattr(response, "body", None)
            if isinstance(body, bytes) and body[:1] in (b"{", b"["):
                ids_in(orjson.loads(body), self.ids)
            return response

        self.sandbox.app.middlewares.insert(0, collect_ids)
        self.server = await aiohttp_server(self.sandbox.app)
        self.v2 = str(self.server.make_url("/v2"))
        self.proxy = await aiohttp_server(create_proxy_app(ProxyConfig(
            upstream=str(self.server.make_url("")).rstrip("/"), usage_dir=str(usage), fingerprint_salt="t",
            access_log=False, reset_wait_seconds=1.0)))
        self.v1 = str(self.proxy.make_url("/v1"))
        self.seeded = await seed(session, self.v2)


async def run(name: str, root: Path, stack: Stack, hostmap: HostMap, monkeypatch) -> list[str]:
    monkeypatch.setenv("RUNPOD_API_KEY", "key-alice")
    stack.sandbox.on = True
    try:
        with hostmap.installed(), Loaded(root).active() as project:
            return await SCENARIOS[name](project, stack.seeded)
    finally:
        stack.sandbox.on = False


@pytest.fixture
async def stacks(aiohttp_server, aiohttp_client, sandbox_config, tmp_path):
    session = (await aiohttp_client(web.Application())).session
    jobs = await aiohttp_server(job_api_stub())
    out = []
    for tag in ("a", "b"):
        stack = Stack()
        await stack.start(aiohttp_server, session, sandbox_config, tmp_path / f"usage-{tag}")
        out.append(stack)
    yield session, str(jobs.make_url("/v2")), out
    for stack in out:
        assert not stack.sandbox.app[VIOLATIONS]


def audit_gate(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "v1bridge", "audit", "--fail-on-legacy", str(root)],
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2])


def rewritten(name: str, dest: Path) -> Path:
    root = copy_project(name, dest)
    done = rewrite(root)
    assert done.returncode in (0, 1), done.stderr
    return root


# ------------------------------------------------------------------ tests

def test_manifest_lists_every_project():
    assert set(MANIFEST) == {p.name for p in PROJECTS.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert set(SCENARIOS) == set(MANIFEST)


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_manifest_lines_point_at_what_they_claim(name):
    spec = MANIFEST[name]
    for item in spec["calls"] + spec.get("constants", []) + spec.get("untouched", []):
        lines = (PROJECTS / name / item["file"]).read_text().splitlines()
        assert item["at"] in lines[item["line"] - 1], item
    assert spec["constants"] and spec["prints"]
    for call in spec["calls"]:
        states = call["state"] if isinstance(call["state"], list) else [call["state"]]
        assert states and set(states) <= {1, 2, 3} and call["why"], call


@pytest.mark.parametrize("name", sorted(MANIFEST))
async def test_original_runs_through_the_proxy(name, stacks, tmp_path, monkeypatch):
    """The BEFORE half on its own: the project as written works against v1 (the proxy), every call on v1."""
    session, jobs, (a, _b) = stacks
    hostmap = HostMap({V1: a.v1, V2: a.v2, JOBS: jobs})
    out = normalized(await run(name, copy_project(name, tmp_path / "before"), a, hostmap, monkeypatch), a.ids)
    assert out == MANIFEST[name]["prints"]
    assert "v1" in {api for api, _m, _p in hostmap.sent}


@pytest.mark.parametrize("name", sorted(MANIFEST))
async def test_rewritten_project_does_on_v2_what_the_original_did_through_the_proxy(
        name, stacks, tmp_path, monkeypatch):
    session, jobs, (a, b) = stacks
    before_map = HostMap({V1: a.v1, V2: a.v2, JOBS: jobs})
    before = normalized(await run(name, copy_project(name, tmp_path / "before"), a, before_map, monkeypatch), a.ids)
    after_map = HostMap({V1: b.v1, V2: b.v2, JOBS: jobs})
    root = rewritten(name, tmp_path / "after")
    after = normalized(await run(name, root, b, after_map, monkeypatch), b.ids)
    assert after == before
    left = {f"{method} {normalized([path], b.ids)[0]}" for api, method, path in after_map.sent if api == "v1"}
    assert left <= LEFT_ON_V1.get(name, set()), "calls the rewrite left on v1"
    # `rewrite` then `audit --fail-on-legacy` exits 0 only when the code runs on v2 (and then it must)
    gate = audit_gate(root)
    assert gate.returncode == (1 if left or name in AUDIT_STILL_FLAGS else 0), gate.stdout[-3000:] + gate.stderr[-2000:]
    assert b.sandbox.unrouted == [], "paths v2 does not have"
    catalog = [op for op in b.sandbox.ops if op.method == "GET" and op.route.startswith("/v2/catalog/")]
    before_ops, after_ops = client_ops(a.sandbox.ops), [op for op in b.sandbox.ops if op not in catalog]
    # the same writes in the same order; reads may differ in number only where the proxy and the compat module wait
    # differently (a reset: the proxy re-sends the start on 409, reset_pod reads the pod until it is EXITED)
    assert [op for op in before_ops if op.method != "GET"] == [op for op in after_ops if op.method != "GET"]
    assert {op.route for op in before_ops if op.method == "GET"} == {op.route for op in after_ops if op.method == "GET"}
    assert a.sandbox.refused == b.sandbox.refused  # the GPU types out of stock, tried in the same order
    assert await state(session, a.v2) == await state(session, b.v2)


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_job_api_and_v2_code_left_byte_for_byte(name, tmp_path):
    root = rewritten(name, tmp_path / "after")
    for item in MANIFEST[name].get("untouched", []):
        original = (PROJECTS / name / item["file"]).read_text().splitlines()[item["line"] - 1]
        assert original in (root / item["file"]).read_text().splitlines(), item
    for file in MANIFEST[name].get("untouched_files", []):
        assert (root / file).read_bytes() == (PROJECTS / name / file).read_bytes(), file


@pytest.mark.parametrize("name", sorted(p.name for p in EXPECTED.iterdir() if p.is_dir()))
def test_the_rewritten_project_is_the_expected_code(name, tmp_path):
    root = rewritten(name, tmp_path / "after")
    got = {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*.py"))
           if p.name != "v1bridge_compat.py"}
    want = {str(p.relative_to(EXPECTED / name)): p.read_text() for p in sorted((EXPECTED / name).rglob("*.py"))}
    assert got == want
    # (next to the client code: the project's root, or its package when the code is one)
    assert any(root.rglob("v1bridge_compat.py")) == any("import v1bridge_compat" in text for text in want.values())


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_rewrite_is_idempotent_and_the_same_at_jobs_1_and_2(name, tmp_path):
    one = copy_project(name, tmp_path / "one")
    two = copy_project(name, tmp_path / "two")
    assert rewrite(one, "--jobs", "1").returncode in (0, 1)
    assert rewrite(two, "--jobs", "2").returncode in (0, 1)
    assert tree(one) == tree(two)
    first = tree(one)
    again = rewrite(one)
    assert again.returncode == 0, again.stdout + again.stderr
    assert tree(one) == first
    shutil.rmtree(two)


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_check_fails_while_the_project_still_depends_on_v1(name, tmp_path):
    """`rewrite --check` exits 1 on the original, and after the rewrite exits 0 only when nothing is left on v1."""
    root = copy_project(name, tmp_path / "p")
    blind = name in CHECK_BLIND
    assert rewrite(root, "--check").returncode == (0 if blind else 1)
    assert rewrite(root).returncode in (0, 1)
    assert rewrite(root, "--check").returncode == (1 if name in LEFT_ON_V1 and not blind else 0)


# ------------------------------------------------------------------ one CLI run over a whole corpus

def _copy_corpus(corpus: str, dest: Path) -> Path:
    shutil.copytree(PROJECTS.parent / corpus, dest, ignore=shutil.ignore_patterns("MANIFEST.yaml", "__pycache__"))
    return dest


@pytest.mark.parametrize("corpus", ["corpus", "projects"])
def test_a_whole_corpus_rewrites_the_same_at_jobs_1_and_2_and_a_second_run_changes_nothing(corpus, tmp_path):
    one, two = _copy_corpus(corpus, tmp_path / "one"), _copy_corpus(corpus, tmp_path / "two")
    first, second = rewrite(one, "--jobs", "1"), rewrite(two, "--jobs", "2")
    assert first.returncode == second.returncode and first.returncode in (0, 1), first.stderr + second.stderr
    assert tree(one) == tree(two)
    before = tree(one)
    assert rewrite(one, "--jobs", "2").returncode == first.returncode
    assert tree(one) == before


def test_check_fails_while_a_v1_dependency_remains(tmp_path):
    root = _copy_corpus("corpus", tmp_path / "corpus")
    rewrite(root)
    assert rewrite(root, "--check").returncode == 1  # flagged calls (state 3) are left in the corpus


def test_check_passes_on_code_already_on_v2(tmp_path):
    root = tmp_path / "v2"
    root.mkdir()
    shutil.copy(PROJECTS.parent / "corpus" / "v2_already_correct.py", root)
    assert rewrite(root, "--check").returncode == 0


# ------------------------------------------------------------------ the judge fails what the issue saw fail

async def test_the_judge_fails_the_half_migration_the_issue_reports(stacks, tmp_path, monkeypatch):
    """podctl with its shared BASE_URL moved to v2 and nothing else (issue 21: billing_report.py and
    wait_for_pod.py left on v1 paths and fields crashed on the sandbox): the AFTER comparison must not pass."""
    session, jobs, (a, b) = stacks
    before = normalized(await run("podctl", copy_project("podctl", tmp_path / "before"), a,
                                  HostMap({V1: a.v1, V2: a.v2, JOBS: jobs}), monkeypatch), a.ids)
    half = copy_project("podctl", tmp_path / "half")
    api = half / "podctl" / "api.py"
    api.write_text(api.read_text().replace('BASE_URL = "https://rest.runpod.io/v1"', 'BASE_URL = "https://api.runpod.io/v2"'))
    try:
        after = normalized(await run("podctl", half, b, HostMap({V1: b.v1, V2: b.v2, JOBS: jobs}), monkeypatch), b.ids)
    except Exception:  # a crash of the client (TypeError, KeyError, HTTPError) is the failure the judge must see
        after = None
    assert after != before or b.sandbox.unrouted


async def test_the_judge_fails_a_billing_list_rewritten_without_v1s_grouping(stacks, tmp_path, monkeypatch):
    """nightly's spend.py counts the records of a pod billing report sent with no grouping: v1 answered one per GPU
    type and day, v2 one per pod and day. The rewrite keeps v1's records; a plain v2 rewrite (envelope and field
    renamed, no regrouping) runs without an error and prints another count, which the comparison must catch."""
    session, jobs, (a, b) = stacks
    before = normalized(await run("nightly", copy_project("nightly", tmp_path / "before"), a,
                                  HostMap({V1: a.v1, V2: a.v2, JOBS: jobs}), monkeypatch), a.ids)
    plain = rewritten("nightly", tmp_path / "plain")
    spend = plain / "spend.py"
    text = spend.read_text()
    call = next(line for line in text.splitlines() if '"/billing/pods"' in line)
    text = text.replace(call, '    return rp.call("GET", "/billing/pods", query=q)["records"]')
    spend.write_text(text.replace('r["amount"]', 'r["totalAmount"]'))
    after = normalized(await run("nightly", plain, b, HostMap({V1: b.v1, V2: b.v2, JOBS: jobs}), monkeypatch), b.ids)
    assert [line for line in before if line.startswith("days:")] == ["days: 4 total: 0.0"]
    assert after[:-1] == before[:-1] and after[-1] != before[-1]  # only the record count differs
