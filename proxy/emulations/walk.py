"""The fallback walk (R02): a v1 create that named several GPU types (or CPU flavors) tries them in order.

The next choice is tried only on an answer the mapping's `walk_on` says means "this choice cannot be had"
(capacity, no access to the pool); an answer its `wait_on` says means "not now" (429 with Retry-After) is waited
out and the same choice sent again, within the request's deadline; any other answer ends the walk and says where.
Before the first call, v1's default priority (gpuTypePriority: availability) ranks the choices by the mapping's
availability lookup. The plan is not changed: the walk works on its own copy of the choices and the body.
"""
from __future__ import annotations

import asyncio
import copy
from typing import TYPE_CHECKING, Any

from mappings.converters import get_path, set_path
from mappings.errors import ClientInputError, UpstreamError, V1bridgeError
from mappings.models import WalkAnswer, WalkWait
from mappings.records import retry_after

from proxy.failures import Failures
from proxy.forward import Plan, V2Request

if TYPE_CHECKING:
    from proxy.context import Call
    from proxy.upstream_answer import UpstreamResponse


class Walk:
    def __init__(self, m, v1_schemas: dict[str, Any], failures: Failures) -> None:
        self.failures = failures
        self.lookups = m.conventions.lookups
        # by the v2 path of the choice: when to move on and when to wait (policies.yaml walk_on, wait_on), and
        # how many choices v1 itself accepted (the v1 field's maxItems, else its enum's size, from v1.json)
        self.walk_on: dict[str, list[WalkAnswer]] = {}
        self.wait_on: dict[str, list[WalkWait]] = {}
        self.limits: dict[str, tuple[str, int]] = {}
        for request in m.requests.values():
            for name, spec in request.fields.items():
                policy = m.policies.get(spec.policy) if spec.policy else None
                if policy is None or not policy.walk_on or not spec.to:
                    continue
                self.walk_on[spec.to] = list(policy.walk_on)
                self.wait_on[spec.to] = list(policy.wait_on)
                prop = v1_schemas.get(request.v1_schema, {}).get("properties", {}).get(name, {})
                most = prop.get("maxItems") or len((prop.get("items") or {}).get("enum") or []) or None
                if most:
                    self.limits[spec.to] = (name, int(most))

    async def run(self, call: Call, plan: Plan) -> UpstreamResponse:
        """One call, or the walk over the plan's alternatives."""
        first = plan.request
        assert first is not None
        label = plan.route.op_id
        step = f"{first.method} {first.path}"
        if not plan.alternatives:
            call.before(step, "nothing was sent")
            # a large GET answer is spooled to a file, never held whole (offload.py)
            resp = await call.send(first, label, call.config.large_answer if first.method == "GET" else 0)
            call.sent(step, resp)
            return resp
        alternatives = {path: list(choices) for path, choices in plan.alternatives.items()}
        for path, choices in alternatives.items():
            limit = self.limits.get(path)
            if limit is not None and len(choices) > limit[1]:
                raise ClientInputError(f"{limit[0]} lists {len(choices)} entries; v1 accepted at most {limit[1]} "
                                       f"(one per type it knows)")
        body = first.body
        if plan.orderings:
            body = copy.deepcopy(body)
            await self._rank(call, plan, alternatives, body)
        request = V2Request(first.method, first.path, first.query, body)
        resp = await self._send(call, alternatives, request, label, step, "nothing was sent")
        if not self._walks_on(alternatives, resp):
            return resp
        tried: list[str] = []
        for path, choices in alternatives.items():
            tried.append(str(get_path(body, path)))
            for choice in choices:
                if str(choice) in tried:
                    continue
                attempt_body = copy.deepcopy(body)
                set_path(attempt_body, path, choice)
                attempt = V2Request(first.method, first.path, first.query, attempt_body)
                resp = await self._send(call, alternatives, attempt, label, f"the create with {choice}",
                                        f"{', '.join(tried)} had no capacity; nothing was created",
                                        (choice, f"the fallback stopped at {choice} after {', '.join(tried)} "
                                                 "had no capacity"))
                tried.append(str(choice))
                if not self._walks_on(alternatives, resp):
                    if not resp.ok:  # an answer that is not "cannot be had" ends the walk, and says where
                        raise self.failures.error_from(resp, call, plan.route).within(
                            f"the fallback stopped at {choice} after {', '.join(tried[:-1])} had no capacity")
                    return resp
        raise self.failures.error_from(resp, call, plan.route).within(
            f"no choice could be placed (tried {', '.join(tried)})")

    async def _send(self, call: Call, alternatives: dict[str, list[Any]], req: V2Request, label: str, step: str,
                    done: str, stopped: tuple[Any, str] | None = None) -> UpstreamResponse:
        """One choice: sent, and sent again after each "not now" answer the mapping says to wait out (W03).
        `stopped`: (choice, where the walk stands) for a call that failed without an answer, later in the walk."""
        waits = 0
        while True:
            call.before(step, done)
            try:
                resp = await call.send(req, label)
            except V1bridgeError as exc:
                if stopped is not None:
                    exc.within(stopped[1])
                    exc.message += f"; whether {stopped[0]} was placed is unknown"
                raise
            call.sent(step, resp)
            delay = self._wait(call, alternatives, resp, waits)
            if delay is None:
                return resp
            waits += 1
            await asyncio.sleep(delay)

    def _wait(self, call: Call, alternatives: dict[str, list[Any]], resp: UpstreamResponse, waits: int) -> float | None:
        """Seconds to wait before sending the same choice again, or None: the answer stands."""
        if resp.ok:
            return None
        for path in alternatives:
            for rule in self.wait_on.get(path, ()):
                if rule.status != resp.status or waits >= rule.max_waits:
                    continue
                seconds = retry_after(resp.headers.get(rule.header))
                if seconds is None or seconds >= call.remaining():  # never past the request's deadline
                    return None
                return seconds
        return None

    def _walks_on(self, alternatives: dict[str, list[Any]], resp: UpstreamResponse) -> bool:
        """Does this answer mean "this choice cannot be had" for one of the walks (policies.yaml walk_on)?"""
        if resp.ok:
            return False
        media = (resp.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        data = resp.json()
        detail = str(data.get("detail") or "") if isinstance(data, dict) else ""
        return any(rule.matches(resp.status, media, detail) for path in alternatives for rule in self.walk_on.get(path, ()))

    async def _rank(self, call: Call, plan: Plan, alternatives: dict[str, list[Any]], body: Any) -> None:
        """v1's default priority (gpuTypePriority: availability): walk the choices most available first,
        ranked by the mapping's lookup; the client's order breaks ties and stands if the ranking is unreadable."""
        for target, ordering in plan.orderings:
            spec = self.lookups[ordering.by]
            query = dict(spec.query)
            for param, path in ordering.query_from.items():
                value = get_path(body, path)
                if value is not None:
                    query[param] = str(value)
            try:
                got = await call.read(spec.path, query)
            except UpstreamError:
                continue
            value = got.json() if got.ok else None
            items = value.get(spec.key) if spec.key and isinstance(value, dict) else value
            if not isinstance(items, list):
                continue
            levels = {str(i.get(spec.index_by)): get_path(i, spec.value) if spec.value else i
                      for i in items if isinstance(i, dict)}
            rank = {level: n for n, level in enumerate(ordering.rank)}
            ordered = sorted(alternatives[target], key=lambda c: rank.get(levels.get(str(c)), len(rank)))
            alternatives[target] = ordered
            set_path(body, target, ordered[0])

