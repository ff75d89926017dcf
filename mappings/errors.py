"""The one error root of v1bridge: every failure the tools raise is a `V1bridgeError`.

Four families, one per place a request can fail:

- `MappingError`: the mapping data itself is wrong (found at load, never per request);
- `TranslationError`: a v1 request has no faithful v2 form (`InvalidValue`, 400), needs an
  emulation that is switched to strict (`PolicyRefused`, 501), or needs data first (`NeedsLookup`,
  control flow between the translator and its caller), or meets a documented gap (`Unsupported`);
- `ClientInputError`: the caller's own request is refused before any translation (v1 schema, JSON,
  ids, size, time);
- `UpstreamError`: v2 failed or answered a problem (the v2 status and headers ride along).

Outside a request, a command refuses its input with a `UsageError` (a rule selection, a baseline, a settings
file, a v2 document it cannot use) and a server refuses to start with a `StartupError` (the sandbox's database
is another process's); a packaging fault of the rewrite's rule registry is a `MappingError`'s sibling,
`RuleRegistryError`. `v1bridge/cli.py` renders every one of them, once, as `v1bridge COMMAND: message` and exit 2.

Each carries the HTTP status it answers with, a message, and optional headers, policy and rule.
The error is rendered in the caller's shape in one place per server: the proxy middleware
(`{"message"}` for v1 callers, RFC 9457 problems for v2 callers) and the sandbox middleware
(problems, with `errors`). Nothing else turns an exception into an answer.
"""
from __future__ import annotations


class V1bridgeError(Exception):
    """Status + message (+ headers, policy, rule); subclasses fix the default status."""

    status = 500

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        headers: dict[str, str] | None = None,
        policy: str | None = None,
        rule: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        self.headers = headers or {}
        self.policy = policy
        self.rule = rule

    def within(self, context: str) -> "V1bridgeError":
        """Put what the caller was doing before the cause ("the fallback stopped at X: <cause>")."""
        self.message = f"{context}: {self.message}"
        self.args = (self.message,)
        return self

    def __str__(self) -> str:
        return self.message


class MappingError(V1bridgeError, ValueError):
    """The mapping data does not load or does not agree with itself (a packaging error)."""


class TranslationError(V1bridgeError):
    """A v1 request cannot be translated as it stands."""


class InvalidValue(TranslationError, ValueError):
    """A v1 value that has no faithful v2 form; the message is for the v1 client."""

    status = 400


class Unsupported(TranslationError):
    """A valid v1 request that meets a documented gap: v2 cannot serve it (501, or 404 for a gone route)."""

    status = 501


class PolicyRefused(Unsupported):
    """A request needs an emulation that is switched to strict (answered 501)."""

    def __init__(self, policy: str, message: str, *, rule: str | None = None) -> None:
        super().__init__(message, policy=policy, rule=rule)


class NeedsLookup(TranslationError):
    """The translation needs data the caller must fetch first ('current', 'catalog', 'template')."""

    def __init__(self, what: str, reason: str) -> None:
        super().__init__(f"the translation needs {what}: {reason}")
        self.what = what
        self.reason = reason


class ClientInputError(V1bridgeError):
    """The caller's request is refused as sent (v1 schema, JSON, id, size, time, unknown route)."""

    status = 400


class UsageError(V1bridgeError, ValueError):
    """A command's input cannot be used as given: a flag's value, or a file or document it names."""

    status = 400


class StartupError(V1bridgeError, RuntimeError):
    """A server cannot start as configured (its database is held by another process, ...)."""

    status = 503


class UpstreamError(V1bridgeError):
    """v2 failed (502 unreachable or 5xx, 504 too slow) or answered a problem relayed with its status."""

    status = 502

    def __init__(self, message: str, *, status: int | None = None, upstream_status: int | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message, status=status, headers=headers)
        self.upstream_status = upstream_status
