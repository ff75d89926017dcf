"""Cost of the v1.json check the proxy runs on every v1 request (proxy/validate.py V1Checker).

    .venv/bin/python bench/v1_check_bench.py

Prints microseconds per check for a realistic pod create body, a list query with two parameters, and a
request with neither (the common GET by id).
"""
from __future__ import annotations

import timeit

from mappings import default_mappings
from proxy.validate import V1Checker

BODY = {"name": "trainer", "imageName": "runpod/pytorch:2.4", "gpuTypeIds": ["NVIDIA A40", "NVIDIA L4"],
        "gpuCount": 1, "volumeInGb": 30, "ports": ["8888/http", "22/tcp"], "env": {"HF_TOKEN": "x"}}
CASES = [
    ("POST /pods (7-field body)", ("POST", "/pods", [], BODY)),
    ("GET /pods?desiredStatus&includeMachine", ("GET", "/pods", [("desiredStatus", "RUNNING"),
                                                                ("includeMachine", "true")], None)),
    ("GET /pods/{podId}", ("GET", "/pods/{podId}", [], None)),
]


def main() -> None:
    checker = V1Checker(default_mappings())
    for label, args in CASES:
        number = 20000
        best = min(timeit.repeat(lambda: checker.check(*args), number=number, repeat=5)) / number
        print(f"{label:42} {best * 1e6:6.2f} us")


if __name__ == "__main__":
    main()
