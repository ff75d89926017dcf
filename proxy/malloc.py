"""glibc's malloc told to hand large freed blocks back to the system at once, for a process that serves for life.

By default glibc raises its mmap threshold to the size of any mmapped block freed (up to 32 MiB): after one large
v1 list, every later page-sized block (a v2 page, a v1 chunk of a few hundred KB) comes from the heap, and a heap
whose free space lies scattered between live blocks is not given back: a proxy that had sent one large list
stayed larger by about that list's size. With the threshold fixed, blocks of 128 KiB and more are mapped and
unmapped on their own, and the proxy returns to its size once the answers are sent (bench/answers_in_flight.py).
Blocks that small requests use (well under 128 KiB) are not affected. Called before the app is built: the frees
of its start-up would move the thresholds first.
"""
from __future__ import annotations

import ctypes

M_TRIM_THRESHOLD = -1  # glibc's malloc.h
M_MMAP_THRESHOLD = -3
THRESHOLD = 128 * 1024  # glibc's default for both, before it moves them


def return_large_blocks() -> bool:
    """Fix the mmap threshold and the heap's trim threshold at their defaults (glibc; a block freed before this
    call may have doubled the trim threshold already); False where the C library has no mallopt (macOS) or
    refuses it."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(M_MMAP_THRESHOLD, THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, THRESHOLD))
