"""Async jobs on an endpoint's queue (the serverless job API: /run, /status, /purge-queue)."""
import requests

from .config import HEADERS, JOBS_URL


def submit(endpoint_id, payload):
    r = requests.post(f"{JOBS_URL}/{endpoint_id}/run", json={"input": payload}, headers=HEADERS, timeout=30)
    r.raise_for_status()
    return r.json()["id"]


def status(endpoint_id, job_id):
    r = requests.get(f"{JOBS_URL}/{endpoint_id}/status/{job_id}", headers=HEADERS, timeout=30)
    r.raise_for_status()
    return r.json()["status"]


def purge(endpoint_id):
    return requests.post(f"{JOBS_URL}/{endpoint_id}/purge-queue", headers=HEADERS, timeout=30).json()["removed"]
