import requests

V1 = "https://rest.runpod.io/v1"


# v1bridge: keep-v1 start
def emergency_stop(pod_id):
    return requests.post(f"{V1}/pods/{pod_id}/stop")
# v1bridge: keep-v1 end


def still_legacy(pod_id):
    return requests.post(f"{V1}/pods/{pod_id}/start")
