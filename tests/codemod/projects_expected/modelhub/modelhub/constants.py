import os

RUNPOD_REST_URL = os.environ.get("RUNPOD_REST_URL", "https://api.runpod.io/v2")
RUNPOD_V2_URL = "https://api.runpod.io/v2"  # only the workers view so far, see endpoints.workers()
RUNPOD_JOBS_URL = "https://api.runpod.ai/v2"  # serverless job API (run/runsync/health), not the REST API
USER_AGENT = "modelhub/1.4"

# GPU types we deploy on, in order of preference (v1 tries them in this order)
DEFAULT_GPUS = ["NVIDIA GeForce RTX 4090", "NVIDIA L40S", "NVIDIA RTX A6000"]
