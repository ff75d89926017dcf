"""Async RunPod REST client; every module of modelhub awaits on one instance of it."""
import asyncio
import os

import httpx

from . import constants


class RunPodAPIError(Exception):
    def __init__(self, status, message):
        super().__init__(f"{status} {message}")
        self.status = status
        self.message = message


def _message(resp):
    try:
        return resp.json().get("message", resp.text)
    except ValueError:
        return resp.text


class RunPod:
    def __init__(self, api_key=None, base_url=constants.RUNPOD_REST_URL, max_retries=3):
        api_key = api_key or os.environ["RUNPOD_API_KEY"]
        self.headers = {"Authorization": f"Bearer {api_key}", "User-Agent": constants.USER_AGENT}
        self._http = httpx.AsyncClient(base_url=base_url, headers=self.headers,
                                       timeout=httpx.Timeout(30.0, connect=5.0))
        self.max_retries = max_retries

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self._http.aclose()

    async def request(self, method, path, body=None, params=None):
        kwargs = {"params": params}
        if method in ("POST", "PATCH"):
            kwargs["json"] = body or {}
        for attempt in range(self.max_retries + 1):
            resp = await self._http.request(method, path, **kwargs)
            if resp.status_code in (429, 502, 503) and attempt < self.max_retries:
                await asyncio.sleep(0.5 * 2 ** attempt)
                continue
            break
        if resp.is_error:
            raise RunPodAPIError(resp.status_code, _message(resp))
        return resp.json() if resp.content else None

    async def get(self, path, params=None):
        return await self.request("GET", path, params=params)

    async def post(self, path, body=None):
        return await self.request("POST", path, body)

    async def patch(self, path, body):
        return await self.request("PATCH", path, body)

    async def delete(self, path):
        return await self.request("DELETE", path)
