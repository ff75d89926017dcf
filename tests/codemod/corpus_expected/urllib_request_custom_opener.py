"""Zero-dependency client (stdlib only) used inside our minimal base image."""
import json
import os
import urllib.error
import urllib.parse
import urllib.request

RUNPOD_API_BASE = os.environ.get("RUNPOD_API_BASE", "https://api.runpod.io/v2")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Never follow redirects: a redirect would drop the Authorization header."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_opener = urllib.request.build_opener(_NoRedirect)


def http_request(url, headers=None, method="GET", body=None):
    data = json.dumps(body).encode("utf-8") if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with _opener.open(req, timeout=30) as resp:
            raw = resp.read()
            return resp.status, (json.loads(raw) if raw else None)
    except urllib.error.HTTPError as err:
        payload = json.loads(err.read() or b"{}")
        return err.code, payload


def _auth():
    return {"Authorization": "Bearer " + os.environ.get("RUNPOD_API_KEY", "")}


def list_templates():
    templates, paging = [], ""
    while True:
        status, data = http_request(RUNPOD_API_BASE + "/templates" + paging, headers=_auth())
        if status != 200:
            raise RuntimeError(data.get("detail"))
        templates += data["templates"]
        if not data["pagination"]["hasNextPage"]:
            break
        paging = "?" + urllib.parse.urlencode({"cursor": data["pagination"]["nextCursor"]})
    return templates


def pod_spend(pod_id, bucket="day"):
    query = urllib.parse.urlencode({"bucketSize": bucket, "podId": pod_id})
    status, records = http_request(RUNPOD_API_BASE + "/billing/pods?" + query, headers=_auth())
    if status != 200:
        raise RuntimeError(records.get("detail"))
    return sum(rec["totalAmount"] for rec in records["records"])


def template(template_id):
    status, data = http_request(RUNPOD_API_BASE + "/templates/" + urllib.parse.quote(template_id), headers=_auth())
    if status == 404:
        return None
    return data


def create_template(name, image):
    req = urllib.request.Request(
        RUNPOD_API_BASE + "/templates",
        data=json.dumps({
            "name": name,
            "image": image,
            "serverless": True,
            "disk": 20,
            "env": {"HF_HOME": "/cache"},
            "ports": ["8888/http", "22/tcp"],
            "startSsh": False,
            "startJupyter": False,
        }).encode(),
        headers={**_auth(), "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.load(resp)


def delete_template(template_id):
    status, data = http_request(RUNPOD_API_BASE + "/templates/" + urllib.parse.quote(template_id),
                                headers=_auth(), method="DELETE")
    if status >= 400:
        raise RuntimeError(data["detail"])


def scenario(base_url, api_key, ids):
    os.environ["RUNPOD_API_KEY"] = api_key
    tpl = create_template("sls-worker", "ghcr.io/acme/sls:2")
    names = [t["name"] for t in list_templates()]
    got = template(tpl["id"])
    delete_template(tpl["id"])
    try:
        delete_template(tpl["id"])
        again = None
    except RuntimeError:
        again = "refused"
    spend = pod_spend(ids["pod"])
    return {"names": names, "serverless": got["serverless"], "image": got["image"], "again": again, "spend": spend}
