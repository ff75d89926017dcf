"""What an idle serving proxy process holds (README, "Memory"): the schema checks share one compiled copy of each
spec's components, a proxy with an upstream never loads the embedded sandbox's store, and an answer worker loads
the translators, not the server."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.proxy.tools import free_port, start_proxy, stop_process, wait_answering

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")

_CHECKS_GROWTH = """
import gc
from mappings import default_mappings, load_schema
from proxy.validate import BodyChecker, V1Checker

def rss_kb():
    return int(next(line for line in open("/proc/self/status") if line.startswith("VmRSS")).split()[1])

mappings = default_mappings()
load_schema("v1"), load_schema("v2")
gc.collect()
before = rss_kb()
checks = V1Checker(mappings), BodyChecker(mappings)
gc.collect()
print(rss_kb() - before)
"""


def test_the_schema_checks_hold_the_components_once():
    """62 v1 checks and 9 v2 body checks: 4 MB together; 35 MB when every validator embedded the components."""
    grown_kb = int(subprocess.run([sys.executable, "-c", _CHECKS_GROWTH], cwd=ROOT, capture_output=True, text=True,
                                  check=True).stdout)
    assert grown_kb < 8 * 1024, f"{grown_kb / 1024:.1f} MB"


def test_a_proxy_with_an_upstream_never_loads_the_sandbox_store():
    port = free_port()
    proc = start_proxy(port)
    try:
        wait_answering(port, proc)
        maps = Path(f"/proc/{proc.pid}/maps").read_text()
        assert "_sqlite3" not in maps  # the store's sqlite3, loaded only with the embedded sandbox
        assert "_yajl2" not in maps  # ijson's C parser: proxy/offload.py, imported at the first large answer
    finally:
        stop_process(proc)


_WORKER_MODULES = """
import os, sys
from proxy import answer_worker

answer_worker.start_worker(os.getppid())
heavy = ("aiohttp", "jsonschema_rs", "graphql", "proxy.upstream", "proxy.app", "proxy.validate", "sandbox")
print(" ".join(name for name in heavy if name in sys.modules))
"""


def test_an_answer_worker_loads_the_translators_not_the_server():
    """Each of the answer pool's processes counts in the proxy's memory (issue 23 #5): aiohttp and the schema
    checks were a third of a worker's size."""
    loaded = subprocess.run([sys.executable, "-c", _WORKER_MODULES], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.split()
    assert loaded == []
