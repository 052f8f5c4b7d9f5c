"""The first worker of a `refcheck check`, forked before the parent's own start.

A run's parent imports the command line, the reporters, the configuration and the pool (~80 ms on
one small unit) before it forks its first worker; the worker then imports the analysis and loads
libclang (~100 ms) before its first parse. One after the other, those were most of a one-unit
check's time above its parse. Forked first thing (`__main__.run`, only for `check`), once the
modules both processes need are imported (`SHARED`), the worker imports the analysis and loads
libclang (`preloading.warm`) while the parent imports the rest of its own; it then waits for the
run's `pool.Options` on its pipe, and from there is a worker like any other (`pool.prestarted`).
The pool adopts it as its first worker (`pool.FIRST`); a run that needs no worker (every unit from
the cache, a configuration error) ends it at exit, as it ends any daemon worker.

Fork only (Linux, macOS): under spawn the parent's imports are not inherited either, nothing is
gained. `REFCHECK_PRESTART=0` forks the first worker where the pool starts it, as before (to
measure the difference).
"""

from __future__ import annotations

import os
import signal
import sys
from dataclasses import dataclass

# Imported before the fork, as both processes need them: the pool (the conventions, the findings,
# multiprocessing) and the shards' and rules' records, the header finder. The rest of the parent's
# imports (click, the reporters, the configuration) and the worker's (the analysis, libclang) go
# on side by side.
SHARED = ("refcheck.driver.shards", "refcheck.rules.events", "refcheck.frontend.headers")


@dataclass
class Started:
    process: object  # a multiprocessing Process (fork)
    conn: object  # the parent's end of its duplex pipe
    gate: int  # the write end of its gate pipe (forking.py)


def wanted(argv: list[str]) -> bool:
    """A `check` command on a platform that forks, not turned off."""
    return (len(argv) > 1 and argv[1] == "check" and hasattr(os, "fork") and sys.platform != "win32"
            and os.environ.get("REFCHECK_PRESTART", "1") != "0")


def start(argv: list[str]) -> None:
    """Forks the worker if `wanted`: before the collector is paused for the CLI's imports (the
    child would inherit it paused for good) and before any signal handler of the command's."""
    if not wanted(argv):
        return
    import importlib

    from refcheck.support.gcpause import paused_collector

    with paused_collector():  # what both processes import, once, before they part (gcpause.py)
        from refcheck.driver import pool

        for name in SHARED:
            importlib.import_module(name)
    if pool.FIRST:
        return
    ctx = pool.multiprocessing.get_context("fork")
    conn, child = ctx.Pipe()
    gate = os.pipe()
    process = ctx.Process(target=pool.prestarted, args=(child, os.getpid(), gate), daemon=True)
    # As pool._Worker: Ctrl-C between the fork and the child's SIG_IGN must not raise there.
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        process.start()
    except OSError:  # no process to be had: the pool forks its own (and reports why not)
        conn.close()
        os.close(gate[1])
        return
    finally:
        child.close()
        os.close(gate[0])
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    pool.FIRST.append(Started(process, conn, gate[1]))
