from .client import RunPodClient, RunPodError, Settings

__all__ = ["RunPodClient", "RunPodError", "Settings"]
