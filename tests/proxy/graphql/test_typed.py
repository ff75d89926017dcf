"""Typed reading of a v2 answer for a selection (proxy/graphql/typed.py): the same `data` as the exact completion.

Each v2 page goes through the typed read of a selection (structs of only the keys it reads, the completer over
them) and through the exact completion over the dicts orjson gives (views.py `complete`). When the typed read
answers, its answer equals the exact one and the exact one has no error; when a value is one only the exact path
answers (another type, a null where the schema forbids it, an integer JSON cannot write), it gives up (None).
"""
from __future__ import annotations

import copy
import json
from typing import Any

import orjson
import pytest
from graphql import GraphQLObjectType

from mappings import default_mappings
from proxy.graphql.schema import Documents, schema
from proxy.graphql.views import Views

from tests.mappings.tools import CPU_POD, GPU_POD

M = default_mappings()
SCHEMA = schema()
VIEWS = Views(M, SCHEMA)
DOCUMENTS = Documents(M.graphql.limits, 10**6)
PAGE = M.conventions.pagination

# the runpod SDK 1.12.0's get_pods() document (runpod/api/queries/pods.py)
SDK_PODS = ("query myPods { myself { pods { id containerDiskInGb costPerHr desiredStatus dockerArgs dockerId env "
            "gpuCount imageName lastStatusChange machineId memoryInGb name podType port ports uptimeSeconds vcpuCount "
            "volumeInGb volumeMountPath runtime { ports { ip isIpPublic privatePort publicPort type } } "
            "machine { gpuDisplayName } } } }")
ALIASED = "{ myself { pods { a: id b: id s: desiredStatus machine { location t: __typename } __typename } } }"
ENDPOINTS = ("{ myself { endpoints { id name gpuIds networkVolumeId locations scalerType scalerValue workersMin "
             "env { key value } } } }")


def _field(query: str, container: str, field: str) -> tuple[Any, Any, list[Any]]:
    prepared = DOCUMENTS.prepare(query, None)
    root = VIEWS.collect(prepared, SCHEMA.query_type, (prepared.operation,), None)
    user = SCHEMA.query_type.fields[container].type
    assert isinstance(user, GraphQLObjectType)
    nodes = VIEWS.collect(prepared, user, root[container], None)[field]
    return prepared, user.fields[field].type, nodes


def _both(query: str, field: str, records: list[Any], list_key: str) -> tuple[Any, Any, list[Any]]:
    prepared, gtype, nodes = _field(query, "myself", field)
    typed = VIEWS.typed(prepared, gtype, nodes)
    assert typed is not None
    body = json.dumps({list_key: records, PAGE.block: {PAGE.more: False, PAGE.next: None}}).encode()
    got = typed.read_page(body, list_key, PAGE.block, PAGE.more, PAGE.next, True)
    errors: list[Any] = []
    exact = VIEWS.complete(prepared, gtype, nodes, orjson.loads(body)[list_key], [field], None, errors)
    return (None if got is None else orjson.loads(orjson.dumps(got))), exact, errors


def _pod(**changes: Any) -> dict[str, Any]:
    pod = copy.deepcopy(GPU_POD)
    pod.update(changes)
    return pod


@pytest.mark.parametrize("query", [SDK_PODS, ALIASED])
@pytest.mark.parametrize("records", [
    [GPU_POD, CPU_POD],
    [],
    [_pod(cost=1)],  # an integral cost is a Float
    [_pod(gpu=None, runtime={}), _pod(mounts={})],
    [_pod(runtime={"ports": []}), _pod(env={"A": "1", "B": "x=y"}, ports=[])],
    [_pod(status="TERMINATED"), _pod(status="SOMETHING_NEW")],  # a v2 status outside the enum: the exact path
], ids=["gpu-and-cpu", "empty", "int-cost", "nulls-and-empties", "empty-lists", "statuses"])
def test_typed_pods_answer_as_the_exact_completion(query, records):
    got, exact, errors = _both(query, "pods", records, "pods")
    if errors:
        assert got is None
    else:
        assert got == exact


@pytest.mark.parametrize("change", [
    {"id": 5},  # another type where String is read: the exact path coerces it
    {"id": None},  # null in a non-null field: the exact path names it
    {"disk": 2**70},  # an integer JSON answers cannot hold here
    {"disk": True},
    {"runtime": {"ports": "22/tcp"}},  # a list where a string is: the exact path makes it a list of one
    {"gpu": "NVIDIA A40"},
], ids=["int-id", "null-id", "huge-int", "bool-int", "string-list", "string-object"])
def test_values_only_the_exact_path_answers_are_left_to_it(change):
    got, exact, _ = _both(SDK_PODS, "pods", [_pod(**change)], "pods")
    assert got is None
    assert exact is not None


def test_the_typed_read_decodes_only_what_the_selection_reads():
    prepared, gtype, nodes = _field("{ myself { pods { id machine { gpuDisplayName } } } }", "myself", "pods")
    typed = VIEWS.typed(prepared, gtype, nodes)
    assert typed is not None
    item = typed.value_type.__args__[0]
    assert item.__struct_fields__ == ("id", "gpu")
    assert item.__annotations__["gpu"].__args__[0].__struct_fields__ == ("id",)


def test_endpoints_read_typed_and_the_same():
    endpoint = {"id": "e1", "name": "n", "gpu": {"pools": ["AMPERE_16", "ADA_24"], "count": 1},
                "networkVolumes": ["vol1"], "dataCenterIds": ["EU-RO-1", "US-TX-3"],
                "scaling": {"type": "QUEUE_DELAY", "queueDelay": 4}, "workers": {"min": 0, "max": 3},
                "env": {"A": "1"}, "ssh": {"ignored": True}}
    got, exact, errors = _both(ENDPOINTS, "endpoints", [endpoint, {**endpoint, "networkVolumes": []}], "endpoints")
    assert errors == [] and got == exact
    assert got[0] == {"id": "e1", "name": "n", "gpuIds": "AMPERE_16,ADA_24", "networkVolumeId": "vol1",
                      "locations": "EU-RO-1,US-TX-3", "scalerType": "QUEUE_DELAY", "scalerValue": 4, "workersMin": 0,
                      "env": [{"key": "A", "value": "1"}]}
    assert got[1]["networkVolumeId"] is None


def test_a_page_with_more_to_follow_is_left_to_the_dict_path():
    prepared, gtype, nodes = _field("{ myself { pods { id } } }", "myself", "pods")
    typed = VIEWS.typed(prepared, gtype, nodes)
    more = orjson.dumps({"pods": [GPU_POD], PAGE.block: {PAGE.more: True, PAGE.next: "c2"}})
    assert typed.read_page(more, "pods", PAGE.block, PAGE.more, PAGE.next, True) is None
    no_block = orjson.dumps({"pods": [GPU_POD]})
    assert typed.read_page(no_block, "pods", PAGE.block, PAGE.more, PAGE.next, True) is None
