"""Things that look like the v1 API but are not calls to it.

- a v1 base constant nobody uses any more (kept for the changelog script);
- a `RestClient` that wraps the provider's Python SDK (the SDK owns its URLs);
- pod proxy URLs (*.proxy.runpod.net) served by the pod itself;
- identifiers and log text spelled like v1 paths.
"""
import logging
import os

import requests

try:  # the SDK is optional in this tool
    import runpod  # type: ignore
except ImportError:  # pragma: no cover
    runpod = None

log = logging.getLogger("lookalikes")

LEGACY_REST_BASE = "https://rest.runpod.io/v1"  # unused since 2026-10; see CHANGELOG
networkvolumes = ["datasets", "checkpoints"]  # names of our volumes, not a route
containerregistryauth = {"name": "ghcr", "username": "bot"}  # config blob shape from the old docs


class RestClient:
    """Wraps the SDK: every network call happens inside `runpod`."""

    def __init__(self, api_key):
        if runpod is not None:
            runpod.api_key = api_key

    def pods(self):
        if runpod is None:
            return []
        return runpod.get_pods()


def pod_http_url(pod_id, port=8888):
    return f"https://{pod_id}-{port}.proxy.runpod.net/"


def jupyter_ready(pod_id, token):
    r = requests.get(pod_http_url(pod_id) + "api/status", params={"token": token}, timeout=5)
    return r.status_code == 200


def comfy_queue(pod_id):
    return requests.get(f"https://{pod_id}-8188.proxy.runpod.net/queue", timeout=5).json()


def describe_migration():
    log.info("we used to call POST /v1/pods/{id}/stop and GET /v1/networkvolumes")
    return "see docs/migration.md: /pods/{podId}/stop -> /v2/pods/{id}/action"
