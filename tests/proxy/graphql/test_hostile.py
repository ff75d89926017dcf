"""Hostile documents: deep nesting, thousands of aliases, a 10 MB query, 10,000 fields. Each is a bounded error
in GraphQL's shape (never a 5xx), answered quickly, and other clients are served meanwhile."""
from __future__ import annotations

import asyncio
import time

import pytest

from tests.proxy.graphql.conftest import graphql_app

AUTH = {"Authorization": "Bearer key-alice"}


@pytest.fixture
async def client(aiohttp_client, proxy_config):
    return await aiohttp_client(graphql_app(proxy_config))


async def post(client, query: str):
    started = time.monotonic()
    resp = await client.post("/graphql", json={"query": query}, headers=AUTH)
    body = await resp.json()
    return resp.status, body, time.monotonic() - started


def code(body) -> str:
    return body["errors"][0]["extensions"]["code"]


@pytest.mark.parametrize("query, status, expected", [
    # 5,000 levels of braces: refused before graphql-core's recursive parser sees it
    ("{ myself " + "{ pods " * 5000 + "{ id" + " }" * 5002, 400, "QUERY_TOO_COMPLEX"),
    # thousands of aliases of one field: past the token bound (each costs 6 tokens)
    ("{ " + " ".join(f"a{i}: myself {{ id }}" for i in range(5000)) + " }", 400, "QUERY_TOO_LARGE"),
    # hundreds of aliases within the token bound: past the alias bound, before validation
    ("{ " + " ".join(f"a{i}: myself {{ id }}" for i in range(700)) + " }", 400, "QUERY_TOO_COMPLEX"),
    # 10,000 fields (the same one selected again and again): past the token bound
    ("{ myself { pods { " + "id " * 10000 + "} } }", 400, "QUERY_TOO_LARGE"),
    # 1,200 fields within the token bound: past the field bound
    ("{ myself { pods { " + "id " * 1200 + "} } }", 400, "QUERY_TOO_COMPLEX"),
    # a query text past its size bound (comments are text too)
    ("{ myself { pods { id } } } " + "# padding\n" * 20000, 400, "QUERY_TOO_LARGE"),
    # invalid fields nested past the depth bound: refused before validation
    ("{ myself { pods { " + "a { " * 20 + "b" + " }" * 20 + " } } }", 400, "QUERY_TOO_COMPLEX"),
])
async def test_hostile_documents_are_bounded_errors(client, query, status, expected):
    got, body, took = await post(client, query)
    assert got == status, body
    assert code(body) == expected and "data" not in body
    assert took < 5


async def test_a_10_mb_query_is_a_413_in_graphql_shape(client):
    resp = await client.post("/graphql", data=b'{"query": "' + b"{ myself { id } }" + b" " * (10 * 1024 * 1024) + b'"}',
                             headers={**AUTH, "Content-Type": "application/json"})
    assert resp.status == 413
    assert (await resp.json())["errors"][0]["extensions"]["code"] == "PAYLOAD_TOO_LARGE"


async def test_depth_counts_through_fragments_and_a_cycle_is_a_validation_error(client):
    fragments = " ".join(f"fragment F{i} on Pod {{ x{i} {{ ...F{i + 1} }} }}" for i in range(15))
    query = "{ myself { pods { ...F0 } } } " + fragments + " fragment F15 on Pod { id }"
    got, body, _ = await post(client, query)
    assert got == 400 and code(body) == "QUERY_TOO_COMPLEX" and "deeper than 12" in body["errors"][0]["message"]
    cycle = "{ myself { pods { ...A } } } fragment A on Pod { machine { gpuTypeId } ...B } fragment B on Pod { ...A }"
    got, body, _ = await post(client, cycle)
    assert got == 400 and code(body) == "GRAPHQL_VALIDATION_FAILED"
    assert "cannot spread fragment" in body["errors"][0]["message"].lower()


async def test_other_clients_are_served_while_hostile_documents_arrive(client):
    hostile = ["{ " + " ".join(f"a{i}: myself {{ id }}" for i in range(700)) + " }" + " " * n for n in range(8)]
    ordinary = [post(client, "{ myself { pods { id } } }") for _ in range(8)]
    results = await asyncio.gather(*(post(client, q) for q in hostile), *ordinary)
    assert all(status == 400 for status, _, _ in results[:8])
    assert all(status == 200 and body["data"] == {"myself": {"pods": []}} for status, body, _ in results[8:])
    assert max(took for _, _, took in results) < 10


async def test_the_prepared_document_is_cached_per_query_text(client, proxy_config):
    app = client.server.app
    endpoint = next(r for r in app.router.routes() if r.name == "graphql").handler.__self__
    query = "{ myself { pods { id name } } }"
    for _ in range(3):
        got, _, _ = await post(client, query)
        assert got == 200
    assert len([k for k in endpoint.documents._cache if k[0] == query]) == 1
    first = endpoint.documents.prepare(query, None)
    assert endpoint.documents.prepare(query, None) is first
