"""Template management for our inference images.

Used by the release pipeline: publishes one template per image tag and
cleans up templates nobody references any more.
"""
import json
import logging
import os
import urllib.parse

import requests

import v1bridge_compat

logger = logging.getLogger(__name__)

API_BASE = os.environ.get("RUNPOD_REST_API_BASE_URL", "https://api.runpod.io/v2/")
API_KEY = os.environ.get("RUNPOD_API_KEY")


def _url(path):
    return API_BASE.rstrip("/") + "/" + path


def _headers():
    return {"Authorization": "Bearer " + (API_KEY or ""), "Accept": "application/json"}


def _get(path):
    r = requests.get(_url(path), headers=_headers(), timeout=20)
    r.raise_for_status()
    return r.json()


def _post(path, body):
    r = v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, headers=_headers(), timeout=20, **kw), "POST", _url(path), json=body)
    if not r.ok:
        logger.error("POST %s failed: %s", path, r.json().get("message"))
        r.raise_for_status()
    return r.json()


def _delete(path):
    r = requests.delete(_url(path), headers=_headers(), timeout=20)
    r.raise_for_status()


def list_templates():
    templates, paging = [], ""
    while True:
        page = _get("templates" + paging)
        templates += page["templates"]
        if not page["pagination"]["hasNextPage"]:
            break
        paging = "?" + urllib.parse.urlencode({"cursor": page["pagination"]["nextCursor"]})
    return templates


def publish_template(name, image, disk_gb=20, public=False):
    body = {
        "name": name,
        "imageName": image,
        "containerDiskInGb": disk_gb,
        "volumeInGb": 0,
        "isPublic": public,
        "isServerless": False,
        "ports": ["8000/http"],
        "env": {"MODEL_DIR": "/models", "LOG_LEVEL": "info"},
    }
    tpl = _post("templates", body)
    logger.info("published %s as %s", image, tpl["id"])
    return tpl


def retag_template(template_id, image):
    return _post("templates/" + template_id + "/update", {"imageName": image})


def delete_template(template_id):
    _delete("templates/" + template_id)


def stale_templates(prefix):
    """Our templates whose image is not the latest tag."""
    out = []
    for tpl in list_templates():
        if tpl["name"].startswith(prefix) and not tpl["image"].endswith(":latest"):
            out.append(tpl["name"])
    return sorted(out)


def scenario(base_url, api_key, ids):
    a = publish_template("infer-a", "ghcr.io/acme/infer:1.4.2")
    b = publish_template("infer-b", "ghcr.io/acme/infer:latest", disk_gb=30)
    retag_template(a["id"], "ghcr.io/acme/infer:1.5.0")
    stale = stale_templates("infer-")
    delete_template(b["id"])
    return {"stale": stale, "left": sorted(t["name"] for t in list_templates()), "public": a["isPublic"]}


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    print(json.dumps(list_templates(), indent=2))
