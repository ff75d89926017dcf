"""One v1 request's context: everything the pipeline stages share, in one object made once per request.

`RequestInfo` is what the middleware records about any request (v1, v2, ops). `Call` is one v1 request as the
pipeline serves it: the route and its parameters, the caller's credentials and request id (sent on every v2
call made for it), its overall deadline and its client (checked before every step that changes something), the
configuration and the upstream session, the plan once made, and what the emulations did on the way (policies
engaged at run time, the outcome when the client left or the deadline passed).
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Sequence

from aiohttp import web

from mappings.errors import ClientInputError, UpstreamError
from proxy.telemetry import REQUEST_ID

if TYPE_CHECKING:
    from proxy.config import ProxyConfig
    from proxy.forward import Plan, V2Request
    from proxy.routes import Route
    from proxy.upstream import Upstream
    from proxy.upstream_answer import UpstreamResponse


class RequestInfo:
    """What the middleware learns about a request as the handler runs (a slotted class: one per request)."""

    __slots__ = ("api", "auth", "route", "emulations", "rules", "ignored", "v2_path", "outcome", "graphql")

    def __init__(self, api: str, auth: str | None = None) -> None:
        self.api = api  # v1 | v2 | ops | other
        self.auth = auth  # the Authorization header (read once, by the middleware)
        self.route: Route | None = None
        self.emulations: Sequence[str] = ()
        self.rules: Sequence[str] = ()
        self.ignored: Sequence[str] = ()  # v1 inputs not honoured (X-V1bridge-Ignored, the usage record)
        self.v2_path: str | None = None
        # what an emulation did when its client left or its deadline passed (access log and usage record)
        self.outcome: str | None = None
        # the GraphQL operations (graphql.yaml ids) a POST /graphql ran: one usage record and metric each
        self.graphql: Sequence[str] = ()


INFO: web.RequestKey[RequestInfo] = web.RequestKey("v1bridge_info", RequestInfo)


class Call:
    """One v1 request through plan -> execute -> answer.

    A step is one v2 call that changes something (a create of the fallback walk, stop/start of a reset, the
    follow-up PATCH, a retry of any of them). Before it starts (`before`): if the client has disconnected,
    nothing more is sent (499); if the deadline has passed, nothing more is sent (504). A step already sent is
    finished and its outcome recorded (`sent`, RequestInfo.outcome); aiohttp does not cancel handlers when a
    client leaves.
    """

    __slots__ = ("request", "info", "route", "params", "auth", "request_id", "config", "upstream", "seconds",
                 "ends", "plan", "emulations")

    def __init__(self, request: web.Request, info: RequestInfo, route: Route, params: dict[str, str],
                 config: ProxyConfig, upstream: Upstream) -> None:
        self.request = request
        self.info = info
        self.route = route
        self.params = params
        self.auth = info.auth
        self.request_id: str | None = request.headers.get(REQUEST_ID)
        self.config = config
        self.upstream = upstream
        self.seconds = config.request_deadline
        self.ends = time.monotonic() + self.seconds
        self.plan: Plan | None = None
        self.emulations: list[str] = []  # the plan's, then those engaged while executing and answering

    # ------------------------------------------------------------ v2 calls

    async def send(self, req: V2Request, label: str, spool_over: int = 0) -> UpstreamResponse:
        """One v2 call of this request, with its credentials and request id; a 2xx body of `spool_over` bytes or
        more is spooled to a file (offload.py). The request's deadline bounds every call: none starts past it, and
        a read (a page, a lookup) is cut at it (504)."""
        if req.method == "GET":
            return await self.upstream.call("GET", req.path, authorization=self.auth, query=req.query,
                                            body=req.body, label=label, request_id=self.request_id,
                                            spool_over=spool_over, ends=self.ends)
        # a change is never started past the deadline; once sent it is finished (within the upstream timeout), so
        # the caller learns what it did instead of "unknown"
        if self.remaining() <= 0:
            raise UpstreamError(f"the request reached its {self.seconds:g}s deadline; {req.method} {req.path} was "
                                "not sent", status=504)
        return await self.upstream.call(req.method, req.path, authorization=self.auth, query=req.query,
                                        body=req.body, label=label, request_id=self.request_id,
                                        spool_over=spool_over)

    async def read(self, path: str, query: Any = None, label: str = "lookup") -> UpstreamResponse:
        """A GET the proxy makes on the caller's behalf (lookups, the state after a failed step)."""
        return await self.upstream.call("GET", path, authorization=self.auth, query=query or None, label=label,
                                        request_id=self.request_id, ends=self.ends)

    # ------------------------------------------------------ what happened

    def engage(self, policy: str | None) -> None:
        """A policy engaged while executing or answering (status kept as v1's): named in the answer's headers."""
        if policy and policy not in self.emulations:
            self.emulations.append(policy)

    # -------------------------------------------------- deadline and client

    def client_gone(self) -> bool:
        transport = self.request.transport
        return transport is None or transport.is_closing()

    def remaining(self) -> float:
        return self.ends - time.monotonic()

    def before(self, step: str, done: str) -> None:
        """Raise instead of starting `step` when the client left or the deadline passed; `done` says what stands."""
        if self.client_gone():
            self.info.outcome = f"the client disconnected; {step} was not sent ({done})"
            raise ClientInputError(self.info.outcome, status=499)
        if self.remaining() <= 0:
            self.info.outcome = f"the request reached its {self.seconds:g}s deadline; {step} was not sent ({done})"
            raise UpstreamError(self.info.outcome, status=504)

    def sent(self, step: str, resp: UpstreamResponse) -> None:
        """After a step: if the client has left meanwhile, record what the step did (it was finished)."""
        if self.client_gone():
            data = resp.json() if resp.ok else None
            ident = data.get("id") if isinstance(data, dict) else None
            self.info.outcome = (f"{step} answered {resp.status}" + (f" (id {ident})" if ident else "")
                                 + " after the client disconnected")
