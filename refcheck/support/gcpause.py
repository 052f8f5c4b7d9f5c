"""Pausing Python's cyclic garbage collector around allocation-heavy work.

Building a function's graph and exploring its states each allocate objects by the thousand that
reference counting frees when the work ends, while the process holds the whole unit's parse and
graphs. The cyclic collector, triggered every few hundred allocations, rescans all of that: on
torch7's THTensor.c it was a third of the CFG stage and 40% of exploring. Whatever cycles the work
leaves are collected after it, when the collector runs again.

A process's start is the same case: its imports create classes, functions and tables by the ten
thousand, all kept for the process's life, and the collector rescanned them every few hundred
allocations (15 ms of the parent's 85 ms of imports on one small unit). The parent's imports
(__main__.py, the check command's start, the pool) and the worker's run with it paused.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def paused_collector():
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@contextmanager
def frozen_heap():
    """Moves every object alive now out of the collector's reach until the block ends (gc.freeze):
    the parse and the keys a unit's check holds while it builds and explores function after
    function. Each function's work ends in a collection (`paused_collector`), and each older
    collection would otherwise rescan all of them. Frozen objects are still freed by reference
    counting; cycles among them wait for the collection after the block."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
