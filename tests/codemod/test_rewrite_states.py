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
# Calls on the library client another module's function returns (gpuctl's `rest().get(...)`, on `httpx.Client(
# base_url=config.REST_URL)`) are read at their call site and the constant moves: gpuctl on v2 (171/200). A create
# whose error words are matched is plain v2 inside v1_error (stock_out_message_retry.py: 112/121, 172/200).
# A helper whose `**kwargs` are the query (opsbox's rpops `get(path, **params)`) is read at its call sites and moves
# plain (173/200); a create whose body values are only known at run time is on its v2 route with only its body
# converted when it runs (modelhub's endpoint create, 174/200), and so is an update by the client's own PATCH whose
# fields set over several statements combine in one v2 key (fleet's and modelhub's scale, 176/200). With gpuctl's
# endpoint create through with_v1_body and rpdash (8 call sites) on main: 112/121, 190/208.
# A call kept back only by reads of fields v2 does not name is plain v2 read through v1_view; supportPublicIp is
# left out of a plain v2 create as the proxy leaves it out; v2's own spelling on the v1 base is that v2 route; only
# the helper a blocked call goes through is translated, the others' calls plain v2 (113/121, 191/208). A route of
# neither v1 nor v2 (non_v1_routes_on_v1_host.py's /gpuTypes, counted state 2 while call_v1 sent it to a v2 404) is
# flagged with that cause: 112/121, 190/208.
# A pod reset through the client's own helper is v1bridge_compat.reset_pod(<send>, <id>) (R01's module): podctl's and
# labkit's resets leave call_v1 with their v1 paths. A function returning the v1 view of its call's
# answer may be called in its own module where the answer is returned onward or read by a field v1 and v2 share, and
# `"readme": ""` is v1's "not set": podctl's template create plain v2, its endpoint create on its v2 route.
# An endpoint create is a plain v2 body with only its GPU pools made when it runs (gpu_pools): gpuctl's create
# leaves its v1 body. A billing list a function returns to its own module only is regrouped where it is returned
# (opsbox's storage spend). A list through the client's
# helper whose filters v2 ignores is every page of v2 filtered at run time (all_pages), its reads v2's: podctl's
# and nightly's filtered lists leave call_v1. With the corpus' own work on main: 112/121, 197/208; whole calls
# through call_v1 8 and 20. A function returning its call's answer to other files and to local callers that read
# fields the v1 view builds returns that view of a plain v2 call, its local reads as written (podctl's get_pod,
# labkit's get): 18. The first record of a list or None (`pods[0] if pods else None`) is a function's answer too:
# opsbox's find_pod is every page filtered at run time, read by v2's names in lifecycle.py: 17. A field read on what
# a local function hands on from another file does not hold this file's calls back: opsbox's create in provision.py
# is plain v2 (198/208, 16). A billing list whose grouping or GPU filter is set on some runs only is every page of
# v2 with that query applied when it runs (all_pages): opsbox's and nightly's pod spend leave call_v1 (14). podsdk
# joins the projects: a client class whose method's answer another module reads, plain v2 (201/211). modelhub's list
# asking for workers is every page of v2 read through the v1 view, no v1 query left on its line (202/211).
SHARE_AT_LEAST = {"corpus": 0.925, "all": 0.955}
# State 2 by call_v1 (the whole call translated at run time, `Site.runtime`), at most: issue 21 wants the compat
# module to wrap only the part v2 lacks (41 at f36a386, 18 of them in the corpus).
# A list rebound under an `if` to some of its records is followed through the `if` (labkit's list_pods: all_pages): 13.
# A list whose query asks for data the v1 view of each record builds (includeWorkers) is every page of v2 read through
# v1_view(..., includes=<the query>) (modelhub's all_endpoints): 12.
# runctl joins the projects (a helper module given whole URLs, 10 call sites, 9 plain v2): its list filtered on a
# status known at run time, whose records another module reads by their v1 names, goes through call_v1 (13).
# A list filtered by a query written into the URL a helper given whole URLs is handed is all_pages on that URL
# (query_string_in_path.py:32): 7 and 12.
RUNTIME_AT_MOST = {"corpus": 7, "all": 12}
# State 2 by with_v1_body (the v2 route, the v1 body converted when it runs), at most: a body the rewrite can read
# is plain v2 (5 at 59ecf63: podctl's, fleet's and labkit's creates, whose fields set under an `if` combine in one v2
# key, and fleet's and modelhub's endpoint updates, whose fields combine against the record).
BODY_AT_RUN_TIME_AT_MOST = {"corpus": 0, "all": 2}
CAUSELESS_TODAY = 0  # flagged call sites whose comment names no cause (issue 21: none)

