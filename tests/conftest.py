"""Project-wide fixtures. Sandbox fixtures live here because proxy, codemod and audit tests all use the sandbox as their v2 upstream."""
from __future__ import annotations

import socket

import aiohttp.web_app
import pytest

from sandbox import SandboxConfig, create_sandbox_app
from sandbox.common import VIOLATIONS

SANDBOX_KEYS = ["key-alice", "key-bob"]


class FakeClock:
    """A settable wall clock so tests can move time (pod transitions, billing) without sleeping."""

    def __init__(self, start: float = 1_767_225_600.0) -> None:  # 2026-01-01T00:00:00Z
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture(autouse=True)
def _apps_are_freed_after_each_test():
    """aiohttp memoises each app's middleware chain (keyed by the app, up to 1,024 entries), which keeps every
    app a test built alive, with all it holds (~33 MB for a proxy that has served requests): the full suite
    grew past 10 GB. A server process builds one app, so only a test run needs the memo emptied (the collector
    then frees the apps in its own time: a full collection per test made the suite three times slower)."""
    yield
    memo = getattr(aiohttp.web_app, "_cached_build_middleware", None)
    if memo is not None:
        memo.cache_clear()


@pytest.fixture
def sandbox_keys() -> list[str]:
    return list(SANDBOX_KEYS)


@pytest.fixture
def sandbox_headers(sandbox_keys: list[str]) -> dict[str, str]:
    """Authorization for the first sandbox key."""
    return {"Authorization": f"Bearer {sandbox_keys[0]}"}


@pytest.fixture
def sandbox_config(sandbox_keys: list[str]) -> SandboxConfig:
    """Fresh in-memory sandbox, instant pod clock, every answer checked against v2.json."""
    return SandboxConfig(
        keys=sandbox_keys,
        db_path=None,
        transition_seconds=0.0,
        validate_responses=True,
        log_interval=0.01,
        log_follow_seconds=0.05,
    )


@pytest.fixture
def sandbox_app(sandbox_config: SandboxConfig):
    app = create_sandbox_app(sandbox_config)
    yield app
    violations = app[VIOLATIONS]
    assert not violations, "sandbox answers that do not conform to v2.json:\n" + "\n".join(violations)


@pytest.fixture
async def sandbox_client(aiohttp_client, sandbox_app):
    """An aiohttp TestClient on the sandbox (no auth header preset: pass sandbox_headers)."""
    return await aiohttp_client(sandbox_app)


@pytest.fixture
async def sandbox_server(aiohttp_server, sandbox_app):
    """A real listening sandbox; its base URL is str(server.make_url(""))."""
    return await aiohttp_server(sandbox_app)


@pytest.fixture
def full_backlog_url():
    """A socket that listens but never accepts, its backlog already full: connects hang until timed out."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(0)
    port = server.getsockname()[1]
    fillers = []
    for _ in range(4):
        c = socket.socket()
        c.setblocking(False)
        try:
            c.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        fillers.append(c)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        for c in fillers:
            c.close()
        server.close()
