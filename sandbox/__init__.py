"""The embedded v2 sandbox: a local, schema-faithful v2 service for the proxy, tests and demos."""
from __future__ import annotations

from .config import DEFAULT_UNAVAILABLE_GPU_TYPES, SandboxConfig, generate_dev_key, resolve_keys

__all__ = [
    "DEFAULT_UNAVAILABLE_GPU_TYPES",
    "SandboxConfig",
    "create_sandbox_app",
    "generate_dev_key",
    "resolve_keys",
]


def create_sandbox_app(config: SandboxConfig | None = None):  # type: ignore[no-untyped-def]
    """Lazy re-export so `import sandbox` stays cheap."""
    from .app import create_sandbox_app as factory

    return factory(config)
