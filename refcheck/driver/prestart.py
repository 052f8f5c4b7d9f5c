"""The first worker of a `refcheck check`, forked before the parent's own start.

A run's parent imports the command line, the reporters, the configuration and the pool (~80 ms on
one small unit) before it forks its first worker; the worker then imports the analysis and loads
libclang (~100 ms) before its first parse. One after the other, those were most of a one-unit
check's time above its parse. Forked first thing (`__main__.run`, only for `check`), the worker
does its imports and loads libclang on another core while the parent does its own; it then waits
for the run's `pool.Options` on its pipe, and from there is a worker like any other
(`pool._worker`). The pool adopts it as its first worker (`take`); a run that needs no worker (every
unit from the cache, a configuration error) ends it at exit, as it ends any daemon worker.

Fork only (Linux, macOS): with spawn the parent's imports are not inherited either, nothing is
gained. `REFCHECK_PRESTART=0` forks the first worker where the pool starts it, as before (to
measure the difference).
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
from dataclasses import dataclass


@dataclass
class Started:
    process: object  # a multiprocessing Process (fork)
    conn: object  # the parent's end of its duplex pipe
    gate: int  # the write end of its gate pipe (forking.py)


_started: Started | None = None
# Imported before the fork, as both processes need them: the pool (the conventions, the findings,
# multiprocessing) and the shards' and rules' records. The rest of the parent's imports (click,
# the reporters, the configuration) and the worker's (the analysis, libclang) go on side by side.
SHARED = ("refcheck.driver.pool", "refcheck.driver.shards", "refcheck.rules.events", "refcheck.frontend.headers")


def wanted(argv: list[str]) -> bool:
    """A `check` command on a platform that forks, not turned off."""
    return (len(argv) > 1 and argv[1] == "check" and hasattr(os, "fork") and sys.platform != "win32"
            and os.environ.get("REFCHECK_PRESTART", "1") != "0")


def start(argv: list[str]) -> None:
    """Forks the worker if `wanted`: before the collector is paused (the child would inherit it
    paused for good) and before any signal handler of the command's is set."""
    global _started
    if _started is not None or not wanted(argv):
        return
    import multiprocessing

    from refcheck.support.gcpause import paused_collector

    with paused_collector():  # what both processes import, once, before they part (gcpause.py)
        for name in SHARED:
            importlib.import_module(name)
    ctx = multiprocessing.get_context("fork")
    conn, child = ctx.Pipe()
    gate = os.pipe()
    process = ctx.Process(target=_serve, args=(child, os.getpid(), gate), daemon=True)
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
    _started = Started(process, conn, gate[1])


def take() -> Started | None:
    """The prestarted worker, once, if it is still alive (else None: the pool forks one)."""
    global _started
    got, _started = _started, None
    if got is not None and not got.process.is_alive():
        drop(got)
        return None
    return got


def drop(got: Started) -> None:
    """Ends a prestarted worker the pool could not use."""
    got.process.kill()
    got.process.join()
    got.conn.close()
    os.close(got.gate)


def _serve(conn, parent: int, gate: tuple) -> None:
    """The child: the worker's imports and libclang's load, then the run's Options, then the
    pool's worker loop. EOF or None instead of Options: the run needed no worker."""
    from refcheck.driver import pool

    pool.prestarted(conn, parent, gate)


def warm() -> None:
    """What a worker's first check would do first, done while the parent still starts: the
    modules it imports after its parse (preloading.AFTER_PARSE) and libclang itself."""
    from refcheck.driver import preloading

    for name in ("refcheck.frontend.unit", *preloading.AFTER_PARSE):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the check imports it again, and reports why it fails
            return
    os.environ.setdefault("LIBCLANG_NOTHREADS", "1")  # as frontend.unit._index, before the load
    try:
        import clang.cindex

        clang.cindex.conf.lib  # noqa: B018 - loads the library and registers its functions
    except Exception:  # noqa: BLE001 - the parse loads it again, and reports why it fails
        pass
