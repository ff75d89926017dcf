"""Process pools whose workers end when the process that started them ends (`rewrite --jobs`, `audit --jobs`).

A `ProcessPoolExecutor` worker outlives a parent killed with SIGKILL: it goes on with the chunks already
queued to it, writing files nobody will report (issue 23: 28 s and 16 files after `kill -9`). Here each
worker asks Linux to send it SIGTERM when its parent dies (`prctl(PR_SET_PDEATHSIG)`, through ctypes: no
dependency), and also checks between files that its parent is still the process that started it (other
systems, and a parent that died before the prctl call). SIGTERM's default action ends the worker;
`codemod.safe_write` holds it back for the few lines of one file's replacement, so that file is replaced
whole or not at all and no temporary file is left.
"""
from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from typing import Callable

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_parent: int | None = None  # in a worker: the pid of the process that started it


def pool(jobs: int, initializer: Callable[[], None] | None = None) -> ProcessPoolExecutor:
    """A pool of JOBS forked workers (where fork exists) bound to this process; INITIALIZER runs in each."""
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    return ProcessPoolExecutor(max_workers=jobs, mp_context=context,
                               initializer=partial(_bind, os.getpid(), initializer))


def _bind(parent: int, initializer: Callable[[], None] | None) -> None:
    global _parent
    _parent = parent
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a handler inherited from the parent must not keep us alive
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no libc to call: the check below still holds
            pass
    stop_if_orphaned()  # the parent may have died before prctl
    if initializer is not None:
        initializer()


def stop_if_orphaned() -> None:
    """In a worker whose parent has gone: end now (call it between files). Elsewhere: nothing."""
    if _parent is not None and os.getppid() != _parent:
        os._exit(1)
