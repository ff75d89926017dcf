"""The execute stage of the v1 pipeline: the v2 calls of one plan, one module per emulation.

- `walk`: one call, or the fallback walk over GPU types / CPU flavors (R02), waiting out "not now" answers;
- `steps`: an operation served as several calls in order (reset = stop, then start; R01);
- `follow_up`: fields v2 takes only after a create, sent as a PATCH of the new resource (R12);
- `lookups`: the reads the planner declares it needs, and those behind include* flags and joins;
- `pages`: every page of a cursor-paginated v2 list (Q30).

Each either completes or raises an error that says what happened; none is reported as success after a failure.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from proxy.emulations.follow_up import FollowUp
from proxy.emulations.lookups import Lookups
from proxy.emulations.pages import Pages
from proxy.emulations.steps import Steps
from proxy.emulations.walk import Walk
from proxy.failures import Failures, not_an_answer

if TYPE_CHECKING:
    from proxy.backward import Backward
    from proxy.config import ProxyConfig
    from proxy.context import Call
    from proxy.forward import PageSizes, Plan
    from proxy.routes import RouteTable
    from proxy.upstream_answer import UpstreamResponse


class Outcome:
    """What executing a plan gave: the v2 answer to translate, and the object to translate instead of its body
    when a follow-up replaced it."""

    __slots__ = ("resp", "followed")

    def __init__(self, resp: UpstreamResponse, followed: dict[str, Any] | None = None) -> None:
        self.resp = resp
        self.followed = followed


class Emulations:
    def __init__(self, table: RouteTable, config: ProxyConfig, backward: Backward, failures: Failures,
                 v1_schemas: dict[str, Any], page_sizes: PageSizes) -> None:
        m = table.mappings
        self.pages = Pages(m.conventions.pagination, backward, page_sizes)
        self.lookups = Lookups(table, config, backward, failures, self.pages)
        self.walk = Walk(m, v1_schemas, failures)
        self.steps = Steps(config, backward, failures)
        self.follow_up = FollowUp(failures)

    async def execute(self, call: Call, plan: Plan) -> Outcome:
        if plan.steps:
            return Outcome(await self.steps.run(call, plan))
        resp = await self.walk.run(call, plan)
        if plan.follow_up is not None and resp.ok:
            route = plan.route
            assert plan.request is not None
            problem = not_an_answer(route, resp, f"{plan.request.method} {plan.request.path}", creates=route.creates)
            if problem is not None:
                raise problem
            created = resp.json()
            if isinstance(created, dict):
                return Outcome(resp, await self.follow_up.run(call, plan, created))
        return Outcome(resp)
