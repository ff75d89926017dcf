"""codemod/compat/tables.py: the mapping data as the module's tables."""
from __future__ import annotations

from codemod.compat import tables
from mappings.loader import default_mappings


def test_v2_paths_are_relative_to_the_v2_base():
    m = default_mappings()
    for row in tables.operations(m):
        if "v2" in row:
            assert not row["v2"][1].startswith("/v2/"), row["id"]
    assert all(not spec["path"].startswith("/v2/") for spec in tables.lookups(m).values())
    assert tables.conventions(m)["page_limits"]["/pods"] >= 1


def test_the_fallback_table_comes_from_the_policies_and_the_request_maps():
    m = default_mappings()
    fallbacks = tables.fallbacks(m)
    assert set(fallbacks) == {"gpu.id", "cpu.id"}
    gpu = fallbacks["gpu.id"]
    assert gpu["v1_field"] == "gpuTypeIds"
    assert [w["id"] for w in gpu["walk_on"]] == [w.id for w in m.policies["gpu-fallback"].walk_on]
    assert gpu["order"]["priority_field"] == "gpuTypePriority" and gpu["order"]["by"] == "gpu_availability"


def test_response_maps_leave_out_fields_without_a_v2_source():
    pod = tables.response_maps(default_mappings())["pod"]["fields"]
    assert "machineId" not in pod  # omit: R07
    assert pod["desiredStatus"] == {"from": ["status"], "values": "pod_status"}
    assert pod["vcpuCount"]["from"] == ["cpu.vcpuCount", "gpu.vcpuCount"]


def test_every_converter_the_data_names_is_listed_for_the_module():
    m = default_mappings()
    names = tables.converter_names(m)
    named = {f.convert for r in m.requests.values() for f in r.fields.values() if f.convert}
    assert named == set(names["REQUEST_CONVERTERS"])
    assert set(names["COMPOSERS"]) == {c for r in m.requests.values() for c in r.composers}


def test_billing_grouping_carries_v1s_allowed_values():
    grouping = tables.query_maps(default_mappings())["billing.pods"]["grouping"]
    assert set(grouping["v1_values"]) >= {"podId", "gpuTypeId"}
