"""Our control-plane backend: it exposes its own /pods routes and calls the
team's internal API. None of these routes are the provider's API.
"""
import os

import requests
from aiohttp import web

INTERNAL_API = os.environ.get("INTERNAL_API_BASE", "http://internal-api.acme.local/v1")

routes = web.RouteTableDef()
_STATE = {}


@routes.get("/pods")
async def list_pods(request):
    return web.json_response([{"id": k, "desiredStatus": v} for k, v in sorted(_STATE.items())])


@routes.post("/pods/{pod_id}/stop")
async def stop_pod(request):
    _STATE[request.match_info["pod_id"]] = "EXITED"
    return web.json_response({"id": request.match_info["pod_id"], "desiredStatus": "EXITED"})


@routes.post("/pods/{pod_id}/start")
async def start_pod(request):
    _STATE[request.match_info["pod_id"]] = "RUNNING"
    return web.json_response({"id": request.match_info["pod_id"], "desiredStatus": "RUNNING"})


def app():
    application = web.Application()
    application.add_routes(routes)
    return application


def stop_via_backend(api_base, pod_id, token):
    """Ask our own backend (which owns the provider credentials) to stop a pod."""
    r = requests.post(f"{api_base}/runpod/pods/{pod_id}/stop", headers={"X-Acme-Token": token}, timeout=10)
    r.raise_for_status()
    return r.json()["desiredStatus"]


def audit_log(pod_id):
    return requests.get(INTERNAL_API + "/pods/" + pod_id + "/events", timeout=10).json()


if __name__ == "__main__":
    web.run_app(app(), port=int(os.environ.get("PORT", "8081")))
