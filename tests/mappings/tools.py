"""Helpers several test modules share: walk OpenAPI schemas the way the drift and coverage tests need (follow
$ref, merge allOf/anyOf/oneOf), and realistic v2 pods as the sandbox answers them."""
from __future__ import annotations

from typing import Any


def resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        ref = schema["$ref"]
        node: Any = doc
        for part in ref.lstrip("#/").split("/"):
            node = node[part]
        schema = {**node, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def properties(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """All properties a schema allows, across composition keywords."""
    schema = resolve(doc, schema)
    found: dict[str, dict[str, Any]] = {}
    for keyword in ("allOf", "anyOf", "oneOf"):
        for part in schema.get(keyword, []):
            for name, sub in properties(doc, part).items():
                found.setdefault(name, sub)
    for name, sub in schema.get("properties", {}).items():
        found[name] = sub
    return found


def descend(doc: dict[str, Any], schema: dict[str, Any], dotted: str) -> dict[str, Any] | None:
    """The sub-schema at a dotted path (numeric steps go into array items); None if the path does not exist."""
    current = resolve(doc, schema)
    for part in dotted.split("."):
        if part.isdigit():
            variants = [current] + [resolve(doc, s) for s in current.get("anyOf", []) + current.get("oneOf", [])]
            items = next((v["items"] for v in variants if "items" in v), None)
            if items is None:
                return None
            current = resolve(doc, items)
            continue
        props = properties(doc, current)
        if part not in props:
            variants = [resolve(doc, s) for s in current.get("anyOf", []) + current.get("oneOf", [])]
            props = {}
            for variant in variants:
                props.update(properties(doc, variant))
            if part not in props:
                return None
        current = resolve(doc, props[part])
    return current


def enum_values(doc: dict[str, Any], schema: dict[str, Any]) -> set[Any] | None:
    schema = resolve(doc, schema)
    if "enum" in schema:
        return set(schema["enum"])
    if "const" in schema:
        return {schema["const"]}
    for keyword in ("allOf", "anyOf", "oneOf"):
        for part in schema.get(keyword, []):
            values = enum_values(doc, part)
            if values is not None:
                return values
    return None


# a running GPU pod as the sandbox answers it (runtime ports: an http port on the edge proxy, a public tcp port)
GPU_POD: dict[str, Any] = {
    "id": "rd70308hupssuw", "name": "bench", "image": "nginx", "args": "python -m app --x 'a b'", "disk": 50,
    "mounts": {"persistent": {"size": 20, "path": "/workspace"}}, "ports": ["8888/http", "22/tcp"],
    "env": {"A": "1"}, "registry": None, "cloud": "SECURE", "dataCenterId": "EU-SE-1", "cudaVersion": "12.8",
    "template": None, "locked": False, "createdAt": "2026-11-23T18:43:38.288Z",
    "startedAt": "2026-11-23T18:43:38.288Z",
    "gpu": {"id": "NVIDIA A40", "count": 1, "vcpuCount": 16, "memory": 96}, "entrypoint": [], "cmd": [],
    "status": "RUNNING", "actions": ["stop", "restart", "terminate"], "cost": 0.41,
    "runtime": {"uptime": 0, "gpus": [{"util": 0, "memoryUtil": 0}], "cpu": {"util": 1}, "memory": {"util": 3},
                "ports": [{"private": 8888, "public": None, "type": "http", "ip": "100.112.91.36"},
                          {"private": 22, "public": 56210, "type": "tcp", "ip": "101.211.63.98"}]},
    "ssh": {"proxy": {"host": "ssh.runpod.io", "port": 22}, "direct": {"host": "101.211.63.98", "port": 56210}},
}


# a stopped CPU pod on a network volume, with a JSON `args` and no cmd (an older v2)
CPU_POD: dict[str, Any] = {
    "id": "cpu1", "name": "c", "image": "busybox", "args": '{"entrypoint": ["sh"], "cmd": ["-c", "echo"]}',
    "disk": 10, "mounts": {"network": [{"volumeId": "vol1", "path": "/runpod-volume"}]}, "ports": [],
    "env": {}, "cpu": {"id": "cpu3c", "vcpuCount": 2, "memory": 4}, "status": "EXITED", "cost": 0.06,
    "locked": True, "template": "tpl1", "runtime": None,
}
