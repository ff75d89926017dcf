"""Rewritten clients do on v2 what the originals did through the v1 proxy.

Each realistic fixture module runs twice on a fresh, recording sandbox:
the ORIGINAL (v1) module through the proxy (`create_proxy_app` in front of
sandbox A), and the module produced by the rewrite engine in this test (equal
to the reviewed `.after.py`) straight against sandbox B. The v2 operations
each sandbox received (method, route template, body shape) must be the same
sequence, and the sandboxes must end in the same state. The proxy's own
catalogue reads are its implementation, not the client's operations: see
`_client_ops`.

Synchronous clients (requests) run in a worker thread (`asyncio.to_thread`)
while the servers keep serving on real ports in the test's event loop.

Both sandboxes answer paginated lists (pods, endpoints, templates) in pages of
PAGE items and hold more than that of each (`seed`), so a rewritten list call
that reads one page returns less than the original and fails the comparison:
the rewrite must follow the cursor (Q30). The proxy rebuilds the v1 lists from
every page for the original.
Base addresses are injected by setting the module's base constant (or the
client's `base_url` argument): the fixtures themselves stay untouched.
"""
from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import io
import os
import sys
from pathlib import Path
from typing import Any, Callable

import orjson
import pytest
import yaml
from aiohttp import web

from codemod.engine import analyze_files, analyze_python, rewrite_files, rewrite_source
from proxy.app import create_proxy_app
from proxy.config import ProxyConfig
from sandbox.common import VIOLATIONS
from tests.codemod.tools import (AUTH, EXTRA, KEY, Recording, client_ops, job_api_stub, load, paged, scrub, seed,
                                 state)

# interruptible is strict in the proxy by default (an on-demand pod is another price); the corpus's spot clients
# are run through it as the rewrite makes them run on v2: on demand
SPOT_ON_DEMAND = frozenset({"interruptible"})

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(autouse=True)
def compat_module():
    """The generated compat module, importable as the rewritten modules import it (`import v1bridge_compat`)."""
    from codemod import compat

    module = load(compat.render(), compat.MODULE_NAME)
    sys.modules[compat.MODULE_NAME] = module
    yield module
    sys.modules.pop(compat.MODULE_NAME, None)


def pair(name: str) -> tuple[str, str]:
    """(original, rewritten): the rewrite runs here and must give the reviewed .after.py exactly."""
    before = (FIXTURES / f"{name}.before.py").read_text()
    result = rewrite_source(before, f"{name}.py")
    assert result.error is None
    assert result.new_source == (FIXTURES / f"{name}.after.py").read_text()
    return before, result.new_source


# ------------------------------------------------------------------ scenarios
# Each takes the loaded module and the base address (v1 through the proxy, or v2
# on the sandbox) and drives the client the way its user would.


async def run_session_client(mod, base: str, ids: dict) -> None:
    def go() -> None:
        client = mod.PodClient(KEY, base_url=base)
        pod = client.create_pod("web", "nginx:latest")
        every_pod = sorted([pod["id"], ids["pod"], *ids["extra"]["pods"]])
        assert sorted(p["id"] for p in client.list_pods()) == every_pod
        client.stop_pod(pod["id"])
        client.start_pod(pod["id"])
        assert client.get_pod(pod["id"])["id"] == pod["id"]
        assert sorted(row[0] for row in mod.summary(client)) == every_pod
        with pytest.raises(KeyError) as missing:
            client.get_pod("no-such-pod")
        other = client.create_pod("gone", "busybox:latest")
        client.delete_pod(other["id"])
        return [missing.value.args[0]]

    return await asyncio.to_thread(go)


async def run_argparse_cli(mod, base: str, ids: dict) -> None:
    mod.API = base
    mod.HEADERS = dict(AUTH)

    def go() -> None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert mod.main(["new-volume", "--name", "data", "--size", "20"]) == 0
        vol_id = orjson.loads(out.getvalue())["id"]
        with contextlib.redirect_stdout(io.StringIO()):
            assert mod.main(["grow", "--id", vol_id, "--size", "40"]) == 0
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert mod.main(["volumes"]) == 0
            assert mod.main(["endpoints"]) == 0
            assert mod.main(["spend"]) == 0
        lines = out.getvalue().splitlines()
        assert lines[0] == f"{vol_id} data 40 EU-RO-1"
        # every endpoint, on every page: the seed one and the older ones
        assert sorted(lines[1:-1]) == sorted(["seed-endpoint 3", *(f"old-endpoint-{n} 3" for n in range(EXTRA))])
        with pytest.raises(SystemExit) as refused:
            with contextlib.redirect_stdout(io.StringIO()):
                mod.main(["new-volume", "--name", "data", "--size", "0"])
        # both refuse the size: the proxy in v1 words before forwarding, v2 with its own detail
        message = refused.value.code
        assert isinstance(message, str) and message, "the refusal must reach the user as a message"
        return ["refused", lines[-1]]

    return await asyncio.to_thread(go)


