"""The state measurement (bench/rewrite_states.py) judges what it claims to judge, and the corpus meets issue 21's
counts: no v1 call site silent after `v1bridge rewrite`, and the share of call sites in states 1 and 2.

The judge is checked on the originals first: with no rewrite every v1 call site must count as silent (a judge
that calls untouched v1 code migrated would make every figure below meaningless).
"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import rewrite_states  # noqa: E402

# The share of v1 call sites in states 1 + 2 with no v1 spelling left, at least, on the issue-11 corpus and on
# everything (issue 21's aim is 0.90; raised as the rebuilt rewrite lands; lowered once, at 2300098, where calls
# whose body the compat module refuses by policy went back to state 3 with their cause: 100/121, 100/161).
# Helpers other modules call translate their request at run time: podctl and fleet on v2 (108/161); so do a
# module's own helpers whose family was left blocked (103/121, 111/161).
# Lowered for "all" when labkit, modelhub (25 call sites, all silent today) and opsbox (14, 5 without a v1
# spelling) joined the projects: 116/200.
# Calls through a helper of another module read at their call site and the helper moved plain (107/121, 130/200).
# The judge then read a flagged call that went through call_v1 (gpu_fallback_list_and_spot.py:29, a spot create
# the rewrite leaves to the user) on its comment line and counted it as state 1; judged on its own line it is state
# 3: 106/121, 129/200. A create's fallback list and `locked` are kept by create_with_fallback around plain v2 code.
# A query v2 cannot rebuild (templateId on /billing/endpoints) is decided on its own too: flagged and refused at
# run time, the call beside it through call_v1 (107/121, 130/200).
# A client class whose base is another module's constant (modelhub's RunPod, `base_url=constants.RUNPOD_REST_URL`)
# is translated at run time with the constant moved: modelhub's 10 silent calls in state 2 (137/200).
# A requests.Session subclass is a client class (its request(), its own call(), the verbs it inherits) whose base
# is followed through an imported dataclass field's env default: labkit's 15 silent calls in states 1 and 2
# (148/200).
# A query string written into the path goes through call_v1 with its helper's own arguments (query_string_in_path.py:
# 4 flagged -> state 2); a billing list v1 grouped is regrouped by regroup_billing around plain v2 (111/121, 152/200).
SHARE_AT_LEAST = {"corpus": 0.91, "all": 0.82}
CAUSELESS_TODAY = 0  # flagged call sites whose comment names no cause (issue 21: none)

# Call sites of the multi-module projects (tests/codemod/projects/) not yet in the state their manifest names
# (state 2 where the manifest wants 1, a v1 spelling left on a line translated at run time, nightly and gpuctl
# flagged with their cause): a ratchet, the set may only shrink; emptied as the rebuilt rewrite lands.
PROJECTS_NOT_YET = {
    "fleet/fleet/endpoints.py:14", "fleet/fleet/endpoints.py:5", "fleet/fleet/pods.py:24", "fleet/fleet/pods.py:35",
    "fleet/fleet/pods.py:40", "fleet/fleet/pods.py:44", "fleet/fleet/volumes.py:13", "fleet/fleet/volumes.py:17",
    "fleet/fleet/volumes.py:5", "fleet/fleet/volumes.py:9", "gpuctl/gpuctl/serverless.py:10",
    "gpuctl/gpuctl/serverless.py:45", "gpuctl/gpuctl/serverless.py:51", "gpuctl/gpuctl/templates.py:18",
    "gpuctl/gpuctl/templates.py:24", "gpuctl/gpuctl/templates.py:5",
    # nightly: a DELETE the judge counts state 2 (the module sends through call_v1 elsewhere); the create with a
    # CPU fallback list through call_v1 at its call site (create_with_fallback wanted)
    "nightly/cleanup.py:25", "nightly/seed_ci.py:13",
    "podctl/podctl/endpoints.py:28", "podctl/podctl/endpoints.py:37",
    "podctl/podctl/endpoints.py:44", "podctl/podctl/endpoints.py:6", "podctl/podctl/pods.py:39",
    "podctl/podctl/pods.py:44", "podctl/podctl/pods.py:48",
    # opsbox: rpops/http.py's request() is wrapped in call_v1, so every call through it is state 2 translated at
    # run time, with the v1 path left on the line (state 1 wanted for the readable ones)
    "opsbox/lifecycle.py:25", "opsbox/lifecycle.py:26", "opsbox/provision.py:17", "opsbox/spend.py:27",
    "opsbox/volumes.py:10", "opsbox/volumes.py:17", "opsbox/volumes.py:21", "opsbox/volumes.py:25",
    "opsbox/volumes.py:28", "opsbox/volumes.py:31",
    # modelhub: RunPod.request() (client.py) is wrapped in acall_v1, so every call through it is state 2 translated
    # at run time, with the v1 path left on the line (state 1 wanted for the readable ones)
    "modelhub/modelhub/billing.py:19", "modelhub/modelhub/endpoints.py:19", "modelhub/modelhub/endpoints.py:26",
    "modelhub/modelhub/endpoints.py:34", "modelhub/modelhub/endpoints.py:45", "modelhub/modelhub/endpoints.py:56",
    "modelhub/modelhub/templates.py:6", "modelhub/modelhub/templates.py:22", "modelhub/modelhub/templates.py:31",
    "modelhub/modelhub/templates.py:36",
    # labkit: answers returned to another module keep the v1 view through call_v1 at the call site, the v1 path on
    # the line (reset, update, the two volume lists); the judge counts the unchanged v2 lines of a module that calls
    # call_v1 elsewhere as state 2 (the DELETE and the registry POST/DELETE, state 1 wanted)
    "labkit/labkit/pods.py:62", "labkit/labkit/pods.py:66", "labkit/labkit/pods.py:71",
    "labkit/labkit/storage.py:10", "labkit/labkit/storage.py:17", "labkit/labkit/storage.py:30",
    "labkit/labkit/storage.py:34",
}


@pytest.fixture(scope="module")
def sites() -> list:
    return rewrite_states.run(jobs=2)


def test_the_judge_calls_every_original_call_site_silent():
    sites = rewrite_states.run(jobs=1, rewrite=False)
    assert sites and Counter(s.state for s in sites) == {"silent": len(sites)}


def test_the_manifests_list_the_issue_21_call_sites():
    """The issue's measurement: 121 v1 call sites of the issue-11 corpus (plus the multi-module projects)."""
    corpus = rewrite_states.manifest_sites(rewrite_states.CORPORA[0])
    assert len(corpus) == 121
    assert len({file for _m, file, _l, _r in corpus}) == 37


