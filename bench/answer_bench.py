"""The answer stage alone: what one v1 answer costs from the v2 bytes to the v1 bytes, and its pieces.

    .venv/bin/python bench/answer_bench.py [--iterations 3000] [--routes list,get,stop]

For each benchmarked route, the v2 answer captured from the sandbox (bench/fast_upstream.py) goes through
`Answer.run` (proxy/answer.py) as the proxy runs it, without a server or an upstream call (these routes answer
through their typed reader, mappings/typed.py), and each piece is timed alone: the typed reader (its decode and
its translation apart; its serialisation is the dict path's), and the dict
path's pieces it stands in for (taken when the typed reader gives up): the JSON parse, the answer check (`not_an_answer`), the backward translation (the compiled response map,
its converters included), the serialisation, the kept upstream headers and the aiohttp response. Beside them,
the naive translator's parse + renames + dump (bench/naive_translator.py) over the same bytes.

CPU time (`time.process_time`), best of 7 runs of N iterations: a loaded machine disturbs this far less than
req/s. These are the in-process figures behind the README's "Where the time goes" (bench/hotpath.py gives the
per-request figures of a running proxy).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import orjson  # noqa: E402
from aiohttp import web  # noqa: E402
from multidict import CIMultiDict, CIMultiDictProxy  # noqa: E402

import fast_upstream as fu  # noqa: E402
import naive_translator  # noqa: E402
from mappings.loader import default_mappings  # noqa: E402
from mappings.translate import ResponseContext  # noqa: E402
from proxy.config import ProxyConfig  # noqa: E402
from proxy.emulations import Outcome  # noqa: E402
from proxy.failures import not_an_answer, upstream_headers  # noqa: E402
from proxy.routes import RouteTable  # noqa: E402
from proxy.upstream_answer import UpstreamResponse  # noqa: E402
from proxy.v1 import V1Service  # noqa: E402

# route -> (v1 operation id, index of its v2 answer in Captured.answers)
ROUTES = {"list": ("pods.list", 0), "get": ("pods.get", 1), "stop": ("pods.stop", 2)}


class _Call:
    """What Answer.run asks of the per-request context on these routes (the status policy's engage)."""

    def __init__(self) -> None:
        self.emulations: list[str] = []

    def engage(self, policy: str | None) -> None:
        if policy and policy not in self.emulations:
            self.emulations.append(policy)


def best_us(fn: Callable[[], Any], iterations: int, runs: int = 7) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.process_time()
        for _ in range(iterations):
            fn()
        best = min(best, (time.process_time() - started) / iterations * 1e6)
    return best


def pieces(service: V1Service, captured: fu.Captured, route_name: str) -> dict[str, Callable[[], Any]]:
    """The answer stage of one route and its pieces, each a no-argument callable."""
    op_id, index = ROUTES[route_name]
    route = service.table.routes[op_id]
    answer = captured.answers[index]
    # the headers a v2 server sends (the captured ones, and those nginx adds)
    headers = CIMultiDictProxy(CIMultiDict([*answer.headers, ("Content-Length", str(len(answer.body))),
                                            ("Date", "Mon, 23 Nov 2026 19:00:00 GMT"), ("Server", "nginx"),
                                            ("Connection", "keep-alive")]))
    params = {"podId": captured.pod_id} if "{podId}" in route.aiohttp_path else {}
    planning = service.forward.planning(route, params, [], None)
    try:
        next(planning)
        raise SystemExit(f"{op_id}: the plan needs a lookup; not an answer-stage benchmark")
    except StopIteration as done:
        plan = done.value
    data = orjson.loads(answer.body)
    ctx = ResponseContext()
    v1 = service.backward.translate(plan, data, ctx)
    v1_bytes = orjson.dumps(v1)
    kept = upstream_headers(UpstreamResponse(answer.status, headers, answer.body))
    naive = naive_translator.pod
    naive_items: Callable[[Any], Any] = (lambda d: [naive(p) for p in d["pods"]]) if route_name == "list" else naive

    def fresh() -> UpstreamResponse:
        return UpstreamResponse(answer.status, headers, answer.body)

    def parsed() -> UpstreamResponse:
        resp = fresh()
        resp._parsed = data
        return resp

    def run(resp: UpstreamResponse) -> web.Response:
        coro = service.answer.run(_Call(), plan, Outcome(resp))  # type: ignore[arg-type]
        try:
            coro.send(None)
        except StopIteration as done:
            return done.value
        raise RuntimeError(f"{op_id}: the answer stage awaited (a page or a lookup): not measured here")

    call = f"{route.v2_method} {route.v2_path}"
    reader = service.answer.typed[op_id]
    pagination = service.answer.pages.pagination
    page_keys = (route.list_key, pagination.block, pagination.more, pagination.next, route.paginated)
    if route.list_key:
        decoder = reader.page_decoder(*page_keys)
        typed_items = getattr(decoder.decode(answer.body), route.list_key)
        typed: Callable[[], Any] = lambda: reader.read_page(answer.body, *page_keys).items
        decode: Callable[[], Any] = lambda: decoder.decode(answer.body)
        translate: Callable[[], Any] = lambda: [reader.translate(item) for item in typed_items]
    else:
        typed_object = reader.object_decoder.decode(answer.body)
        typed = lambda: reader.answer_object(answer.body)
        decode = lambda: reader.object_decoder.decode(answer.body)
        translate = lambda: reader.translate(typed_object)
    return {
        "answer stage, from the v2 bytes": lambda: run(fresh()),
        "  typed reader: decode, translate, dump": typed,
        "    msgspec decode into the structs": decode,
        "    translation from the structs": translate,
        "  JSON parse (orjson.loads)": lambda: orjson.loads(answer.body),
        "  answer check (not_an_answer)": lambda: not_an_answer(route, parsed(), call, creates=route.creates),
        "  backward translation": lambda: service.backward.translate(plan, data, ctx),
        "  serialise (orjson.dumps)": lambda: orjson.dumps(v1),
        "  kept upstream headers": lambda: upstream_headers(fresh()),
        "  aiohttp response": lambda: web.Response(status=200, body=v1_bytes, content_type="application/json",
                                                   headers=kept),
        "naive: parse, renames, dump": lambda: orjson.dumps(naive_items(orjson.loads(answer.body))),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=3000)
    parser.add_argument("--routes", default="list,get,stop")
    args = parser.parse_args(argv)
    captured = fu.capture()
    table = RouteTable(default_mappings())
    service = V1Service(table, ProxyConfig(upstream="http://127.0.0.1:9"), lambda: None)
    load = os.getloadavg()[0]
    print(f"answer stage, CPU µs per answer (process_time, best of 7 x {args.iterations}); load {load:.2f}")
    for name in args.routes.split(","):
        print(f"\n{name}: {ROUTES[name][0]} ({len(captured.answers[ROUTES[name][1]].body):,} bytes of v2 JSON)")
        for label, fn in pieces(service, captured, name).items():
            print(f"  {label:<36} {best_us(fn, args.iterations):8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
