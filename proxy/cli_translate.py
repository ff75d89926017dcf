"""`v1bridge translate METHOD PATH [BODY]`: the v2 request the proxy would send, without calling anything.
`v1bridge translate 'mutation { podStop(...) { id } }'` (or `POST /graphql BODY`): the v2 calls of each GraphQL
operation the document selects (proxy/graphql/translate.py).

Exit codes: 0 the request would reach v2; 1 the proxy would refuse it itself (a v1 error answer: a bad value,
a policy under --strict); 2 no such v1 operation (404/405), or a usage error. The plan is printed in every case."""
from __future__ import annotations

import argparse
import json
import sys
from urllib.parse import parse_qsl, urlsplit

from mappings import default_mappings
from mappings.errors import V1bridgeError
from mappings.translate import Catalog

from proxy.forward import Forward
from proxy.routes import RouteTable


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("method", help="HTTP method of the v1 request, or a GraphQL document ('query { myself "
                                       "{ pods { id } } }', or @FILE.graphql)")
    parser.add_argument("path", nargs="?", default=None,
                        help="v1 path, with or without /v1, query string allowed (/v1/pods?desiredStatus=RUNNING); "
                             "/graphql takes a GraphQL request body ({\"query\", \"variables\"})")
    parser.add_argument("body", nargs="?", help="JSON body, or @FILE, or - for stdin")
    parser.add_argument("--strict", action="append", default=[], metavar="POLICY", help="as for `v1bridge proxy`")
    parser.add_argument("--emulate", action="append", default=[], metavar="POLICY",
                        help="emulate this policy even under --strict all; repeatable")
    parser.add_argument("--variables", default=None, metavar="JSON",
                        help="the variables of a GraphQL document, as a JSON object")


def translate(method: str, target: str, body: object = None, strict: frozenset[str] = frozenset(),
              emulate: frozenset[str] = frozenset()) -> dict:
    """The plan as a dict; never raises for a client error (it is reported as the v1 answer)."""
    from proxy.config import ProxyConfig

    m = default_mappings()
    table = RouteTable(m)
    forward = Forward(table, ProxyConfig(strict=strict, emulate=emulate, fingerprint_salt="-").strict_map(list(m.policies)))
    parts = urlsplit(target)
    path = parts.path
    prefix = m.conventions.v1_prefix
    if path.startswith(prefix + "/"):
        path = path[len(prefix):]
    if path.startswith(m.conventions.v2_prefix + "/"):
        return {"v1": None, "v2": {"method": method.upper(), "path": path}, "passthrough": True, "emulations": []}
    found = m.match_v1(method, path)
    if found is None:
        allowed = m.methods_for_path(path)
        status = 405 if allowed else 404
        return {"v1": f"{method.upper()} {path}", "answer": {"status": status, "message": "no such v1 operation",
                                                              **({"allow": allowed} if allowed else {})}}
    op, params = found
    route = table[op.id]
    query = parse_qsl(parts.query, keep_blank_values=True)
    try:
        forward.check(route, query, body)
    except V1bridgeError as exc:
        return {"v1": route.label, "operation": op.id, "answer": {"status": exc.status, "message": exc.message}}
    # the proxy's planner; each lookup it declares is named, and answered with a stand-in: an empty catalog,
    # a template without a volume, an empty current state
    lookups: list[dict] = []
    planning = forward.planning(route, params, query, body)
    try:
        need = next(planning)
        while True:
            lookups.append(need.describe())
            need = planning.send(_STAND_INS[need.what]())
    except StopIteration as done:
        plan = done.value
    except Exception as exc:
        if any(lookup["what"] == "catalog" for lookup in lookups):  # the catalog decides; say so and stop
            return {"v1": route.label, "operation": op.id, "needs_lookup": lookups}
        if not isinstance(exc, V1bridgeError):
            raise
        return {"v1": route.label, "operation": op.id, "answer": {"status": exc.status, "message": exc.message}}
    out = plan.describe()
    if lookups:
        out["needs_lookup"] = lookups
    return out


_STAND_INS = {"catalog": Catalog, "template": dict, "current": dict}


def _graphql(args: argparse.Namespace, body: object) -> int:
    from proxy.graphql.translate import translate as translate_graphql

    if isinstance(body, dict):
        document, variables, name = body.get("query"), body.get("variables"), body.get("operationName")
    else:
        document, name = args.method, None
        if document.startswith("@"):
            with open(document[1:], encoding="utf-8") as handle:
                document = handle.read()
        try:
            variables = json.loads(args.variables) if args.variables else None
        except json.JSONDecodeError as exc:
            print(f"v1bridge translate: --variables is not valid JSON: {exc}", file=sys.stderr)
            return 2
    if not isinstance(document, str):
        print("v1bridge translate: the GraphQL body has no `query` string", file=sys.stderr)
        return 2
    result = translate_graphql(document, variables if isinstance(variables, dict) else None, name,
                               frozenset(args.strict), frozenset(args.emulate))
    print(json.dumps(result, indent=2))
    return 1 if "errors" in result["graphql"] else 0  # as for v1: 1 when the proxy would refuse the request


def _is_document(text: str) -> bool:
    return "{" in text or text.endswith(".graphql") or text.endswith(".gql")


def run(args: argparse.Namespace) -> int:
    body = None
    if args.body is not None:
        raw = args.body
        if raw == "-":
            raw = sys.stdin.read()
        elif raw.startswith("@"):
            with open(raw[1:], encoding="utf-8") as handle:
                raw = handle.read()
        try:
            body = json.loads(raw)
        except json.JSONDecodeError as exc:
            print(f"v1bridge translate: the body is not valid JSON: {exc}", file=sys.stderr)
            return 2
    if args.path is None and _is_document(args.method):
        return _graphql(args, None)
    if args.path is None:
        print("v1bridge translate: give METHOD PATH [BODY], or a GraphQL document", file=sys.stderr)
        return 2
    if urlsplit(args.path).path.rstrip("/") == "/graphql":
        return _graphql(args, body)
    result = translate(args.method, args.path, body, frozenset(args.strict), frozenset(args.emulate))
    print(json.dumps(result, indent=2))
    answer = result.get("answer")
    if answer is None:
        return 0
    if answer["status"] in (404, 405):
        print(f"v1bridge translate: {result['v1']}: {answer['message']}", file=sys.stderr)
        return 2
    return 1