# Call sites of the multi-module projects (tests/codemod/projects/) not yet in the state their manifest names
# (state 2 where the manifest wants 1, a v1 spelling left on a line translated at run time, nightly and gpuctl
# flagged with their cause): a ratchet, the set may only shrink; emptied as the rebuilt rewrite lands.
PROJECTS_NOT_YET = {
    # modelhub: the template create wrapped in acall_v1 at its call site (its readme), its v1 body left on the line
    "modelhub/modelhub/templates.py:22",
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


@pytest.mark.parametrize("part", ["corpus", "all"])
def test_whole_calls_translated_at_run_time_do_not_come_back(sites, part):
    judged = [s for s in sites if part == "all" or s.corpus == part]
    assert sum(1 for s in judged if s.runtime) <= RUNTIME_AT_MOST[part]


@pytest.mark.parametrize("part", ["corpus", "all"])
def test_bodies_converted_at_run_time_do_not_come_back(sites, part):
    judged = [s for s in sites if part == "all" or s.corpus == part]
    assert sum(1 for s in judged if s.body_runtime) <= BODY_AT_RUN_TIME_AT_MOST[part]


def test_every_flagged_call_site_is_in_the_runs_list(sites):
    """Issue 21: every state-3 line of the project is listed in one run (the summary's items left to the user)."""
    assert [f"{s.corpus}/{s.file}:{s.line}" for s in sites if s.state == "3" and not s.listed] == []


def test_the_counts_are_a_section_of_the_figures_page():
    import run_all

    entry = next(entry for entry in run_all.SECTIONS if entry[0] == "states")
    assert getattr(__import__(entry[2]), entry[3]) is rewrite_states.section


API = '''import requests

BASE = "https://rest.runpod.io/v1"


def _get(path):
    return requests.get(BASE + path, timeout=30).json()


def _post(path, body=None):
    return requests.post(BASE + path, json=body, timeout=30).json()
'''
PODS = '''from .api import _get, _post


def pod(pod_id):
    return _get(f"/pods/{pod_id}")


def reset(pod_id):
    return _post(f"/pods/{pod_id}/reset")
'''


def _judged(tmp_path, api_after: str, pods_after: str) -> dict[int, tuple[str, bool, bool]]:
    """The judge on a one-project corpus (p/api.py's helpers, p/pods.py's two calls) and its rewrite written by
    hand: line of pods.py -> (state, v1 spelling left, translated at run time)."""
    import yaml

    corpus, copy = tmp_path / "corpus", tmp_path / "copy"
    for root, api, pods in ((corpus, API, PODS), (copy, api_after, pods_after)):
        (root / "p" / "p").mkdir(parents=True)
        (root / "p" / "p" / "api.py").write_text(api)
        (root / "p" / "p" / "pods.py").write_text(pods)
    (corpus / "MANIFEST.yaml").write_text(yaml.safe_dump({"projects": {"p": {
        "constants": [{"file": "p/api.py", "line": 3, "at": 'BASE = "https://rest.runpod.io/v1"'}],
        "calls": [{"file": "p/pods.py", "line": 5, "v1": "GET /pods/{podId}"},
                  {"file": "p/pods.py", "line": 9, "v1": "POST /pods/{podId}/reset"}]}}}))
    return {s.line: (s.state, s.v1_spelling, s.runtime) for s in rewrite_states.classify(corpus, copy)}


def test_the_judge_counts_a_line_left_as_it_was_through_call_v1_only_when_its_own_helper_translates(tmp_path):
    """An unchanged line on a moved base is state 2 "through call_v1" when the function it calls hands its request
    to call_v1 (directly or through another function), not because its module calls call_v1 somewhere else (the old
    judge counted fleet pods.py:30, plain v2, as state 2)."""
    moved = API.replace("rest.runpod.io/v1", "api.runpod.io/v2")
    translated = moved.replace(
        "return requests.post(BASE + path, json=body, timeout=30).json()",
        "return v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, timeout=30, **kw), "
        "\"POST\", BASE + path, json=body).json()")
    assert _judged(tmp_path / "helper", translated, PODS) == {5: ("1", False, False), 9: ("2", True, True)}
    # the reset wrapped where it is made: the module calls call_v1, the GET beside it is still plain v2
    wrapped = PODS.replace('return _post(f"/pods/{pod_id}/reset")',
                           'return v1bridge_compat.call_v1(v1bridge_compat.by_method(get=_get, post=_post), "POST", '
                           'f"/pods/{pod_id}/reset")')
    assert _judged(tmp_path / "site", moved, wrapped) == {5: ("1", False, False), 9: ("2", True, True)}


def test_the_judge_reads_the_base_constant_a_statement_names(tmp_path):
    """A line left as it was, whose own base constant moved, is state 1 although another base constant of its module
    stays v1 (flagged where it is used): the old judge read any v1 constant of the module as this line's base and
    called non_v1_routes_on_v1_host.py:34 (`BASE + "/network-volumes"`, BASE moved) silent."""
    import yaml

    before = ('import requests\n\nBASE = "https://rest.runpod.io/v1"\nOLD = "https://api.runpod.io/v1"\n\n\n'
              'def volumes():\n    return requests.get(BASE + "/network-volumes")\n\n\n'
              'def wrong_host():\n    return requests.get(OLD + "/pods")\n')
    after = before.replace("rest.runpod.io/v1", "api.runpod.io/v2").replace(
        "    return requests.get(OLD", "    # v1bridge: L01 /v1 on the v2 host: confirm it\n    return requests.get(OLD")
    corpus, copy = tmp_path / "corpus", tmp_path / "copy"
    for root, text in ((corpus, before), (copy, after)):
        root.mkdir()
        (root / "m.py").write_text(text)
    (corpus / "MANIFEST.yaml").write_text(yaml.safe_dump({"modules": {"m.py": {
        "constants": [{"line": 3, "at": 'BASE = "https://rest.runpod.io/v1"'},
                      {"line": 4, "at": 'OLD = "https://api.runpod.io/v1"'}],
        "calls": [{"line": 8, "v1": "not a v1 route: GET /network-volumes"}, {"line": 12, "v1": "GET /pods"}]}}}))
    judged = {s.line: (s.state, s.cause) for s in rewrite_states.classify(corpus, copy)}
    assert judged == {8: ("1", False), 12: ("3", True)}
