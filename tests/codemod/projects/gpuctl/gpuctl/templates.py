from .http import rest


def create(name, image, env=None, serverless=True):
    r = rest().post("/templates", json={
        "name": name,
        "imageName": image,
        "isServerless": serverless,
        "containerDiskInGb": 15,
        "env": env or {},
        "ports": ["8000/http"],
    })
    r.raise_for_status()
    return r.json()


def names():
    r = rest().get("/templates")
    r.raise_for_status()
    return sorted(t["name"] for t in r.json())


def remove(template_id):
    rest().delete(f"/templates/{template_id}").raise_for_status()
