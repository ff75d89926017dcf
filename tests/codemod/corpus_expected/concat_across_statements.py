"""Nightly pod rotation script (old-school requests code, string building)."""
import json
import logging
import os
import sys

import requests

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")

BASE = os.getenv("RUNPOD_API_BASE", "https://api.runpod.io/v2")
KEY = os.getenv("RUNPOD_API_KEY", "")


def headers():
    return {"Authorization": "Bearer " + KEY, "Content-Type": "application/json"}


def pod_url(pod_id):
    url = BASE + "/pods/"
    url = url + pod_id
    return url


def rotate(pod_id):
    url = pod_url(pod_id)
    stop_url = url + "/action"
    r = requests.post(stop_url, headers=headers(), json={"action": "stop"})
    if r.status_code != 200:
        logging.error("stop failed: %s", r.text)
        return False
    start_url = url
    start_url += "/action"
    r = requests.post(start_url, headers=headers(), json={"action": "start"})
    logging.info("start -> %s", r.status_code)
    return r.ok


def describe(pod_id):
    info = requests.get(pod_url(pod_id), headers=headers()).json()
    return info["name"] + " " + info["status"]


def scenario(base_url, api_key, ids):
    global KEY
    KEY = api_key
    ok = rotate(ids["pod"])
    return {"ok": ok, "desc": describe(ids["pod"])}


if __name__ == "__main__":
    for pid in sys.argv[1:]:
        print(json.dumps({"pod": pid, "rotated": rotate(pid)}))
