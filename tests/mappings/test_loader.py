"""The loader refuses a malformed mapping and names the file and the entry."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mappings import MappingError, load
from mappings.loader import DATA_DIR
from tests.mappings.tools import descend
from mappings import load_schema


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    return target


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"fixture text {old!r} not found in {path.name}"
    path.write_text(text.replace(old, new, 1))


def test_packaged_mappings_load(data_copy):
    mappings = load(data_copy)
    assert len(mappings.operations) == 37
    assert mappings.match_v1("POST", "/pods/p1/reset")[1] == {"podId": "p1"}
    assert mappings.match_v1("GET", "/pods/p1/reset") is None
    assert mappings.methods_for_path("/pods/p1") == ["DELETE", "GET", "PATCH"]


def test_unknown_key_is_named(data_copy):
    edit(data_copy / "requests.yaml", '    imageName: {to: image, rule: L02, unset: [""]}',
         '    imageName: {to: image, rule: L02, unset: [""], renamed_to: image}')
    with pytest.raises(MappingError, match=r"requests.yaml: entry 'pod.create': fields.imageName.renamed_to: Extra inputs"):
        load(data_copy)


def test_missing_target_is_named(data_copy):
    edit(data_copy / "operations.yaml", "request: pod.create", "request: pod.craete")
    with pytest.raises(MappingError, match=r"operations.yaml: entry 'pods.create': unknown request map 'pod.craete'"):
        load(data_copy)


def test_unknown_rule_reference_is_named(data_copy):
    edit(data_copy / "responses.yaml", "desiredStatus: {from: status, values: pod_status, rule: Q13}", "desiredStatus: {from: status, values: pod_status, rule: Q99}")
    with pytest.raises(MappingError, match=r"responses.yaml: entry 'pod': field 'desiredStatus': unknown rule 'Q99'"):
        load(data_copy)


def test_duplicate_rule_id_is_refused(data_copy):
    edit(data_copy / "rules.yaml", "- id: Q06\n", "- id: Q05\n")
    with pytest.raises(MappingError, match=r"rules.yaml: duplicate id 'Q05'"):
        load(data_copy)


def test_duplicate_yaml_key_is_refused(data_copy):
    edit(data_copy / "requests.yaml", "    imageName: {to: image, rule: L02}\n", "    imageName: {to: image, rule: L02}\n    imageName: {to: name}\n")
    with pytest.raises(MappingError, match=r"requests.yaml: line \d+: duplicate key 'imageName'"):
        load(data_copy)


def test_malformed_rule_id_is_refused(data_copy):
    edit(data_copy / "rules.yaml", "- id: R13\n", "- id: X13\n")
    with pytest.raises(MappingError, match=r"rules.yaml: entry 'X13': id: Value error, rule id 'X13' must look like"):
        load(data_copy)


def test_unknown_converter_is_named(data_copy):
    edit(data_copy / "requests.yaml", "    ports: {to: ports, convert: ports_list, default", "    ports: {to: ports, convert: ports_lst, default")
    with pytest.raises(MappingError, match=r"field 'ports': unknown converter 'ports_lst'"):
        load(data_copy)


def test_dropped_field_without_rule_is_refused(data_copy):
    edit(data_copy / "requests.yaml", "    readme: {unsupported: ignore, rule: R09, unset: [\"\"]}\n",
         "    readme: {unsupported: ignore, unset: [\"\"]}\n")
    with pytest.raises(MappingError, match=r"field 'readme': a dropped field needs the rule that explains it"):
        load(data_copy)


def test_duplicate_v1_route_is_refused(data_copy):
    edit(data_copy / "operations.yaml", "v1: {method: GET, path: /docs}", "v1: {method: GET, path: /openapi.json}")
    with pytest.raises(MappingError, match=r"entry 'docs': duplicate v1 route GET /openapi.json"):
        load(data_copy)


def test_schema_walk_finds_real_paths_and_refuses_made_up_ones():
    """The drift tests are only as good as this walk: it must say no to a path that is not there."""
    v2 = load_schema("v2")
    pod = {"$ref": "#/components/schemas/CreatePodRequest"}
    assert descend(v2, pod, "mounts.network.0.volumeId") is not None
    assert descend(v2, pod, "gpu.id") is not None
    assert descend(v2, pod, "mounts.network.0.volumeIdx") is None
    assert descend(v2, pod, "imageName") is None


def test_status_difference_needs_its_policy(data_copy):
    """v1 200 vs v2 201 on a create must name the policy that keeps v1's status (the proxy reads it from here)."""
    edit(data_copy / "operations.yaml", "  rules: [L01, Q23, L09]\n  status: {policy: create-status}\n", "  rules: [L01, Q23, L09]\n")
    with pytest.raises(MappingError, match=r"entry 'registries.create': v1 answered 200 where v2 answers 201; name the policy"):
        load(data_copy)


