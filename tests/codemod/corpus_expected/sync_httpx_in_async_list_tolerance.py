"""Template picker for the web UI backend (async handlers, sync httpx inside)."""
import asyncio
import os

import httpx

RUNPOD_REST_URL = os.environ.get("RUNPOD_REST_URL", "https://api.runpod.io/v2")


async def fetch_templates(api_key):
    data, paging = [], {}
    while True:
        with httpx.Client(headers={"Authorization": f"Bearer {api_key}"}, timeout=20) as client:
            resp = client.get(f"{RUNPOD_REST_URL}/templates", params=paging)
        if resp.status_code != 200:
            return []
        page = resp.json()
        data += page["templates"]
        if not page["pagination"]["hasNextPage"]:
            break
        paging = {"cursor": page["pagination"]["nextCursor"]}
    return data if isinstance(data, list) else []


async def template_choices(api_key, serverless_only=False):
    templates = await fetch_templates(api_key)
    return sorted(
        (t["name"], t["image"]) for t in templates if not serverless_only or t.get("serverless")
    )


async def create_template(api_key, name, image, serverless=False):
    with httpx.Client(headers={"Authorization": f"Bearer {api_key}"}, timeout=20) as client:
        resp = client.post(f"{RUNPOD_REST_URL}/templates", json={
            "name": name,
            "image": image,
            "serverless": serverless,
            "disk": 10,
            "ports": ["7860/http"],
            "startSsh": False,
            "startJupyter": False,
        })
        resp.raise_for_status()
        return resp.json()["id"]


async def _demo(api_key):
    await create_template(api_key, "ui-gradio", "ghcr.io/acme/gradio:1")
    await create_template(api_key, "ui-worker", "ghcr.io/acme/worker:1", serverless=True)
    return {"all": await template_choices(api_key), "sls": await template_choices(api_key, serverless_only=True)}


def scenario(base_url, api_key, ids):
    # the handlers block their event loop (sync httpx inside async def), so they get a loop of their own
    return asyncio.run(_demo(api_key))


if __name__ == "__main__":
    print(asyncio.run(template_choices(os.environ["RUNPOD_API_KEY"])))