def test_no_v1_call_site_is_left_silent_or_half_migrated(sites):
    """Issue 21: nothing silent, in the corpus and in the multi-module projects."""
    left = [f"{s.corpus}/{s.file}:{s.line} {s.route} [{s.state}]: {s.after}" for s in sites
            if s.state in ("silent", "v1-left")]
    assert left == []


def test_project_call_sites_reach_the_state_their_manifest_names(sites):
    expected = {}
    for spec in rewrite_states.modules(rewrite_states.CORPORA[1]).values():
        for call in spec["calls"]:
            states = call["state"] if isinstance(call["state"], list) else [call["state"]]
            expected[f"{call['file']}:{call['line']}"] = {str(state) for state in states}
    judged = [s for s in sites if s.corpus == "projects"]
    assert len(judged) == len(expected)
    wrong = {f"{s.file}:{s.line}" for s in judged
             if s.state not in expected[f"{s.file}:{s.line}"] or (s.state in ("1", "2") and s.v1_spelling)}
    assert wrong <= PROJECTS_NOT_YET


def test_no_flagged_line_without_its_cause(sites):
    """`# v1bridge: <RULE> <cause>: <remedy>` on every flagged call site."""
    assert sum(1 for s in sites if s.state == "3" and not s.cause) <= CAUSELESS_TODAY


@pytest.mark.parametrize("part", ["corpus", "all"])
def test_the_share_of_call_sites_in_states_1_and_2(sites, part):
    judged = [s for s in sites if part == "all" or s.corpus == part]
    migrated = sum(1 for s in judged if s.state in ("1", "2") and not s.v1_spelling)
    assert migrated / len(judged) >= SHARE_AT_LEAST[part]


def test_every_flagged_call_site_is_in_the_runs_list(sites):
    """Issue 21: every state-3 line of the project is listed in one run (the summary's items left to the user)."""
    assert [f"{s.corpus}/{s.file}:{s.line}" for s in sites if s.state == "3" and not s.listed] == []


def test_the_counts_are_a_section_of_the_figures_page():
    import run_all

    entry = next(entry for entry in run_all.SECTIONS if entry[0] == "states")
    assert getattr(__import__(entry[2]), entry[3]) is rewrite_states.section
