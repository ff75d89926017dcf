"""modelhub -- deploy our models as RunPod serverless endpoints (async, one client per process)."""
__version__ = "1.4.2"
