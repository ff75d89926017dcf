import httpx

from . import config

_rest = None


def rest() -> httpx.Client:
    global _rest
    if _rest is None:
        _rest = httpx.Client(base_url=config.REST_URL, headers=config.HEADERS, timeout=20.0)
    return _rest


def jobs(endpoint_id) -> httpx.Client:
    return httpx.Client(base_url=f"{config.JOBS_URL}/{endpoint_id}", headers=config.HEADERS, timeout=90.0)


def close():
    global _rest
    if _rest is not None:
        _rest.close()
        _rest = None
