"""Pausing Python's cyclic garbage collector around allocation-heavy work.

Building a function's graph and exploring its states each allocate objects by the thousand that
reference counting frees when the work ends, while the process holds the whole unit's parse and
graphs. The cyclic collector, triggered every few hundred allocations, rescans all of that: on
torch7's THTensor.c it was a third of the CFG stage and 40% of exploring. Whatever cycles the work
leaves are collected after it, when the collector runs again.
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
