"""An operation served as several v2 calls in order (reset = stop, then start; R01).

A failed step is answered with the step and the state the resource was left in. A later step refused with 409
while the previous transition settles is retried, at most `step_retries` times and within reset_wait_seconds and
the request's deadline.
"""
from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from mappings.converters import get_path
from mappings.errors import UpstreamError, V1bridgeError

from proxy.failures import Failures, not_an_answer
from proxy.forward import Plan

if TYPE_CHECKING:
    from proxy.backward import Backward
    from proxy.config import ProxyConfig
    from proxy.context import Call
    from proxy.upstream_answer import UpstreamResponse


class Steps:
    def __init__(self, config: ProxyConfig, backward: Backward, failures: Failures) -> None:
        self.config = config
        self.backward = backward
        self.failures = failures

    async def run(self, call: Call, plan: Plan) -> UpstreamResponse:
        route = plan.route
        total = len(plan.steps)
        resp: UpstreamResponse | None = None
        for index, (step_req, step_route) in enumerate(zip(plan.steps, route.steps), start=1):
            ends = time.monotonic() + self.config.reset_wait_seconds
            delay = 0.05
            failure: V1bridgeError | None = None
            done = ", ".join(s.label for s in route.steps[: index - 1]) or "nothing"
            step = f"step {index}/{total} ({step_route.label})"
            attempts = 0
            while True:
                try:
                    call.before(step, f"{done} succeeded")
                except V1bridgeError as exc:
                    if exc.status == 499:
                        raise
                    failure = exc
                    break
                attempts += 1
                try:
                    resp = await call.send(step_req, step_route.op_id)
                except UpstreamError as exc:  # unreachable / too slow: still name the step and the state left
                    failure = exc
                    break
                call.sent(step, resp)
                # a later step may be refused while the previous transition settles
                if (index > 1 and resp.status == 409 and attempts <= self.config.step_retries
                        and time.monotonic() + delay < ends and not call.client_gone()):
                    await asyncio.sleep(max(0.0, min(delay, call.remaining())))  # the deadline is checked next
                    delay = min(delay * 2, 1.0)
                    continue
                break
            if failure is None and resp is not None and resp.ok:
                failure = not_an_answer(step_route, resp, f"{step_route.v2_method} {step_req.path}")
            if failure is not None or not resp.ok:
                err = failure or self.failures.error_from(resp, call, route)
                state = await self._state(call)
                err.within(f"{route.label} failed at step {index}/{total} ({step_route.label}) after {done} succeeded")
                err.message += f"; {state}"
                raise err
        assert resp is not None
        return resp

    async def _state(self, call: Call) -> str:
        route = call.route
        if route.current is None or route.state_field is None:
            return "its state is unknown"
        if call.remaining() <= 0:  # nothing is sent past the deadline, not even this read
            return "its state was not read (the request's deadline had passed)"
        try:
            got = await call.read(route.current.v2_url_path(call.params))
        except UpstreamError:
            return "its state could not be read"
        if not got.ok:
            return f"its state could not be read (status {got.status})"
        obj = got.json() or {}
        v1_name, v2_name = route.state_field
        v1_value = self.backward.translators.response(route.op.response, obj).get(v1_name)
        return f"the resource was left with {v1_name} {v1_value} (v2 {v2_name} {get_path(obj, v2_name)})"
