"""labkit -- the research group's RunPod tooling (pods for experiments, shared volumes, the private registry)."""
from .session import RunPodSession
from .settings import Settings

__all__ = ["RunPodSession", "Settings"]
