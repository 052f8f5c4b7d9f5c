"""Runs `engine.check_unit` in worker processes, so that libclang crashing or hanging on one unit
costs that unit only.

concurrent.futures cannot do this: a dead worker breaks its whole pool, and a running task cannot
be cancelled. Here each worker has its own pipe; the parent waits on the pipes and the process
sentinels together, kills a worker whose unit runs past the time limit, and starts a fresh one
in place of any that died.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Callable, Iterator

from refcheck.conventions import Conventions
from refcheck.model import ToolError, UnitResult


@dataclass
class Job:
    index: int
    path: str  # absolute
    display: str  # as reported: relative to the root
    args: list[str]
    # Set for a unit under a nested configuration (its own conventions and limits); None: the
    # run's Options.
    options: "Options | None" = None


@dataclass
class Options:
    """What every worker needs to build the engine's Settings (the parent never imports it)."""

    conventions: Conventions
    root: str
    max_states: int
    function_seconds: float


@dataclass
class Outcome:
    job: Job
    result: UnitResult
    # False when the worker failed rather than the analysis: a crash or timeout may not repeat.
    cacheable: bool


def _worker(conn, options: Options) -> None:
    # Ctrl-C reaches the whole process group; the parent decides, and kills us. SIGINT arrives
    # blocked from the parent (see _Worker); ignore it before letting it through.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    # The parent's SIGTERM handler raises into the interpreter; a worker should just die.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if not os.environ.get("REFCHECK_DEBUG"):
        # The parent reports a crash as a one-line tool error; a Python stack dump of the
        # worker (faulthandler, enabled by pytest or PYTHONFAULTHANDLER) only adds noise.
        import faulthandler

        faulthandler.disable()
    from refcheck import engine

    def settings_for(o: Options):
        return engine.Settings(conventions=o.conventions, root=o.root, max_states=o.max_states,
                               function_seconds=o.function_seconds)

    run_settings = settings_for(options)
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        settings = run_settings if job.options is None else settings_for(job.options)
        settings.clang_args = job.args
        try:
            result = engine.check_unit(job.path, settings)
            cacheable = True
        except Exception as e:  # a bug in refcheck: report it for this unit, go on with the rest
            result = UnitResult(file=job.display, errors=[
                ToolError(job.display, f"internal error: {type(e).__name__}: {e}")])
            cacheable = False
        conn.send((job.index, result, cacheable))


class _Worker:
    def __init__(self, ctx, options: Options) -> None:
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker, args=(child, options), daemon=True)
        # Ctrl-C between fork and the worker's SIG_IGN would raise KeyboardInterrupt in the
        # child and print its traceback: keep SIGINT blocked (pending) across the fork.
        if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows
            self.process.start()
        else:
            blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            try:
                self.process.start()
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        child.close()
        self.job: Job | None = None
        self.started = 0.0

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()


def _signal_name(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"


def run(jobs: list[Job], options: Options, workers: int, timeout: float,
        skip: Callable[[Job], bool] = lambda job: False) -> Iterator[Outcome]:
    """Yields one Outcome per job, in completion order, except for jobs that `skip` (asked just
    before a job would start) says are no longer needed."""
    if not jobs:
        return
    # fork is cheap and lets the parent's imports (and tests' monkeypatches) carry over.
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    pending = deque(jobs)
    pool: list[_Worker] = []
    limit = max(1, min(workers, len(jobs)))
    try:
        while pending or any(w.job for w in pool):
            while pending and skip(pending[0]):
                pending.popleft()
            while pending and len(pool) < limit:
                pool.append(_Worker(ctx, options))
            for w in list(pool):
                while pending and skip(pending[0]):
                    pending.popleft()
                if w.job is None and pending:
                    job = pending.popleft()
                    try:
                        w.conn.send(job)
                    except OSError:
                        # Died while idle (the OOM killer, say): replace it, keep the job.
                        pending.appendleft(job)
                        w.kill()
                        pool.remove(w)
                        continue
                    w.job = job
                    w.started = time.monotonic()
            busy = [w for w in pool if w.job]
            if not busy:
                continue
            now = time.monotonic()
            wait_for = max(0.0, min(w.started + timeout - now for w in busy))
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], wait_for)
            for w in busy:
                outcome = None
                if w.conn in ready or w.process.sentinel in ready:
                    outcome = _collect(w)
                elif time.monotonic() - w.started >= timeout:
                    outcome = _failed(w.job, f"not checked: took longer than {timeout:g} s "
                                             f"(the per-unit limit, --timeout)")
                    w.kill()
                    pool.remove(w)
                if outcome is not None:
                    w.job = None
                    if not w.process.is_alive() and w in pool:
                        w.kill()
                        pool.remove(w)
                    yield outcome
    finally:
        for w in pool:
            if w.job is None and w.process.is_alive():
                try:
                    w.conn.send(None)
                except OSError:
                    pass
        for w in pool:
            if w.job is not None:
                w.kill()
            else:
                w.process.join(timeout=1)
                w.kill()


def _collect(w: _Worker) -> Outcome:
    job = w.job
    try:
        if w.conn.poll():
            index, result, cacheable = w.conn.recv()
            if index == job.index:
                return Outcome(job, result, cacheable)
    except (EOFError, OSError):
        pass
    w.process.join(timeout=5)
    return _failed(job, f"not checked: the worker process died ({_signal_name(w.process.exitcode)}) "
                        f"while parsing or analyzing this unit")


def _failed(job: Job, message: str) -> Outcome:
    return Outcome(job, UnitResult(file=job.display, errors=[ToolError(job.display, message)]), False)
