"""v2 answers that are failures, turned into the errors the v1 caller sees (every stage of the pipeline uses these).

A v2 problem keeps its status (with v1's number where the mapping says v1 answered another, R-status policies)
and its message in the client's field names; a 5xx is a gateway error; a 2xx the proxy cannot translate is the
upstream's failure (502 naming the call), never a success with a null, a foreign body or an invented id.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from multidict import istr

from mappings.errors import UpstreamError

from proxy.routes import Route
from proxy.upstream_answer import BODY_HEADERS, HOP_BY_HOP, UpstreamResponse, hop_filter

if TYPE_CHECKING:
    from proxy.backward import Backward
    from proxy.context import Call
    from proxy.forward import Forward

# Upstream headers a v1 answer never copies: recomputed (body), or set by this server.
_DROP_FROM_UPSTREAM = BODY_HEADERS | frozenset({"date", "server", "content-disposition"})
_DROP_ALL = _DROP_FROM_UPSTREAM | HOP_BY_HOP


class Failures:
    def __init__(self, forward: Forward, backward: Backward) -> None:
        self.forward = forward
        self.backward = backward
        # by request map: the create refusals v1 said in words of its own (policies.yaml walk_on v1_message)
        m = backward.m
        self.v1_words: dict[str, list] = {}
        for request_id, request in m.requests.items():
            for spec in request.fields.values():
                policy = m.policies.get(spec.policy) if spec.policy else None
                for rule in policy.walk_on if policy is not None else ():
                    if rule.v1_message and rule not in self.v1_words.setdefault(request_id, []):
                        self.v1_words[request_id].append(rule)

    def error_from(self, resp: UpstreamResponse, call: Call | None, route: Route) -> UpstreamError:
        """A v2 answer that is not a success, as the v1 error (`call` is None for a read made before the plan)."""
        plan = call.plan if call is not None else None
        message = self.backward.problem_message(resp.body, plan, resp.status)
        words = self._v1_words(resp, route)
        if words:  # v1's words first, v2's after them (a loop may match either)
            message = f"{words} ({message})"
        status = resp.status
        if status >= 500:
            # the upstream failed, not the request: a gateway error, named as such (504 stays a timeout)
            gateway = 504 if status == 504 else 502
            return UpstreamError(f"the v2 upstream failed ({status}): {message}", status=gateway, upstream_status=status,
                                 headers=upstream_headers(resp))
        v1_status = route.status_errors.get(status)
        # strict: v2's status as is (an error either way; emulating only restores v1's number)
        if v1_status is not None and route.status_policy and not self.forward.is_strict(route.status_policy):
            if call is not None:
                call.engage(route.status_policy)
            status = v1_status
        return UpstreamError(message, status=status, upstream_status=resp.status, headers=upstream_headers(resp))

    def _v1_words(self, resp: UpstreamResponse, route: Route) -> str | None:
        """v1's own message for a refusal v1 clients match by its words (no capacity for a create)."""
        rules = self.v1_words.get(route.op.request or "")
        if not rules:
            return None
        media = (resp.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        data = resp.json()
        detail = str(data.get("detail") or "") if isinstance(data, dict) else ""
        return next((r.v1_message for r in rules if r.matches(resp.status, media, detail)), None)

    def lookup_error(self, what: str, got: UpstreamResponse) -> UpstreamError:
        """A read the proxy makes on the client's behalf failed. Refused credentials or rate (401, 403, 429) are
        the client's to see as v2 said them; anything else is the upstream's failure (502) naming the read."""
        if got.status in (401, 403, 429):
            return UpstreamError(self.backward.problem_message(got.body, None, got.status), status=got.status,
                                 upstream_status=got.status, headers=upstream_headers(got))
        return UpstreamError(f"{what} could not be read from v2 (status {got.status})", upstream_status=got.status)


def kind(resp: UpstreamResponse, data: Any) -> str:
    """What a v2 body is, for a message: an empty body, a body that is not JSON, or a JSON <type>."""
    if not resp.body.strip():
        return "an empty body"
    if data is None:
        return f"a body that is not JSON ({resp.headers.get('Content-Type', 'no content type')})"
    return f"a JSON {type(data).__name__}"


def not_an_answer(route: Route, resp: UpstreamResponse, call: str, *, creates: bool = False) -> UpstreamError | None:
    """A 2xx the proxy cannot translate is the upstream's failure (502 naming the call), never a success with a
    null, a foreign body or an invented id: empty or non-JSON where JSON is expected, an object that is not one,
    a list that is not a list of objects, a created resource without an id."""
    shape = route.op.shape
    if route.op.response is None or shape in ("empty", "raw"):
        return None
    data = resp.json()
    expected = "an object" if shape in ("object", "action") else "a list"
    problem: str | None = None
    if shape in ("object", "action"):
        if not isinstance(data, dict):
            problem = f"{kind(resp, data)} where {expected} was expected"
        elif creates and not (isinstance(data.get("id"), str) and data["id"]):
            problem = f"a created object without an id ({data.get('id')!r})"
    elif shape in ("list", "billing"):
        key = route.list_key or route.records_key
        items = data.get(key) if isinstance(data, dict) and key else data
        where = f" under {key!r}" if isinstance(data, dict) and key else ""
        if isinstance(items, list) and not all(isinstance(i, dict) for i in items):
            problem = f"a list{where} whose entries are not all objects"
        elif not isinstance(items, list):
            what = kind(resp, data) if not isinstance(data, dict) else \
                ("no list" if items is None else f"a JSON {type(items).__name__}") + where
            problem = f"{what} where {expected} was expected"
    if problem is None:
        return None
    return UpstreamError(f"the v2 upstream answered {resp.status} to {call} ({route.op_id}) with {problem}")


def upstream_headers(resp: UpstreamResponse) -> dict[str, str]:
    """End-to-end headers of the v2 answer worth keeping (request id, rate limits, Retry-After), the first value of
    each name, keyed by istr (the v1 answer's CIMultiDict takes them without folding their case again)."""
    headers = resp.headers
    out: dict[str, str] = {}
    kept = _KEPT
    connection = False
    for name, value in headers.items():
        key = kept.get(name, _UNSEEN)
        if key is _UNSEEN:
            if len(kept) > 1024:
                kept.clear()
            lowered = name.lower()
            key = kept[name] = (_CONNECTION if lowered == "connection" else None if lowered in _DROP_ALL
                                else istr(name))
        if key is None:
            continue
        if key is _CONNECTION:
            # hop-by-hop names listed in Connection are dropped as well (rare: usually its one value is keep-alive
            # or close, itself dropped)
            if connection or value.strip().lower() not in _PLAIN_CONNECTION:
                return dict(hop_filter(headers, _DROP_FROM_UPSTREAM))
            connection = True
        elif key not in out:
            out[key] = value
    return out


_PLAIN_CONNECTION = frozenset({"keep-alive", "close"})
_UNSEEN = object()
_CONNECTION = object()
# header name as received -> None (never in a v1 answer), _CONNECTION, or the name as an istr
_KEPT: dict[str, Any] = {}
