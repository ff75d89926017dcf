"""The one place that knows the URL and the key (used by the report scripts)."""
import os

import requests

BASE = "https://rest.runpod.io/v1"
KEY = os.environ.get("RUNPOD_API_KEY", "")


def get_json(path, params=None):
    r = requests.get(f"{BASE}{path}", headers={"Authorization": f"Bearer {KEY}"}, params=params, timeout=20)
    r.raise_for_status()
    return r.json()
