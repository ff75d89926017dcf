"""runpod-ctl: a small client for the RunPod REST API."""
from .client import RunPodClient, RunPodError

__all__ = ["RunPodClient", "RunPodError"]
