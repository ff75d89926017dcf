"""podctl -- small helpers around the RunPod REST API that the team uses from cron and by hand."""
__version__ = "0.3.1"
