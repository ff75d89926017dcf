"""The team's small RunPod SDK: one client class, made wherever it is needed."""
