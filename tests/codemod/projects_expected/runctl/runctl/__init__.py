"""runctl: a small team CLI for RunPod pods and volumes (plain requests, one HTTP module)."""
