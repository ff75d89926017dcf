"""Shared constants for the fleet client."""

RUNPOD_REST_URL = "https://api.runpod.io/v2"

HTTP_GET = "GET"
HTTP_POST = "POST"
HTTP_DELETE = "DELETE"

DEFAULT_IMAGE = "ghcr.io/acme/worker:3.2"
DEFAULT_FLAVOR = "cpu3c"
REQUEST_TIMEOUT = 45
