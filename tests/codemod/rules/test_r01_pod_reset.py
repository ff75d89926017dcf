"""R01: a pod reset (v2 has none) through the client's own helper becomes `v1bridge_compat.reset_pod(<send>, <id>)`:
stop, wait for EXITED, start, every step through that helper, no v1 path left on the line.

Before/after pairs: each output exactly the expected code, it parses, and a second run changes nothing.
"""
from __future__ import annotations

import pytest

from tests.codemod.tools import case, check_rewrite

HELPERS = '''
    import requests

    BASE_URL = "{base}"


    def _get(path):
        r = requests.get(BASE_URL + path, timeout=30)
        r.raise_for_status()
        return r.json()


    def _post(path, body=None):
        r = requests.post(BASE_URL + path, json=body or {{}}, timeout=30)
        r.raise_for_status()
        return r.json() if r.content else None
'''


def _helpers(base: str, compat: bool = False) -> str:
    text = HELPERS.format(base=base)
    return text.replace("import requests\n", "import requests\n\n    import v1bridge_compat\n", 1) if compat else text


CASES = {
    "R01 reset through the module's own per-verb helpers": case(_helpers("https://rest.runpod.io/v1") + '''

    def stop(pod_id):
        _post(f"/pods/{pod_id}/stop")


    def status(pod_id):
        return _get(f"/pods/{pod_id}")["desiredStatus"]


    def reset(pod_id):
        return _post(f"/pods/{pod_id}/reset")
    ''', _helpers("https://api.runpod.io/v2", compat=True) + '''

    def stop(pod_id):
        _post(f"/pods/{pod_id}/action", {"action": "stop"})


    def status(pod_id):
        return _get(f"/pods/{pod_id}")["status"]


    def reset(pod_id):
        return v1bridge_compat.reset_pod(v1bridge_compat.by_method(get=_get, post=_post), pod_id)
    '''),
    # a request helper taking the method; its paths without a leading slash, which the session strips anyway
    "R01 reset through a method-taking helper of a session": case('''
    import requests

    class Api(requests.Session):
        base_url = "https://rest.runpod.io/v1"

        def request(self, method, url, *args, **kwargs):
            return super().request(method, f"{self.base_url}/{url.lstrip('/')}", *args, **kwargs)

        def call(self, method, path, body=None):
            r = self.request(method, path, json=body or {})
            r.raise_for_status()
            return r.json() if r.content else None

    def reset(s: Api, pod_id):
        s.call("POST", f"pods/{pod_id}/reset")
    ''', '''
    import requests

    import v1bridge_compat

    class Api(requests.Session):
        base_url = "https://api.runpod.io/v2"

        def request(self, method, url, *args, **kwargs):
            return super().request(method, f"{self.base_url}/{url.lstrip('/')}", *args, **kwargs)

        def call(self, method, path, body=None):
            r = self.request(method, path, json=body or {})
            r.raise_for_status()
            return r.json() if r.content else None

    def reset(s: Api, pod_id):
        v1bridge_compat.reset_pod(lambda method, path, json=None: s.call(method=method, path=path, body=json), pod_id)
    '''),
}


@pytest.mark.parametrize("name", list(CASES))
def test_rewrite(name: str) -> None:
    check_rewrite(*CASES[name])


def test_a_reset_through_the_clients_helper_is_state_2_with_its_steps_named():
    from codemod.engine import rewrite_source

    done = rewrite_source(CASES["R01 reset through the module's own per-verb helpers"][0], "case.py")
    assert [(s.line, s.state, s.rule, s.cause) for s in done.states] == [
        (19, 1, "L04", ""),
        (23, 1, "L01", ""),
        (27, 2, "R01", "v2 has no POST /pods/{podId}/reset: v1bridge_compat.reset_pod makes it of v2 stop then "
                       "start, waiting for desiredStatus EXITED between them")]


def test_a_reset_whose_helpers_cannot_read_the_pod_stays_on_the_run_time_translation():
    """No GET helper: the wait between stop and start could not read the pod, so no reset_pod (the call goes through
    the run-time translation, as before, with its R01 cause)."""
    from codemod.engine import rewrite_source

    source = CASES["R01 reset through the module's own per-verb helpers"][0]
    source = source.replace('def _get(path):\n    r = requests.get(BASE_URL + path, timeout=30)\n'
                            '    r.raise_for_status()\n    return r.json()\n\n\n', '')
    source = source.replace('def status(pod_id):\n    return _get(f"/pods/{pod_id}")["desiredStatus"]\n\n\n', '')
    assert "_get" not in source
    done = rewrite_source(source, "case.py")
    assert "reset_pod" not in done.new_source
    assert [(s.state, s.rule) for s in done.states][-1] == (2, "R01")
    assert 'call_v1(v1bridge_compat.by_method(post=_post), "POST", f"/pods/{pod_id}/reset")' in done.new_source
