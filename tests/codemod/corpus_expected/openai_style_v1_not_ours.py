"""Client for our local vLLM server (OpenAI-compatible) and the endpoint's OpenAI route.

Nothing here is the pod management API: /v1 is the OpenAI API version.
"""
import os

import requests

OPENAI_BASE = os.environ.get("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
ENDPOINT_ID = os.environ.get("RUNPOD_ENDPOINT_ID", "abc123xyz")
SERVERLESS_OPENAI_BASE = f"https://api.runpod.ai/v2/{ENDPOINT_ID}/openai/v1"
LEGACY_OPENAI_BASE = f"https://api.runpod.io/v2/{ENDPOINT_ID}/openai/v1"


def models(base=OPENAI_BASE, key="EMPTY"):
    r = requests.get(f"{base}/models", headers={"Authorization": f"Bearer {key}"}, timeout=10)
    r.raise_for_status()
    return [m["id"] for m in r.json()["data"]]


def chat(prompt, model, base=OPENAI_BASE, key="EMPTY"):
    r = requests.post(
        base + "/chat/completions",
        headers={"Authorization": f"Bearer {key}"},
        json={"model": model, "messages": [{"role": "user", "content": prompt}], "max_tokens": 64},
        timeout=120,
    )
    r.raise_for_status()
    return r.json()["choices"][0]["message"]["content"]


def remote_chat(prompt, model):
    return chat(prompt, model, base=SERVERLESS_OPENAI_BASE, key=os.environ["RUNPOD_API_KEY"])


def legacy_remote_models():
    return models(base=LEGACY_OPENAI_BASE, key=os.environ["RUNPOD_API_KEY"])


if __name__ == "__main__":
    print(models())
