"""Fleet tooling: GraphQL for deploys and account data, REST v1 for the rest.

Written before the REST API had pod creation; never fully moved.
"""
import logging
import os

import requests

log = logging.getLogger("fleet")

GRAPHQL_URL = os.environ.get("RUNPOD_GRAPHQL_URL", "https://api.runpod.io/graphql")
REST_URL = "https://rest.runpod.io/v1"

DEPLOY = """
mutation deploy($input: PodFindAndDeployOnDemandInput) {
  podFindAndDeployOnDemand(input: $input) {
    id
    imageName
    machineId
    desiredStatus
  }
}
"""

RESUME = """
mutation resume($podId: String!, $gpuCount: Int!) {
  podResume(input: {podId: $podId, gpuCount: $gpuCount}) { id desiredStatus costPerHr }
}
"""

STOP = "mutation stop($podId: String!) { podStop(input: {podId: $podId}) { id desiredStatus } }"
TERMINATE = "mutation terminate($podId: String!) { podTerminate(input: {podId: $podId}) }"

EDIT = """
mutation edit($input: PodEditJobInput!) {
  podEditJob(input: $input) { id imageName env }
}
"""

ACCOUNT = """
query account {
  myself {
    id
    email
    clientBalance
    currentSpendPerHr
    pods { id name desiredStatus costPerHr }
    networkVolumes { id name size dataCenterId }
    containerRegistryCreds { id name }
  }
}
"""


def gql(query, variables=None):
    resp = requests.post(
        f"{GRAPHQL_URL}?api_key={os.environ['RUNPOD_API_KEY']}",
        json={"query": query, "variables": variables or {}},
        timeout=60,
    )
    resp.raise_for_status()
    data = resp.json()
    if "errors" in data:
        raise RuntimeError("; ".join(e["message"] for e in data["errors"]))
    return data["data"]


def deploy(name, image, gpu_type, count=1):
    pod = gql(DEPLOY, {"input": {"name": name, "imageName": image, "gpuTypeId": gpu_type, "gpuCount": count,
                                 "cloudType": "SECURE", "containerDiskInGb": 40, "volumeInGb": 0}})
    return pod["podFindAndDeployOnDemand"]


def resume(pod_id, gpus=1):
    return gql(RESUME, {"podId": pod_id, "gpuCount": gpus})["podResume"]


def stop(pod_id):
    return gql(STOP, {"podId": pod_id})["podStop"]


def terminate(pod_id):
    gql(TERMINATE, {"podId": pod_id})


def retag(pod_id, image):
    return gql(EDIT, {"input": {"podId": pod_id, "imageName": image}})["podEditJob"]


def account():
    me = gql(ACCOUNT)["myself"]
    log.info("balance %.2f, burning %.3f/h", me["clientBalance"], me["currentSpendPerHr"])
    return me


def _rest(method, path, **kw):
    r = requests.request(method, REST_URL + path, headers={"Authorization": f"Bearer {os.environ['RUNPOD_API_KEY']}"},
                         timeout=30, **kw)
    r.raise_for_status()
    return r.json() if r.content else None


def pod_details(pod_id):
    return _rest("GET", f"/pods/{pod_id}")


def templates():
    return [t["name"] for t in _rest("GET", "/templates")]
