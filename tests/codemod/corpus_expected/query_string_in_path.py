"""Inventory export: pods with their machines, templates including public ones."""
import csv
import io
import os

import requests

REST = os.environ.get("RUNPOD_REST_URL", "https://rest.runpod.io/v1")


def _get(url, api_key):
    # v1bridge: R07 the helper _get() stays on v1 with its callers (R07 read dataCenterId); read dataCenterId
    r = requests.get(url, headers={"Authorization": f"Bearer {api_key}"}, timeout=30)
    r.raise_for_status()
    return r.json()


def pods_with_machines(api_key):
    # v1bridge: R07 v1 query parameter in _get(f"{REST}/pods?includeMachine=true&includeNetworkVolu... has no v2 form the rewrite can write here: read dataCenterId
    # v1bridge: Q03 v1 query parameter in _get(f"{REST}/pods?includeMachine=true&includeNetworkVolu... has no v2 form the rewrite can write here: filter the v2 list client-side; fetch related objects explicitly
    return _get(f"{REST}/pods?includeMachine=true&includeNetworkVolume=true", api_key)


def pod_machine(api_key, pod_id):
    # v1bridge: R07 v1 query parameter in _get(f"{REST}/pods/{pod_id}?includeMachine=true", api_key) has no v2 form the rewrite can write here: read dataCenterId
    pod = _get(f"{REST}/pods/{pod_id}?includeMachine=true", api_key)
    # v1bridge: R07 v1 field 'machine': read dataCenterId
    machine = pod.get("machine") or {}
    return machine.get("gpuTypeId"), machine.get("dataCenterId")


def all_templates(api_key):
    # v1bridge: Q27 v1 query parameter in _get(REST + "/templates?includePublicTemplates=true&inclu... has no v2 form the rewrite can write here: read /v2/catalog/templates?source=official|community for public templates
    return _get(REST + "/templates?includePublicTemplates=true&includeRunpodTemplates=true", api_key)


def running_pods(api_key):
    # v1bridge: Q03 v1 query parameter in _get(REST + "/pods?desiredStatus=RUNNING", api_key) has no v2 form the rewrite can write here: filter the v2 list client-side; fetch related objects explicitly
    # v1bridge: Q13 v1 query parameter in _get(REST + "/pods?desiredStatus=RUNNING", api_key) has no v2 form the rewrite can write here: read status and handle PROVISIONING, STARTING and ERROR; a loop waiting for RUNNING must stop on ERROR
    return _get(REST + "/pods?desiredStatus=RUNNING", api_key)


def export_csv(api_key):
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["id", "name", "status", "datacenter"])
    for p in pods_with_machines(api_key):
        # v1bridge: R07 v1 field 'machine': read dataCenterId
        w.writerow([p["id"], p["name"], p["desiredStatus"], (p.get("machine") or {}).get("dataCenterId", "")])
    return buf.getvalue()


def scenario(base_url, api_key, ids):
    rows = export_csv(api_key).splitlines()
    return {"rows": len(rows), "running": len(running_pods(api_key)), "dc": pod_machine(api_key, ids["pod"])[1] is not None}
