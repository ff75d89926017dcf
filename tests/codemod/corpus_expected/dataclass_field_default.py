"""Network volume housekeeping, configured through a dataclass (httpx)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import httpx


@dataclass
class RunpodSettings:
    rest_url: str = "https://api.runpod.io/v2"
    api_key: str = field(default_factory=lambda: os.environ.get("RUNPOD_API_KEY", ""))
    timeout: float = 30.0
    default_datacenter: str = "EU-RO-1"

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"}


class Volumes:
    def __init__(self, settings: RunpodSettings | None = None) -> None:
        self.settings = settings or RunpodSettings()

    def _url(self, *parts: str) -> str:
        return "/".join([self.settings.rest_url.rstrip("/"), *parts])

    def all(self) -> list[dict]:
        r = httpx.get(self._url("network-volumes"), headers=self.settings.headers, timeout=self.settings.timeout)
        r.raise_for_status()
        return r.json()["networkVolumes"]

    def create(self, name: str, size_gb: int, datacenter: str | None = None) -> dict:
        body = {"name": name, "size": size_gb, "dataCenter": datacenter or self.settings.default_datacenter}
        r = httpx.post(self._url("network-volumes"), json=body, headers=self.settings.headers, timeout=self.settings.timeout)
        if r.is_error:
            raise ValueError(r.json()["detail"])
        return r.json()

    def grow(self, volume_id: str, size_gb: int) -> dict:
        r = httpx.patch(self._url("network-volumes", volume_id), json={"size": size_gb},
                        headers=self.settings.headers, timeout=self.settings.timeout)
        r.raise_for_status()
        return r.json()

    def delete(self, volume_id: str) -> None:
        httpx.delete(self._url("network-volumes", volume_id), headers=self.settings.headers,
                     timeout=self.settings.timeout).raise_for_status()

    def by_datacenter(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for vol in self.all():
            out.setdefault(vol["dataCenter"], []).append(vol["name"])
        return out


def scenario(base_url, api_key, ids):
    vols = Volumes(RunpodSettings(rest_url=base_url, api_key=api_key))
    a = vols.create("datasets", 50)
    b = vols.create("checkpoints", 100, "US-KS-2")
    grown = vols.grow(a["id"], 80)["size"]
    layout = vols.by_datacenter()
    vols.delete(b["id"])
    return {"grown": grown, "layout": layout, "left": [v["name"] for v in vols.all()]}