def test_status_policy_must_exist(data_copy):
    edit(data_copy / "operations.yaml", "status: {policy: create-status}", "status: {policy: create-statuss}")
    with pytest.raises(MappingError, match=r"unknown policy 'create-statuss'"):
        load(data_copy)


def test_ordering_needs_a_known_lookup_and_field(data_copy):
    edit(data_copy / "requests.yaml", "by: gpu_availability", "by: gpu_availabilty")
    edit(data_copy / "requests.yaml", "orders: {field: gpuTypeIds,", "orders: {field: gpuTypeId,")
    with pytest.raises(MappingError, match=r"unknown ordered field 'gpuTypeId'(.|\n)*unknown lookup 'gpu_availabilty'"):
        load(data_copy)


def test_a_fixable_rule_says_how_the_rewrite_fixes_it(data_copy):
    edit(data_copy / "rules.yaml", "  rewrite: {module: q29_error_shape, precedence: 52, stages: [read], reads: [error]}\n", "")
    with pytest.raises(MappingError, match=r"rule Q29 is fixable but says nothing of how the rewrite fixes it"):
        load(data_copy)


def test_a_rewrite_has_its_own_module_or_another_rules(data_copy):
    edit(data_copy / "rules.yaml", "rewrite: {module: q29_error_shape, precedence: 52, stages: [read], reads: [error]}",
         "rewrite: {module: q29_error_shape, precedence: 52, stages: [read], reads: [error], by: L02}")
    with pytest.raises(MappingError, match=r"a rewrite names either its own module or the rule whose module"):
        load(data_copy)


def test_a_rewrite_module_is_named_after_its_rule(data_copy):
    edit(data_copy / "rules.yaml", "module: q29_error_shape,", "module: error_shape,")
    with pytest.raises(MappingError, match=r"rule Q29's rewrite module 'error_shape' must be named q29_<name>"):
        load(data_copy)


def test_a_rewrite_by_another_rule_needs_that_rules_module(data_copy):
    edit(data_copy / "rules.yaml", "  rewrite: {by: L02}  # L02's read rename (costPerHr is read as cost)",
         "  rewrite: {by: Q13}")
    with pytest.raises(MappingError, match=r"rules.yaml: entry 'Q14': rewrite by 'Q13', a rule without a module"):
        load(data_copy)


def test_each_kind_of_answer_read_is_planned_by_exactly_one_rule(data_copy):
    edit(data_copy / "rules.yaml", "stages: [read], reads: [error]}", "stages: [read], reads: [list]}")
    with pytest.raises(MappingError, match=r"the list reads of an answer are planned by Q02 and Q29 (.|\n)*the error "
                                           r"reads of an answer are planned by no rule"):
        load(data_copy)


def test_a_rewrite_plans_reads_only_with_the_read_stage(data_copy):
    edit(data_copy / "rules.yaml", "stages: [call, read], reads: [field]}", "stages: [call], reads: [field]}")
    with pytest.raises(MappingError, match=r"rewrite module 'l02_field_renames' plans reads \(field\) without the "
                                           r"read stage"):
        load(data_copy)