async def run_async_httpx(mod, base: str, ids: dict) -> None:
    mod.BASE_URL = base
    api = mod.AsyncTemplates(KEY)
    try:
        older = [f"old-template-{n}" for n in range(EXTRA)]
        created = await api.create("demo", "busybox:latest")
        assert sorted(await api.names()) == sorted(["demo", *older])  # every page of the template list
        image = await api.rename(created["id"], "demo-2")
        assert image == "busybox:latest"
        assert sorted(await api.names()) == sorted(["demo-2", *older])
        await api.remove(created["id"])
    finally:
        await api.aclose()


async def run_helper_client(mod, base: str, ids: dict) -> None:
    mod.BASE = base

    def go() -> None:
        api = mod.Api(KEY)
        api.add_registry("hub", "me", "secret")
        assert mod.registry_names(api) == ["hub"]
        api.restart(ids["pod"])
        api.scale(ids["endpoint"], 5)

    await asyncio.to_thread(go)


SCENARIOS: dict[str, Callable] = {
    "session_client": run_session_client,
    "argparse_cli": run_argparse_cli,
    "async_httpx": run_async_httpx,
    "helper_client": run_helper_client,
}


@pytest.mark.parametrize("name", list(SCENARIOS))
async def test_rewritten_module_does_on_v2_what_the_original_did_through_the_proxy(
    name, aiohttp_server, aiohttp_client, sandbox_config, tmp_path
) -> None:
    original, rewritten = pair(name)
    scenario = SCENARIOS[name]
    sandbox_a, sandbox_b = Recording(paged(sandbox_config)), Recording(paged(sandbox_config))
    server_a = await aiohttp_server(sandbox_a.app)
    server_b = await aiohttp_server(sandbox_b.app)
    proxy = await aiohttp_server(create_proxy_app(ProxyConfig(
        upstream=str(server_a.make_url("")).rstrip("/"), usage_dir=str(tmp_path / "usage"),
        fingerprint_salt="t", access_log=False, reset_wait_seconds=1.0, emulate=SPOT_ON_DEMAND)))
    v1_base = str(proxy.make_url("/v1"))
    v2_a, v2_b = str(server_a.make_url("/v2")), str(server_b.make_url("/v2"))
    client = await aiohttp_client(web.Application())
    session = client.session
    ids_a, ids_b = await seed(session, v2_a), await seed(session, v2_b)

    sandbox_a.on = True
    seen_v1 = await scenario(load(original, f"v1_{name}"), v1_base, ids_a)
    sandbox_a.on = False
    sandbox_b.on = True
    seen_v2 = await scenario(load(rewritten, f"v2_{name}"), v2_b, ids_b)
    sandbox_b.on = False

    assert seen_v1 == seen_v2

    assert sandbox_b.ops, "the rewritten client made no v2 call"
    # refusals may differ in where they happen: the proxy refuses a body v2 would refuse before
    # forwarding it, the rewritten client has v2 refuse it; the accepted operations must be the same
    assert client_ops(sandbox_a.ops) == sandbox_b.ops
    assert sandbox_a.refused == [] or sandbox_a.refused == sandbox_b.refused
    assert await state(session, v2_a) == await state(session, v2_b)
    for sandbox in (sandbox_a, sandbox_b):
        assert not sandbox.app[VIOLATIONS]


# ------------------------------------------------------------------ the issue-11 corpus
# Each module of tests/codemod/corpus/ with a `drive` in MANIFEST.yaml runs twice with the same calls:
# the original through the proxy, the rewritten module straight on the sandbox (a module the rewrite
# leaves flagged keeps its v1 base, so it runs through a proxy again). Same return value, same accepted
# operations, same end state; and the property of the guarantee: the rewritten module never sends a
# path v2 does not have to the v2 base (no v1 path on a v2 base).

CORPUS = Path(__file__).parent / "corpus"
CORPUS_MODULES: dict = yaml.safe_load((CORPUS / "MANIFEST.yaml").read_text())["modules"]


def _corpus_sources(name: str) -> list[tuple[str, str, str]]:
    """(file name, original, rewritten) of a corpus module (one file, or each file of a package)."""
    path = CORPUS / name
    sources = {file.name: file.read_text() for file in (sorted(path.glob("*.py")) if path.is_dir() else [path])}
    out = []
    for file, result in rewrite_files(sources).items():  # one run: a package's files share their constants
        assert result.error is None
        out.append((file, sources[file], result.new_source))
    return out


# Modules whose rewritten version does not yet do what the original did (each a gap named in
# test_corpus_rewrite.NOT_YET); strict: the day the gap closes, this list must shrink.
EXEC_GAPS: dict[str, str] = {}


def _rounded(value: Any) -> Any:
    """Amounts that accrue with the wall clock (billing of a pod that ran for microseconds) to 4 places."""
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v) for v in value]
    return value


def _drivable() -> list:
    out = []
    for name, spec in sorted(CORPUS_MODULES.items()):
        if spec.get("drive") is None:
            continue
        if name in EXEC_GAPS:
            out.append(pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=EXEC_GAPS[name])))
        else:
            out.append(name)
    return out


