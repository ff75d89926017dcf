"""Weekly report: which templates the team still runs."""
from collections import Counter

from runpodctl import RunPodClient


def template_usage(client: RunPodClient) -> Counter:
    names = {t["id"]: t["name"] for t in client.get("/templates")}
    return Counter(names.get(p.get("templateId"), "none") for p in client.get("/pods"))
