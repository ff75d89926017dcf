"""The project-facts model shared by the rewrite and the audit (codemod/project_model.py)."""
import pickle

import pytest

from codemod.project_model import Definition, ProjectIndex, Use


def _index() -> ProjectIndex:
    base = Definition("base", "RP_REST_BASE", "lib/http.sh", 3, value="https://rest.runpod.io/v1", api="v1")
    helper = Definition("helper", "rp::http", "lib/http.sh", 10, api="v1", base=base.key)
    orphan = Definition("helper", "api_get", "lib/other.sh", 2, reason="base read from $1")
    uses = (
        Use("commands/template.sh", 5, helper.key, "GET", "/templates"),
        Use("commands/template.sh", 9, helper.key, "DELETE", "/templates/{id}"),
        Use("commands/pod.sh", 4, helper.key, "POST", "/pods"),
        Use("commands/x.sh", 1, ("lib/missing.sh", "nope")),
    )
    return ProjectIndex((base, helper, orphan), uses)


def test_lookups_by_file_by_definition_and_resolution():
    idx = _index()
    assert [d.name for d in idx.definitions_in("lib/http.sh")] == ["RP_REST_BASE", "rp::http"]
    assert idx.definitions_in("commands/pod.sh") == ()
    helper = idx.definition(("lib/http.sh", "rp::http"))
    assert [u.line for u in idx.uses_of(helper)] == [5, 9, 4]
    assert [u.line for u in idx.uses_of(helper.key)] == [5, 9, 4]
    assert idx.resolve(idx.uses_in("commands/pod.sh")[0]) is helper
    assert idx.resolve(idx.uses_in("commands/x.sh")[0]) is None
    assert idx.origin(helper).name == "RP_REST_BASE"
    assert idx.files() == {"lib/http.sh", "lib/other.sh", "commands/template.sh", "commands/pod.sh", "commands/x.sh"}


def test_origin_stops_on_a_cycle():
    a = Definition("helper", "a", "f", 1, base=("f", "b"))
    b = Definition("helper", "b", "f", 2, base=("f", "a"))
    assert ProjectIndex((a, b)).origin(a).name == "b"


def test_picklable_and_mergeable():
    idx = _index()
    back = pickle.loads(pickle.dumps(idx))
    assert back == idx
    assert back.uses_of(("lib/http.sh", "rp::http")) == idx.uses_of(("lib/http.sh", "rp::http"))
    extra = ProjectIndex((Definition("path", "_REGISTRY_AUTH_PATH", "api.py", 4, value="containerregistryauth", api="v1"),))
    merged = idx.merged(extra)
    assert len(merged.definitions) == 4 and merged.definitions_in("api.py")[0].value == "containerregistryauth"


def test_kind_and_api_are_checked():
    with pytest.raises(ValueError):
        Definition("constant", "X", "f", 1)
    with pytest.raises(ValueError):
        Definition("base", "X", "f", 1, api="v3")
