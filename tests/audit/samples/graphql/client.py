import requests

GRAPHQL_URL = "https://api.runpod.io/graphql"


def stop_pod(api_key, pod_id):
    query = f"""
    mutation {{
      podStop(input: {{podId: "{pod_id}"}}) {{ id desiredStatus }}
    }}
    """
    return requests.post(GRAPHQL_URL, params={"api_key": api_key}, json={"query": query}).json()


def list_volumes(api_key):
    # query { myself { networkVolumes { id } } }  (a comment, not a finding)
    q = "query Volumes { myself { networkVolumes { id name size } clientBalance } }"
    return requests.post(GRAPHQL_URL, json={"query": q, "operationName": "Volumes"})
