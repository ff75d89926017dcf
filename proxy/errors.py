"""The one exception the proxy raises for answers it makes itself (always v1-shaped)."""
from __future__ import annotations


class V1Error(Exception):
    """An answer made by the proxy: status + message, rendered as {"message": ...} for v1 clients."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        headers: dict[str, str] | None = None,
        policy: str | None = None,
        rule: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}
        self.policy = policy
        self.rule = rule
