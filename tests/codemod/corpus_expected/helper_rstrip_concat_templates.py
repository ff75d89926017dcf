"""Template management for our inference images.

Used by the release pipeline: publishes one template per image tag and
cleans up templates nobody references any more.
"""
import json
import logging
import os

import requests

logger = logging.getLogger(__name__)

API_BASE = os.environ.get("RUNPOD_REST_API_BASE_URL", "https://rest.runpod.io/v1/")
API_KEY = os.environ.get("RUNPOD_API_KEY")


def _url(path):
    return API_BASE.rstrip("/") + "/" + path


def _headers():
    return {"Authorization": "Bearer " + (API_KEY or ""), "Accept": "application/json"}


def _get(path):
    # v1bridge: Q02 the helper _get() stays on v1 with its callers (L04 use PATCH on the resource and POST /v2/pods/{id}/action {action}); iterate response[<key>] (pods, endpoints, templates, networkVolumes, registries, records)
    r = requests.get(_url(path), headers=_headers(), timeout=20)
    r.raise_for_status()
    return r.json()


def _post(path, body):
    # v1bridge: L04 the helper _post() stays on v1 with its callers (L04 use PATCH on the resource and POST /v2/pods/{id}/action {action}); use PATCH on the resource and POST /v2/pods/{id}/action {action}
    r = requests.post(_url(path), headers=_headers(), json=body, timeout=20)
    if not r.ok:
        # v1bridge: Q29 error read ['message'] in the helper _post(), which stays on v1 with its callers; read detail (and errors[]) from the problem body
        logger.error("POST %s failed: %s", path, r.json().get("message"))
        r.raise_for_status()
    return r.json()


def _delete(path):
    # v1bridge: L01 the helper _delete() stays on v1 with its callers (L04 use PATCH on the resource and POST /v2/pods/{id}/action {action}); use /v2/serverless, /v2/network-volumes, /v2/registries (and /v2 before every path)
    r = requests.delete(_url(path), headers=_headers(), timeout=20)
    r.raise_for_status()


def list_templates():
    # v1bridge: Q02 left on v1 with its client (L04 use PATCH on the resource and POST /v2/pods/{id}/action {action}); iterate response[<key>] (pods, endpoints, templates, networkVolumes, registries, records)
    return _get("templates")


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
    # v1bridge: L02 left on v1 with its client (L04 use PATCH on the resource and POST /v2/pods/{id}/action {action}); send the v2 field (imageName -> image, containerDiskInGb -> disk, ...)
    tpl = _post("templates", body)
    logger.info("published %s as %s", image, tpl["id"])
    return tpl


def retag_template(template_id, image):
    # v1bridge: L04 use PATCH on the resource and POST /v2/pods/{id}/action {action}
    return _post("templates/" + template_id + "/update", {"imageName": image})


def delete_template(template_id):
    # v1bridge: L01 left on v1 with its client (L04 use PATCH on the resource and POST /v2/pods/{id}/action {action}); use /v2/serverless, /v2/network-volumes, /v2/registries (and /v2 before every path)
    _delete("templates/" + template_id)


def stale_templates(prefix):
    """Our templates whose image is not the latest tag."""
    out = []
    for tpl in list_templates():
        if tpl["name"].startswith(prefix) and not tpl["imageName"].endswith(":latest"):
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
