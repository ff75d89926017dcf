import os

REST_URL = os.environ.get("RUNPOD_REST_URL", "https://api.runpod.io/v2")
JOBS_URL = "https://api.runpod.ai/v2"  # serverless job API (not the REST API version!)
V2_URL = "https://api.runpod.io/v2"  # started moving to v2 here, see serverless.describe()
API_KEY = os.environ.get("RUNPOD_API_KEY", "")
HEADERS = {"Authorization": f"Bearer {API_KEY}"}
