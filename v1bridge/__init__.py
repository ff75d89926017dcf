"""v1bridge: move clients of the retired v1 API to v2 (proxy, rewrite, audit, sandbox)."""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("v1bridge")
except PackageNotFoundError:  # pragma: no cover - running from a source tree that was never installed
    __version__ = "0.0.0+source"
