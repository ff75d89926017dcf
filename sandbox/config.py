"""Sandbox settings and API-key resolution, shared with the proxy's embedded mode."""
from __future__ import annotations

import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

#: GPU types seeded as out of stock: creating a pod on them answers the real
#: service's capacity 400, so the proxy's GPU-fallback emulation has something
#: to fall back from.
DEFAULT_UNAVAILABLE_GPU_TYPES: frozenset[str] = frozenset(
    {"NVIDIA H200", "NVIDIA B200", "NVIDIA H100 NVL"}
)

ENV_KEYS = "V1BRIDGE_KEYS"


@dataclass
class SandboxConfig:
    """Everything that makes one sandbox differ from another.

    `transition_seconds` is the time a pod spends in each of PROVISIONING and
    STARTING; 0 makes a new pod RUNNING at once (tests).
    `unavailable_gpu_types` answer 400 "no instances available" on pod,
    cluster and endpoint placement; `unavailable_placements` does the same for
    single (gpu type, data center) pairs.
    """

    keys: list[str] = field(default_factory=list)
    db_path: str | None = None
    transition_seconds: float = 0.0
    unavailable_gpu_types: set[str] | frozenset[str] = field(
        default_factory=lambda: set(DEFAULT_UNAVAILABLE_GPU_TYPES)
    )
    unavailable_placements: set[tuple[str, str]] = field(default_factory=set)
    #: seconds between live log lines after the backfill
    log_interval: float = 1.0
    #: stop a log stream after this many seconds (None: until the client leaves)
    log_follow_seconds: float | None = None
    #: requests per key per `rate_window` seconds; None disables limiting (headers stay)
    rate_limit: int | None = None
    rate_window: int = 10
    #: check every answer against the operation's declared response schema (tests)
    validate_responses: bool = False
    #: wall clock; tests inject a fake one to move time forward
    clock: Callable[[], float] = time.time
    #: public host used in requestUrls, ssh blocks and log lines
    serverless_base: str = "https://api.runpod.ai"
    #: cap on the items of one page of a paginated list, below any `limit` asked for (None: as the service,
    #: `limit` or its default); a small cap makes tests and demos walk many pages
    max_page_size: int | None = None


def generate_dev_key() -> str:
    """A key that is obviously local, so nobody pastes it into the real service."""
    return "sandbox-" + secrets.token_urlsafe(18)


def resolve_keys(
    keys_arg: str | list[str] | None = None,
    keys_file: str | os.PathLike[str] | None = None,
    environ: dict[str, str] | None = None,
) -> tuple[list[str], bool]:
    """Collect API keys from --keys, --keys-file and V1BRIDGE_KEYS (in that order).

    Returns (keys, generated): when no source gives a key, one development key
    is made up and `generated` is True so the caller can print it.
    """
    env = os.environ if environ is None else environ
    keys: list[str] = []
    if keys_arg:
        parts = keys_arg if isinstance(keys_arg, list) else keys_arg.split(",")
        keys.extend(p.strip() for p in parts if p and p.strip())
    if keys_file:
        for line in Path(keys_file).read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                keys.append(line)
    if env.get(ENV_KEYS):
        keys.extend(p.strip() for p in env[ENV_KEYS].split(",") if p.strip())
    unique = list(dict.fromkeys(keys))
    if unique:
        return unique, False
    return [generate_dev_key()], True
