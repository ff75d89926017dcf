"""Tiny RunPod REST helper used by our training scripts."""
from .api import RunpodAPI, RunpodError

__all__ = ["RunpodAPI", "RunpodError"]
