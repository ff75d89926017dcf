import os
from dataclasses import dataclass, field

DEFAULT_REST_URL = "https://api.runpod.io/v2"


@dataclass
class Settings:
    api_key: str = field(default_factory=lambda: os.environ.get("RUNPOD_API_KEY", ""))
    api_url: str = field(default_factory=lambda: os.environ.get("RUNPOD_REST_API_URL", DEFAULT_REST_URL))
    timeout: float = 30.0
    retries: int = 4
    # EU first: the shared datasets live on a volume in EU-RO-1
    data_center: str = "EU-RO-1"
