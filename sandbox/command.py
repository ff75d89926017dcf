"""The container command: `args`, `cmd` and `entrypoint` (v2-drift.md section 3.2).

`args` is the one stored string. It holds either a plain command line (the
server treats it as CMD and splits it into words) or a JSON object
`{"entrypoint": [...], "cmd": [...]}` with one or both keys. Reads return
`args` as stored plus the decoded `cmd` and `entrypoint`. A write may send
`args` together with `cmd`/`entrypoint` only when they encode the same
command; an omitted field is left as it was, `""` / `[]` clear.
"""
from __future__ import annotations

import shlex
from functools import lru_cache
from typing import Any

import orjson

from .problems import Problem


def decode(args: str) -> tuple[list[str], list[str]]:
    """(entrypoint, cmd) that a stored `args` string stands for."""
    entrypoint, cmd = _decode(args)
    return list(entrypoint), list(cmd)


@lru_cache(maxsize=4096)
def _decode(args: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    text = args.strip()
    if text.startswith("{"):
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            value = None
        if isinstance(value, dict) and set(value) <= {"entrypoint", "cmd"} and all(
            isinstance(v, list) and all(isinstance(i, str) for i in v) for v in value.values()
        ):
            return tuple(value.get("entrypoint", [])), tuple(value.get("cmd", []))
    try:
        return (), tuple(shlex.split(args))
    except ValueError:
        raise Problem(422, "args is not a valid command line (unbalanced quotes)",
                      ["$.args: cannot be split into words"]) from None


def encode(entrypoint: list[str], cmd: list[str]) -> str:
    """The `args` string stored for a command given as arrays (plain when no entrypoint and it round-trips)."""
    if not entrypoint and not cmd:
        return ""
    if not entrypoint:
        plain = shlex.join(cmd)
        if shlex.split(plain) == cmd:
            return plain
    out: dict[str, list[str]] = {}
    if entrypoint:
        out["entrypoint"] = entrypoint
    if cmd:
        out["cmd"] = cmd
    return orjson.dumps(out).decode()


def resolve(body: dict[str, Any], current: str = "") -> str | None:
    """The `args` to store after a write of `body` over a stored `current`; None when the write leaves it.

    Raises 400 when `args` and `cmd`/`entrypoint` are both sent and disagree.
    """
    has_args = "args" in body
    has_arrays = "cmd" in body or "entrypoint" in body
    if not has_args and not has_arrays:
        return None
    base_entry, base_cmd = decode(body["args"] if has_args else current)
    if not has_arrays:
        return body["args"]
    entrypoint = body.get("entrypoint", base_entry)
    cmd = body.get("cmd", base_cmd)
    if has_args and (entrypoint, cmd) != (base_entry, base_cmd):
        raise Problem(400, "args does not encode the same command as cmd/entrypoint; send one form, "
                           "or the three fields exactly as a GET returned them")
    return body["args"] if has_args else encode(entrypoint, cmd)


def view(args: str) -> dict[str, Any]:
    """The three command fields of a response."""
    entrypoint, cmd = decode(args)
    return {"args": args, "entrypoint": entrypoint, "cmd": cmd}
