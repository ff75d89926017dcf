"""Helpers the compat tests share: the generated module imported from a file, a live sandbox, a user's client."""
from __future__ import annotations

import importlib.util
import sys

import requests

from sandbox import SandboxConfig
from sandbox.app import create_sandbox_app

from tests.live_server import LiveServer

KEY = "compat-key"
AUTH = {"Authorization": f"Bearer {KEY}"}
PAGE = 2
UNAVAILABLE_GPU = "NVIDIA H200"  # seeded out of stock in every sandbox (sandbox/config.py)
AVAILABLE_GPU = "NVIDIA RTX A5000"


def load_module(path, name="v1bridge_compat_under_test"):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def start_sandbox(**overrides) -> LiveServer:
    config = SandboxConfig(keys=[KEY], validate_responses=True, log_interval=0.01, log_follow_seconds=0.05,
                           max_page_size=PAGE, **overrides)
    return LiveServer(create_sandbox_app(config))


class Client:
    """A user's requests-based client on the v2 base: the callables the compat functions take."""

    def __init__(self, url: str) -> None:
        self.base = url + "/v2"
        self.session = requests.Session()
        self.session.headers.update(AUTH)
        self.calls: list[tuple[str, str, object]] = []

    def send(self, method, path, **kw):
        self.calls.append((method, path, kw.get("json")))
        return self.session.request(method, self.base + path, timeout=10, **kw)

    def create_pod(self, body):
        return self.send("POST", "/pods", json=body)

    def helper(self, method, path, json=None):
        """A helper that parses the answer and raises on an error (requests.HTTPError)."""
        response = self.send(method, path, **({"json": json} if json is not None else {}))
        response.raise_for_status()
        return response.json() if response.content else None


def pod_body(name="compat", **extra):
    body = {"name": name, "image": "runpod/base:0.6.2", "gpu": {"id": AVAILABLE_GPU, "count": 1}}
    body.update(extra)
    return body


class V1Client:
    """The same user talking v1 through the proxy (what the code did before the rewrite)."""

    def __init__(self, url: str) -> None:
        self.base = url + "/v1"
        self.session = requests.Session()
        self.session.headers.update(AUTH)

    def get(self, path, **kw):
        response = self.session.get(self.base + path, timeout=20, **kw)
        assert response.status_code == 200, response.text
        return response.json()
