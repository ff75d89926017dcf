"""Inventory export: pods with their machines, templates including public ones."""
import csv
import io
import os

import requests

import v1bridge_compat

REST = os.environ.get("RUNPOD_REST_URL", "https://api.runpod.io/v2")


def _get(url, api_key):
    r = requests.get(url, headers={"Authorization": f"Bearer {api_key}"}, timeout=30)
    r.raise_for_status()
    return r.json()


def pods_with_machines(api_key):
    return v1bridge_compat.call_v1(v1bridge_compat.by_method(get=lambda path: _get(path, api_key)), "GET", f"{REST}/pods?includeMachine=true&includeNetworkVolume=true")


def pod_machine(api_key, pod_id):
    pod = v1bridge_compat.v1_view("pod", _get(f"{REST}/pods/{pod_id}", api_key), includes=("machine",))
    machine = pod.get("machine") or {}
    return machine.get("gpuTypeId"), machine.get("dataCenterId")


def all_templates(api_key):
    return v1bridge_compat.call_v1(v1bridge_compat.by_method(get=lambda path: _get(path, api_key)), "GET", REST + "/templates?includePublicTemplates=true&includeRunpodTemplates=true")


def running_pods(api_key):
    return v1bridge_compat.all_pages(v1bridge_compat.by_method(get=lambda path: _get(path, api_key)), REST + "/pods?desiredStatus=RUNNING", op="pods.list")


def export_csv(api_key):
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["id", "name", "status", "datacenter"])
    for p in pods_with_machines(api_key):
        w.writerow([p["id"], p["name"], p["desiredStatus"], (p.get("machine") or {}).get("dataCenterId", "")])
    return buf.getvalue()


def scenario(base_url, api_key, ids):
    rows = export_csv(api_key).splitlines()
    return {"rows": len(rows), "running": len(running_pods(api_key)), "dc": pod_machine(api_key, ids["pod"])[1] is not None}
