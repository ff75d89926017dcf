"""Typed readers (mappings/typed.py) answer exactly what the dict path answers, or give up.

For every response map with a typed reader, realistic v2 objects and adversarial variants of them (each key
removed, null, empty object, empty list, string, number; nested objects emptied; list items null or missing a
key) are serialised and read both ways: the typed reader's bytes equal orjson.dumps of the compiled map over
orjson.loads, or the typed reader gives up (None) and the caller reads the answer as dicts. Where the dict path
raises, the typed reader must give up, never answer.
"""
from __future__ import annotations

import copy
from typing import Any, Iterator

import orjson
import pytest

from mappings.loader import default_mappings
from mappings.translate import ResponseContext, translators
from mappings.typed import typed_reader
from tests.mappings.tools import CPU_POD, GPU_POD

M = default_mappings()
T = translators()
PAGE = M.conventions.pagination

SAMPLES: dict[str, list[dict[str, Any]]] = {
    "pod": [GPU_POD, CPU_POD],
    "network_volume": [{"id": "vol1", "name": "data", "size": 50, "dataCenter": "EU-RO-1"}],
    "registry": [{"id": "reg1", "name": "docker hub"}],
    "billing_endpoint": [{"totalAmount": 1.5, "startTime": "2026-11-01T00:00:00Z", "serverlessId": "ep1"}],
    "billing_network_volume": [{"totalAmount": 0.5, "startTime": "2026-11-01T00:00:00Z", "networkVolumeId": "v"}],
}
ODD_VALUES: list[Any] = [None, {}, [], "", "x", 0, 7, True, 1.5, [None], [{}], {"other": 1}]  # big ints: their own test