async def _drive(name: str, files: list[tuple[str, str]], fills: dict, ids: dict, tmp_path: Path, tag: str):
    """Execute one version of a corpus module and call its drive function."""
    drive = CORPUS_MODULES[name]["drive"] or {}
    saved = {var: os.environ.get(var) for var in drive.get("env") or {}}
    try:
        for var, value in (drive.get("env") or {}).items():
            os.environ[var] = value.format(**fills)
        if (CORPUS / name).is_dir():
            root = tmp_path / tag
            (root / name).mkdir(parents=True)
            for file, text in files:
                (root / name / file).write_text(text)
            sys.path.insert(0, str(root))
            try:
                module = importlib.import_module(f"{name}.{drive.get('module', 'client')}")
            finally:
                sys.path.remove(str(root))
                for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
                    del sys.modules[loaded]
        else:
            text = files[0][1]
            for literal, target in (drive.get("url_map") or {}).items():  # literal URLs at every call
                text = text.replace(literal, target.format(**fills))
            module = load(text, f"corpus_{tag}_{name[:-3]}")
        for attribute, value in (drive.get("set") or {}).items():
            setattr(module, attribute, value.format(**fills))
        function = getattr(module, drive.get("call", "scenario"))
        args = (fills["base"], KEY, ids)
        if inspect.iscoroutinefunction(function):
            return await function(*args)
        return await asyncio.to_thread(function, *args)
    finally:
        for var, value in saved.items():
            if value is None:
                os.environ.pop(var, None)
            else:
                os.environ[var] = value


@pytest.mark.parametrize("name", _drivable())
async def test_corpus_module_does_the_same_after_rewrite(name, aiohttp_server, aiohttp_client, sandbox_config, tmp_path):
    spec = CORPUS_MODULES[name]
    drive = spec["drive"] or {}
    sources = _corpus_sources(name)
    migrated = any(r.rules for r in rewrite_files({f: before for f, before, _a in sources}).values())
    flagged = any(f.kind in ("call", "indirect") and f.route
                  for a in analyze_files({file: after for file, _b, after in sources}).values() for f in a.findings)
    if migrated and flagged:
        pytest.skip("part of the module migrated, part flagged: no single base address drives it")
    sandbox_a, sandbox_b = Recording(paged(sandbox_config)), Recording(paged(sandbox_config))
    server_a = await aiohttp_server(sandbox_a.app)
    server_b = await aiohttp_server(sandbox_b.app)
    proxies = []
    for server in (server_a, server_b):
        proxies.append(await aiohttp_server(create_proxy_app(ProxyConfig(
            upstream=str(server.make_url("")).rstrip("/"), usage_dir=str(tmp_path / f"usage{len(proxies)}"),
            fingerprint_salt="t", access_log=False, reset_wait_seconds=1.0, emulate=SPOT_ON_DEMAND))))
    jobs = await aiohttp_server(job_api_stub()) if "job_api" in (drive.get("stubs") or []) else None
    session = (await aiohttp_client(web.Application())).session
    v2_a, v2_b = str(server_a.make_url("/v2")), str(server_b.make_url("/v2"))
    ids_a, ids_b = await seed(session, v2_a), await seed(session, v2_b)
    upstream_v2 = drive.get("upstream") == "v2"
    common = {"key": KEY, "jobs": str(jobs.make_url("/v2")) if jobs else "http://127.0.0.1:9/v2"}
    fills_a = {**common, "base": v2_a if upstream_v2 else str(proxies[0].make_url("/v1")),
               "v2": str(proxies[0].make_url("/v2")), "pod": ids_a["pod"], "endpoint": ids_a["endpoint"]}
    after_on_v2 = migrated or upstream_v2
    fills_b = {**common, "base": v2_b if after_on_v2 else str(proxies[1].make_url("/v1")),
               "v2": v2_b, "pod": ids_b["pod"], "endpoint": ids_b["endpoint"]}

    sandbox_a.on = True
    seen_a = await _drive(name, [(f, b) for f, b, _a in sources], fills_a, {**ids_a, "jobs": common["jobs"], "v2": fills_a["v2"]},
                          tmp_path, "before")
    sandbox_a.on, sandbox_b.on = False, True
    seen_b = await _drive(name, [(f, a) for f, _b, a in sources], fills_b, {**ids_b, "jobs": common["jobs"], "v2": fills_b["v2"]},
                          tmp_path, "after")
    sandbox_b.on = False

    assert _rounded(scrub(seen_a)) == _rounded(scrub(seen_b))
    # the guarantee, executed: the rewritten module sends v2 no path v2 does not have (no v1 path on a v2 base)
    assert sandbox_b.unrouted == [], f"the rewritten module called paths v2 does not have: {sandbox_b.unrouted}"
    if after_on_v2 and not upstream_v2:
        # catalogue reads are the proxy's or the compat module's own (ranking a fallback list, mapping GPU ids)
        assert client_ops(sandbox_a.ops) == client_ops(sandbox_b.ops)
    assert await state(session, v2_a) == await state(session, v2_b)
    for sandbox in (sandbox_a, sandbox_b):
        assert not sandbox.app[VIOLATIONS]
