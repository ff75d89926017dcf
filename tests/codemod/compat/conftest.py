"""The generated compat module, imported as a user's project would, and a live v2 sandbox to call through.

The module is rendered from the packaged mappings into a temporary folder and imported from there (never from
this repository), so the tests exercise exactly the text the rewrite writes. The sandbox answers lists in pages
of PAGE items, so a function that reads one page only is caught.
"""
from __future__ import annotations

import pytest

from codemod import compat
from sandbox.common import VIOLATIONS

from tests.codemod.compat.tools import Client, V1Client, load_module, start_sandbox
from tests.live_server import LiveServer


@pytest.fixture(scope="session")
def compat_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("project") / f"{compat.MODULE_NAME}.py"
    compat.write(path)
    return path


@pytest.fixture(scope="session")
def cm(compat_path):
    """The generated module."""
    return load_module(compat_path)


@pytest.fixture(scope="module")
def sandbox():
    server = start_sandbox()
    yield server
    server.close()
    assert not server.app[VIOLATIONS], "\n".join(server.app[VIOLATIONS])


@pytest.fixture
def client(sandbox):
    return Client(sandbox.url)


@pytest.fixture(scope="module")
def proxy(sandbox):
    """The v1bridge proxy in front of the same sandbox: its v1 answers are the reference for the compat module."""
    from proxy.app import create_proxy_app
    from proxy.config import ProxyConfig

    server = LiveServer(create_proxy_app(ProxyConfig(upstream=sandbox.url, fingerprint_salt="t", access_log=False,
                                                     reset_wait_seconds=2.0)))
    yield server
    server.close()


@pytest.fixture
def v1(proxy):
    return V1Client(proxy.url)