def _variants(obj: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """obj, then obj with one value (at any depth, list items included) removed or replaced by an odd value."""
    yield obj
    for path in _paths(obj):
        parent = _at(obj, path[:-1])
        if isinstance(parent, dict):
            gone = copy.deepcopy(obj)
            del _at(gone, path[:-1])[path[-1]]
            yield gone
        for odd in ODD_VALUES:
            changed = copy.deepcopy(obj)
            _at(changed, path[:-1])[path[-1]] = copy.deepcopy(odd)
            yield changed


def _paths(value: Any, prefix: tuple = ()) -> Iterator[tuple]:
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield (*prefix, key)
        yield from _paths(child, (*prefix, key))


def _at(value: Any, path: tuple) -> Any:
    for key in path:
        value = value[key]
    return value


def _dict_answer(map_id: str, body: bytes, *, listed: bool) -> bytes | None:
    """What the dict path answers (None: it refuses the body or raises, and the typed reader must give up)."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    translate = T.responses[map_id].translate
    try:
        if listed:
            items = data.get("items") if isinstance(data, dict) else None
            if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
                return None
            return orjson.dumps([translate(item, ResponseContext()) for item in items])
        if not isinstance(data, dict):
            return None
        return orjson.dumps(translate(data, ResponseContext()))
    except Exception:  # noqa: BLE001 - a v2 answer the dict path cannot translate: the typed reader must give up
        return None


TYPED = {map_id: typed_reader(spec, M) for map_id, spec in M.responses.items()}


def test_typed_readers_exist_for_the_hot_maps_and_not_where_a_converter_has_no_typed_form():
    assert TYPED["pod"] is not None and TYPED["network_volume"] is not None and TYPED["registry"] is not None
    # endpoint_compute_type, template_is_platform, billing_gpu_type have no typed form
    assert TYPED["endpoint"] is None and TYPED["template"] is None and TYPED["billing_pod"] is None
    assert set(SAMPLES) == {map_id for map_id, reader in TYPED.items() if reader is not None}


@pytest.mark.parametrize("map_id", sorted(SAMPLES))
def test_a_typed_object_answer_is_the_dict_answer_or_none(map_id):
    reader = TYPED[map_id]
    answered = 0
    for sample in SAMPLES[map_id]:
        for variant in _variants(sample):
            body = orjson.dumps(variant)
            typed = reader.answer_object(body)
            expected = _dict_answer(map_id, body, listed=False)
            if typed is not None:  # None: the caller reads this answer as dicts
                answered += 1
                assert typed == expected, variant
    assert answered > 0
    for sample in SAMPLES[map_id]:  # the realistic objects themselves are answered typed
        assert reader.answer_object(orjson.dumps(sample)) == _dict_answer(map_id, orjson.dumps(sample), listed=False)


def _read_page(reader, body: bytes):
    return reader.read_page(body, "items", PAGE.block, PAGE.more, PAGE.next)


@pytest.mark.parametrize("map_id", sorted(SAMPLES))
def test_a_typed_page_is_the_dict_answer_or_none(map_id):
    reader = TYPED[map_id]
    pages = [
        {"items": SAMPLES[map_id], PAGE.block: {PAGE.next: None, PAGE.more: False}},
        {"items": SAMPLES[map_id]},
        {"items": []},
        {"items": [*SAMPLES[map_id], None]},
        {"items": [*SAMPLES[map_id], "x"]},
        {"items": None},
        {"items": {}},
        {"other": []},
        [],
        {"items": SAMPLES[map_id], PAGE.block: None},
        {"items": SAMPLES[map_id], PAGE.block: "x"},
        {"items": SAMPLES[map_id], PAGE.block: {PAGE.more: 1, PAGE.next: "c2"}},
    ]
    for page in pages:
        body = orjson.dumps(page)
        typed = _read_page(reader, body)
        if typed is not None:
            assert typed == (_dict_answer(map_id, body, listed=True), False, None), page
    # the realistic page is answered typed; one that says more pages follow too, with its cursor as sent
    whole = orjson.dumps(pages[0])
    assert _read_page(reader, whole) == (_dict_answer(map_id, whole, listed=True), False, None)
    for cursor in ("c2", None, 7, ""):
        more = orjson.dumps({"items": SAMPLES[map_id], PAGE.block: {PAGE.next: cursor, PAGE.more: True}})
        assert _read_page(reader, more) == (_dict_answer(map_id, more, listed=True), True, cursor)
    empty = orjson.dumps({"items": [], PAGE.block: {PAGE.next: "c3", PAGE.more: True}})
    assert _read_page(reader, empty) == (b"[]", True, "c3")
    for body in (b"", b"not json", b'{"items": [}'):
        assert _read_page(reader, body) is None


@pytest.mark.parametrize("map_id", sorted(SAMPLES))
def test_a_typed_page_of_variants_is_the_dict_answer_or_none(map_id):
    """Every variant of the realistic objects on a page that says more follow: its items as the dict path
    translates them, or None."""
    reader = TYPED[map_id]
    for sample in SAMPLES[map_id]:
        for variant in _variants(sample):
            body = orjson.dumps({"items": [sample, variant], PAGE.block: {PAGE.next: "c2", PAGE.more: True}})
            typed = _read_page(reader, body)
            if typed is not None:
                assert typed == (_dict_answer(map_id, body, listed=True), True, "c2"), variant


def test_an_integer_over_64_bits_is_left_to_the_dict_path():
    body = orjson.dumps({**GPU_POD, "disk": 0}).replace(b'"disk":0', b'"disk":123456789012345678901234567890')
    assert TYPED["pod"].answer_object(body) is None  # orjson reads it as a float; msgspec exactly, which orjson cannot write
    assert _read_page(TYPED["pod"], b'{"items": [' + body + b']}') is None


def test_objects_a_converter_cannot_tell_apart_as_structs_are_left_to_the_dict_path():
    # gpu {} -> the dict converter answers null; {"other": 1} -> {id: null, count: null}: the same struct
    for gpu in ({}, {"other": 1}):
        assert TYPED["pod"].answer_object(orjson.dumps({**GPU_POD, "gpu": gpu})) is None
    # persistent {} -> the network volume's path in the dict converter, {"other": 1} -> no path: the same struct
    network = [{"volumeId": "vol1", "path": "/runpod-volume"}]
    for persistent in ({}, {"other": 1}):
        body = orjson.dumps({**GPU_POD, "mounts": {"persistent": persistent, "network": network}})
        assert TYPED["pod"].answer_object(body) is None
    assert orjson.loads(_dict_answer("pod", orjson.dumps({**GPU_POD, "mounts": {"persistent": {}, "network": network}}),
                                     listed=False))["volumeMountPath"] == "/runpod-volume"
    # a public port without `private`: the dict converter raises
    runtime = {"ports": [{"public": 1, "type": "tcp", "ip": "1.2.3.4"}]}
    assert TYPED["pod"].answer_object(orjson.dumps({**GPU_POD, "runtime": runtime})) is None
