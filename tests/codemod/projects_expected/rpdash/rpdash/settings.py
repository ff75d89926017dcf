import os

REST_API = os.getenv("RUNPOD_REST_API_URL", "https://api.runpod.io/v2")


def headers():
    return {"Authorization": f"Bearer {os.environ['RUNPOD_API_KEY']}", "Content-Type": "application/json"}
