"""rpops: the ops team's shared RunPod helpers (vendored into every ops repo, no packaging)."""
from .http import ApiError, delete, get, patch, post
from .pods import find_pod, get_pod

__all__ = ["ApiError", "delete", "find_pod", "get", "get_pod", "patch", "post"]
