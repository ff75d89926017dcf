"""`rewrite_source`: code that is not v1 stays byte for byte, calls v1 does differently go through the compat
module, line endings and untouched text are kept, the v2 host is configurable, a file that does not parse is left.

The rewrite of each rule is tested in tests/codemod/rules/test_<rule module>.py.
"""
from __future__ import annotations

import pytest

from codemod.engine import rewrite_source
from tests.codemod.tools import case, check_rewrite

NO_CHANGE = {
    "v2 code": case('''
        import requests
        BASE = "https://api.runpod.io"
        pods = requests.get(f"{BASE}/v2/pods").json()["pods"]
        requests.post(f"{BASE}/v2/pods/{pods[0]['id']}/action", json={"action": "stop"})
        requests.get(BASE + "/v2/billing/endpoints")  # public endpoints: a real v2 route
    '''),
    "serverless job API": case('''
        import requests
        RUN = "https://api.runpod.ai/v2"
        job = requests.post(f"{RUN}/{endpoint_id}/run", json={"input": {}}).json()
        status = requests.get(f"{RUN}/{endpoint_id}/status/{job['id']}").json()
        print(status["message"])
    '''),
    "look-alike names": case('''
        import requests
        pods = requests.get("https://example.com/api/pods").json()
        for pod in pods:
            print(pod["desiredStatus"], pod["message"])
        endpoints = ["/endpoints", "/pods"]
        desiredStatus = "RUNNING"
    '''),
    "no API at all": case('''
        def endpoints(x):
            return {"message": x}
    '''),
}

COMPAT = {
    "R01 reset goes to v2 through the compat module": case('''
        import requests
        def reset(pid):
            requests.post(f"https://rest.runpod.io/v1/pods/{pid}/reset")
    ''', '''
        import requests

        import v1bridge_compat
        def reset(pid):
            v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "POST", f"https://api.runpod.io/v2/pods/{pid}/reset")
    '''),
    "R07 response field with no v2 source: the call keeps v1's answer through the compat module": case('''
        import requests
        pod = requests.get("https://rest.runpod.io/v1/pods/p1").json()
        print(pod["machineId"])
    ''', '''
        import requests

        import v1bridge_compat
        pod = v1bridge_compat.call_v1(lambda method, url, **kw: requests.request(method, url, **kw), "GET", "https://api.runpod.io/v2/pods/p1").json()
        print(pod["machineId"])
    '''),
}


@pytest.mark.parametrize("name", list(NO_CHANGE))
def test_no_change(name: str) -> None:
    check_rewrite(*NO_CHANGE[name])


@pytest.mark.parametrize("name", list(COMPAT))
def test_through_the_compat_module(name: str) -> None:
    check_rewrite(*COMPAT[name])


def test_a_compat_call_is_state_2_and_no_manual_item() -> None:
    reset, _ = COMPAT["R01 reset goes to v2 through the compat module"]
    result = rewrite_source(reset, "r.py")
    assert result.manual == [] and [(s.line, s.state, s.rule) for s in result.states] == [(3, 2, "R01")]


def test_line_endings_and_untouched_text_are_kept() -> None:
    """CRLF files stay CRLF; comments and odd spacing outside the edits stay byte for byte."""
    before = 'import requests  # keep   me\r\nx = requests.get( "https://rest.runpod.io/v1/endpoints" )   # and me\r\n'
    result = rewrite_source(before)
    assert result.new_source == 'import requests  # keep   me\r\nx = requests.get( "https://api.runpod.io/v2/serverless" )   # and me\r\n'


def test_host_replacement_is_configurable() -> None:
    before = 'import requests\nrequests.get("https://rest.runpod.io/v1/pods/x")\n'
    result = rewrite_source(before, v2_base="https://staging.example.com/v2")
    assert result.new_source == 'import requests\nrequests.get("https://staging.example.com/v2/pods/x")\n'


def test_unparsable_file_is_left_as_is() -> None:
    before = 'import requests\nrequests.get("https://rest.runpod.io/v1/pods"\n'
    result = rewrite_source(before)
    assert result.error and result.new_source == before and not result.changed


ENCODED = {
    "empty": b"",
    "plain UTF-8": "x = 'é'\n".encode(),
    "a BOM": b"\xef\xbb\xbfx = 1\n",
    "a cookie on the first line": b"# -*- coding: latin-1 -*-\nx = '\xe9'\n",
    "a cookie on the second line": b"#!/usr/bin/env python\n# coding=cp1252\nx = '\x80'\n",
    "a cookie on the third line (not one)": b"#\n#\n# coding: latin-1\n\xe9",
    "an unknown cookie": b"# coding: nope\n",
    "a BOM and another cookie": b"\xef\xbb\xbf# coding: latin-1\n",
    "not UTF-8 on the first line": b"\xff\xfe\n",
    "not UTF-8 further down": b"x = 1\n\xff\n",
    "CR line ends, a cookie after the first CR": b"x\ry\r# coding: latin-1\n\xe9",
    "'coding' in a comment that is no cookie": b"# decoding stuff\n\xe9",
    "'coding' in a comment, UTF-8": "# decoding\nx = 'é'\n".encode(),
}


@pytest.mark.parametrize("name", sorted(ENCODED))
def test_decode_answers_as_pep_263_detection_does(name: str) -> None:
    """`decode` skips tokenize's detection for plain UTF-8; every file gets the same text, encoding or error."""
    import io
    import tokenize

    from codemod.engine import decode

    data = ENCODED[name]

    def outcome(read):
        try:
            return read()
        except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
            return type(exc), str(exc)

    def by_tokenize():
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding), encoding

    assert outcome(lambda: decode(data)) == outcome(by_tokenize)
