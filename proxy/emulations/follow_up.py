"""Fields v2 takes only after a create (locked, R12): the create, then a PATCH of the new resource; or an error
that says the create stood alone."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mappings.errors import UpstreamError

from proxy.failures import Failures
from proxy.forward import Plan, V2Request
from proxy.routes import SAFE_ID

if TYPE_CHECKING:
    from proxy.context import Call


class FollowUp:
    def __init__(self, failures: Failures) -> None:
        self.failures = failures

    async def run(self, call: Call, plan: Plan, created: dict[str, Any]) -> dict[str, Any]:
        """The PATCH after the create; the patched resource (or the created one when v2 answers without it)."""
        follow = plan.route.follow_up
        assert follow is not None and plan.follow_up is not None
        path = plan.follow_up.path
        for v2_name in follow.op.path_params.values():
            value = created.get(v2_name)
            if not isinstance(value, str) or not SAFE_ID.fullmatch(value):  # never PATCH /v2/pods/None
                raise UpstreamError(f"the v2 upstream created a resource without a usable {v2_name} ({value!r}); "
                                    f"{follow.label} was not sent")
            path = path.replace("{" + v2_name + "}", value)
        req = V2Request(plan.follow_up.method, path, body=plan.follow_up.body)
        fields = ", ".join(sorted(plan.follow_up.body or {}))
        call.before(f"{follow.label} ({fields})", f"created {created.get('id')}")
        try:
            got = await call.send(req, follow.op_id)
        except UpstreamError as exc:
            exc.within(f"created {created.get('id')}, but the follow-up {follow.label} failed")
            raise
        if not got.ok:
            err = self.failures.error_from(got, call, follow)
            ident = next((created.get(v) for v in follow.op.path_params.values()), None)
            raise err.within(f"created {ident}, but applying {fields} afterwards failed")
        call.sent(f"{follow.label} ({fields})", got)
        data = got.json()
        return data if isinstance(data, dict) and data.get("id") else created
