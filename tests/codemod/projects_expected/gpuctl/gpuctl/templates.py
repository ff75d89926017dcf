from .http import rest


def create(name, image, env=None, serverless=True):
    r = rest().post("/templates", json={
        "name": name,
        "image": image,
        "serverless": serverless,
        "disk": 15,
        "env": env or {},
        "ports": ["8000/http"],
        "mounts": {"persistent": {"size": 20, "path": "/workspace"}},
        "startSsh": False,
        "startJupyter": False,
    })
    r.raise_for_status()
    return r.json()


def names():
    templates, paging = [], {}
    while True:
        r = rest().get("/templates", params=paging)
        r.raise_for_status()
        page = r.json()
        templates += page["templates"]
        if not page["pagination"]["hasNextPage"]:
            break
        paging = {"cursor": page["pagination"]["nextCursor"]}
    return sorted(t["name"] for t in templates)


def remove(template_id):
    rest().delete(f"/templates/{template_id}").raise_for_status()
