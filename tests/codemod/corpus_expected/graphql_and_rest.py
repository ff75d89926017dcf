"""Pod tooling that predates REST: deploys through GraphQL, manages through REST v1."""
import os

import requests

GRAPHQL_URL = "https://api.runpod.io/graphql"
REST_URL = os.environ.get("RUNPOD_REST_URL", "https://api.runpod.io/v2")

DEPLOY_MUTATION = """
mutation Deploy($input: PodFindAndDeployOnDemandInput!) {
  podFindAndDeployOnDemand(input: $input) { id imageName desiredStatus machineId }
}
"""

MYSELF_QUERY = "query { myself { id clientBalance currentSpendPerHr } }"


def gql(api_key, query, variables=None):
    resp = requests.post(
        GRAPHQL_URL,
        params={"api_key": api_key},
        json={"query": query, "variables": variables or {}},
        timeout=60,
    )
    resp.raise_for_status()
    payload = resp.json()
    if payload.get("errors"):
        raise RuntimeError(payload["errors"][0]["message"])
    return payload["data"]


def deploy(api_key, name, image, gpu="NVIDIA RTX A5000"):
    data = gql(api_key, DEPLOY_MUTATION, {"input": {"name": name, "imageName": image, "gpuTypeId": gpu, "gpuCount": 1, "cloudType": "SECURE"}})
    return data["podFindAndDeployOnDemand"]


def balance(api_key):
    return gql(api_key, MYSELF_QUERY)["myself"]["clientBalance"]


def rest_headers(api_key):
    return {"Authorization": f"Bearer {api_key}"}


def stop(api_key, pod_id):
    requests.post(f"{REST_URL}/pods/{pod_id}/action", headers=rest_headers(api_key), timeout=30, json={"action": "stop"}).raise_for_status()


def list_names(api_key):
    pods, paging = [], {}
    while True:
        page = requests.get(f"{REST_URL}/pods", headers=rest_headers(api_key), timeout=30, params=paging).json()
        pods += page["pods"]
        if not page["pagination"]["hasNextPage"]:
            break
        paging = {"cursor": page["pagination"]["nextCursor"]}
    return sorted(p["name"] for p in pods)


def scenario(base_url, api_key, ids):
    # GraphQL is not exercised here (no GraphQL in the sandbox); REST is.
    stop(api_key, ids["pod"])
    return {"names": list_names(api_key)}
