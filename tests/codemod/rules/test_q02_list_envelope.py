"""Q02: a v1 list (a bare array) is read as `[<key>]` of the v2 answer where the JSON is parsed.

Before/after pairs: each output exactly the expected code, it parses, and a second run changes nothing.
"""
from __future__ import annotations

import pytest

from tests.codemod.tools import case, check_rewrite

CASES = {
    "Q02 Q30 list stored and iterated later: every page": case('''
        import requests
        def names(h):
            resp = requests.get("https://rest.runpod.io/v1/templates", headers=h)
            resp.raise_for_status()
            templates = resp.json()
            return [t["imageName"] for t in templates]
    ''', '''
        import requests
        def names(h):
            templates, paging = [], {}
            while True:
                resp = requests.get("https://api.runpod.io/v2/templates", headers=h, params=paging)
                resp.raise_for_status()
                page = resp.json()
                templates += page["templates"]
                if not page["pagination"]["hasNextPage"]:
                    break
                paging = {"cursor": page["pagination"]["nextCursor"]}
            return [t["image"] for t in templates]
    '''),
    "Q02 Q30 aiohttp async with: every page": case('''
        import aiohttp
        async def pods():
            async with aiohttp.ClientSession() as session:
                async with session.get("https://rest.runpod.io/v1/pods") as resp:
                    return await resp.json()
    ''', '''
        import aiohttp
        async def pods():
            async with aiohttp.ClientSession() as session:
                all_pods, paging = [], {}
                while True:
                    async with session.get("https://api.runpod.io/v2/pods", params=paging) as resp:
                        page = await resp.json()
                    all_pods += page["pods"]
                    if not page["pagination"]["hasNextPage"]:
                        break
                    paging = {"cursor": page["pagination"]["nextCursor"]}
                return all_pods
    '''),
}


@pytest.mark.parametrize("name", list(CASES))
def test_rewrite(name: str) -> None:
    check_rewrite(*CASES[name])
