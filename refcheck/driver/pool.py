"""Runs `engine.check_unit` in worker processes, so that libclang crashing or hanging on one unit
costs that unit only.

concurrent.futures cannot do this: a dead worker breaks its whole pool, and a running task cannot
be cancelled. Here each worker has its own pipe; the parent waits on the pipes and the process
sentinels together, kills a worker whose unit runs past the time limit, and starts a fresh one
in place of any that died. A split unit's shards may share one parse (forking.py): the worker
given shard 1 forks the others, and the parent lends each child an idle worker's slot, so that
no more than -j processes work at once.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections import deque
from dataclasses import dataclass, replace
from multiprocessing.connection import wait
from typing import Callable, Iterator

from refcheck.conventions import Conventions
from refcheck.driver import forking, joblog
from refcheck.driver.limits import OUT_OF_MEMORY, StderrWatch, bound_memory, signal_name
from refcheck.findings import ToolError, UnitResult
from refcheck.support import dccache
from refcheck.support.gcpause import paused_collector


# The worker commands/prestart.py forked before the parent's start (a prestart.Started), until
# the pool's first _Worker adopts it.
FIRST: list = []


@dataclass
class Job:
    index: int
    path: str  # absolute
    display: str  # as reported: relative to the root
    args: list[str]
    # Set for a unit under a nested configuration (its own conventions and limits); None: the
    # run's Options.
    options: "Options | None" = None
    # The unit's settings key (cache.unit_key), for its per-function cache entries.
    key: str = ""
    # The summaries other units of the run exported so far (set as the job starts); None: the
    # Options' table.
    summaries: dict | None = None
    # A part of a unit checked in shards (driver/shards.py: a Shard or a Fixup); None: whole.
    shard: object = None
    # The worker (pid) to give the job to while it is idle: a fixup job goes where the unit's
    # last shard left its parse (engine._held).
    worker: int = 0
    # Phase 2: the unit's checks in phase 1 (UnitResult.checks), to repeat; None: none.
    earlier: object = None


@dataclass
class Options:
    """What every worker needs to build the engine's Settings (the parent never imports it)."""

    conventions: Conventions
    root: str
    max_states: int
    function_seconds: float
    # Bytes of address space one worker may map (RLIMIT_AS); None: no bound.
    max_memory: int | None = None
    # The cache directory, for per-function results (refcheck/caches/fncache.py); None: --no-cache.
    function_cache: str | None = None
    # Summaries inferred for other units' functions (phase 1 of the run): name -> Summary.
    summaries: dict | None = None


@dataclass
class Outcome:
    job: Job
    result: UnitResult
    # False when the worker failed rather than the analysis: a crash or timeout may not repeat.
    cacheable: bool
    # Content hashes of the files the unit read, taken by the worker right after its parse
    # (absolute path -> hash): the cache records an entry only under these bytes.
    hashes: dict | None = None
    # A shard or fixup job's records (shards.Part); None for a whole unit, or when the job failed.
    part: object = None
    # The worker's CPU seconds for the job (benchmarks/jscaling.py adds them up per worker).
    cpu: float = 0.0
    worker: int = 0
    # When the job started and ended (time.monotonic), for the job log's trace; 0: not known.
    began: float = 0.0
    ended: float = 0.0
    # An early lead's wait for the units ahead of it: (from, to) by time.monotonic; else ().
    waited: tuple = ()


def _worker(conn, options: Options, parent: int | None = None, gate: tuple | None = None) -> None:
    """`gate`: (read, write) ends of the pipe the parent grants a shared parse's children their
    slots on (forking.py); None: no shared parse (spawn)."""
    _begin(parent, gate)
    bound_memory(options.max_memory)
    _serve(conn, options, gate, _imports())


def prestarted(conn, parent: int, gate: tuple) -> None:
    """A worker forked before the parent's start (commands/prestart.py): imports and libclang
    first, then the run's Options from the pipe (EOF or None: not needed), then the worker loop."""
    from refcheck.driver import preloading

    _begin(parent, gate)
    engine = _imports()
    with paused_collector():
        preloading.warm()
    dccache.save()
    try:
        options = conn.recv()
    except EOFError:
        return
    if not isinstance(options, Options):
        return
    bound_memory(options.max_memory)
    _serve(conn, options, gate, engine, preload=False)


def _begin(parent: int | None, gate: tuple | None) -> None:
    if gate is not None:
        os.close(gate[1])
    if parent is not None:
        forking.die_with_parent(parent)
    # Ctrl-C reaches the whole process group; the parent decides, and kills us. SIGINT arrives
    # blocked from the parent (see _Worker); ignore it before letting it through.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    # The parent's SIGTERM handler raises into the interpreter; a worker should just die.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _imports():
    """The worker's own imports (gcpause.py); the engine module."""
    with paused_collector():
        from refcheck.reuse import across
        from refcheck.driver import engine

    across.start()  # this worker's units share their identical analyses (headers, twins)
    dccache.save()  # what the worker compiled that the parent had not (ends in os._exit: no atexit)
    return engine


def _serve(conn, options: Options, gate: tuple | None, engine, preload: bool = True) -> None:
    """The worker's loop: a job in, its outcome out, until None or EOF."""
    from refcheck.driver import preloading

    if not os.environ.get("REFCHECK_DEBUG"):
        # The parent reports a crash as a one-line tool error; a Python stack dump of the
        # worker (faulthandler, enabled by pytest or PYTHONFAULTHANDLER) only adds noise.
        import faulthandler

        faulthandler.disable()
    if preload:
        preloading.start_preload()

    def settings_for(o: Options):
        return engine.Settings(conventions=o.conventions, root=o.root, max_states=o.max_states,
                               function_seconds=o.function_seconds, function_cache=o.function_cache,
                               summaries=o.summaries or {})

    run_settings = settings_for(options)
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        if not isinstance(job, Job):  # a table for an early lead that ended before asking
            continue
        settings = run_settings if job.options is None else settings_for(job.options)
        settings.clang_args = job.args
        settings.unit_key = job.key
        settings.shard = job.shard
        settings.lender = (forking.Lender(conn, gate[0], job.index, job.shard.early)
                           if gate is not None and _leads(job) else None)
        if job.summaries is not None:
            settings.summaries = job.summaries
        settings.earlier = job.earlier
        cpu = time.process_time()
        with StderrWatch() as watch:
            try:
                result = engine.check_unit(job.path, settings)
                cacheable = True
            except MemoryError:
                result = None
            except Exception as e:  # a bug in refcheck: report it for this unit, go on with the rest
                result = UnitResult(file=job.display, errors=[
                    ToolError(job.display, f"internal error: {type(e).__name__}: {e}")])
                cacheable = False
        part = None
        if result is not None and not isinstance(result, UnitResult):  # a shards.Part
            part, result = result, result.result
        if result is None or watch.out_of_memory:
            part = None
            # libclang reports a failed allocation as a crashed parse, Python as MemoryError:
            # either way this unit is not checked, and the parent replaces the worker (its
            # heap may be left fragmented near the bound).
            bound = f"{options.max_memory >> 20}" if options.max_memory else "?"
            result = UnitResult(file=job.display, errors=[
                ToolError(job.display, OUT_OF_MEMORY.format(bound),
                          hint="--max-memory MIB, or max-memory = MIB in [tool.refcheck]")])
            cacheable = False
        # The hashes key a unit cache entry: none without a usable cache (nor function_cache).
        hashes = _hashes(result, options.root, job) if cacheable and options.function_cache else None
        conn.send((job.index, result, cacheable, hashes, part, time.process_time() - cpu))


def _leads(job: Job) -> bool:
    """A shared parse's shard 0: its worker checks the unit's other shards in forked children."""
    return getattr(job.shard, "shared", False) and job.shard.number == 0


def _follows(job: Job, lead: Job) -> bool:
    return job.index == lead.index and getattr(job.shard, "shared", False) and job.shard.number > 0


class _Worker:
    def __init__(self, ctx, options: Options) -> None:
        if not self._adopt(ctx, options):
            self._fork(ctx, options)
        self.job: Job | None = None
        self.started = 0.0  # for the time limit (an early lead's wait added)
        self.began = 0.0  # for the job log
        # A lead (a shared parse's shard 0): the shard jobs its children check, the slots they
        # still wait for, and the idle workers whose slots it holds.
        self.followers: list[Job] = []
        self.wants = 0
        self.lent: list[_Worker] = []
        self.lent_to: _Worker | None = None
        self.slots: list[int] = []  # the pids of the workers lent, in order (the job log's)
        # An early lead (Shard.early): the units it waits for, when it said it had parsed, and
        # its wait once over (from, to).
        self.awaits: set = set()
        self.ready_at = 0.0
        self.waited: tuple = ()

    def _adopt(self, ctx, options: Options) -> bool:
        """The worker forked before the parent's start (commands/prestart.py), sent the run's Options."""
        got = FIRST.pop() if FIRST and ctx.get_start_method() == "fork" else None
        if got is None:
            return False
        try:
            if not got.process.is_alive():
                raise OSError("gone")
            got.conn.send(options)
        except Exception:  # noqa: BLE001 - gone, or Options that do not pickle: the pool forks one
            got.process.kill()
            got.process.join()
            got.conn.close()
            os.close(got.gate)
            return False
        self.conn, self.gate, self.process = got.conn, got.gate, got.process
        return True

    def _fork(self, ctx, options: Options) -> None:
        self.conn, child = ctx.Pipe()
        # The gate (forking.py): the parent writes one byte per slot it lends this worker's
        # children. Under spawn no fd is inherited, and no shard forks.
        gate = os.pipe() if ctx.get_start_method() == "fork" and forking.available() else None
        self.gate = gate[1] if gate else None
        self.process = ctx.Process(target=_worker, args=(child, options, os.getpid(), gate), daemon=True)
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
        if gate:
            os.close(gate[0])

    @property
    def idle(self) -> bool:
        return self.job is None and self.lent_to is None

    def grant(self, other: "_Worker") -> None:
        """Lends idle `other`'s slot to one of this lead's children."""
        try:
            os.write(self.gate, b"\x01")
        except OSError:  # the lead died: its outcome comes next
            self.wants = 0
            return
        self.wants -= 1
        other.lent_to = self
        self.lent.append(other)
        self.slots.append(other.process.pid)

    def release(self) -> None:
        """The lent slots back (the followers stay until their outcomes are made)."""
        for other in self.lent:
            other.lent_to = None
        self.lent, self.wants = [], 0

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()
        self.release()
        if self.gate is not None:
            os.close(self.gate)
            self.gate = None


def _hashes(result: UnitResult, root: str, job: Job) -> dict:
    from refcheck.caches.cache import FileHasher

    hasher = FileHasher()
    files = {job.path} | {os.path.normpath(os.path.join(root, p)) for p in result.includes}
    return {p: hasher.hash(p) for p in sorted(files)}


def run(jobs: list[Job], options: Options, workers: int, timeout: float,
        skip: Callable[[Job], bool] = lambda job: False, summaries: dict | None = None,
        started: Callable[[Job], None] = lambda job: None, held: "Held | None" = None) -> Iterator[Outcome]:
    """Yields one Outcome per job, in completion order, except for jobs that `skip` (asked just
    before a job would start) says are no longer needed. `summaries`, filled by the caller as
    outcomes come in, goes with each job as it starts (unless the job has its own): later units
    use earlier ones' summaries; the shards of one unit all take the table as the first of them
    started. `started` hears of each job as a worker takes it (the progress line names the
    units in flight). `jobs` may be a deque the caller appends to while it takes the outcomes
    (a sharded unit's fixup job). `held`: workers kept past this run for the caller's next
    (phase 2's rounds), its idle ones left running at the end."""
    if not jobs:
        return
    # fork is cheap and lets the parent's imports (and tests' monkeypatches) carry over.
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    pending = jobs if isinstance(jobs, deque) else deque(jobs)
    snapshots: dict[int, dict] = {}  # unit index -> the table its shards took
    pool: list[_Worker] = held.workers if held is not None else []
    limit = max(1, min(workers, len(jobs)))
    # An early lead (at most one per queue) goes to the first worker that can fork it, with the
    # jobs ahead of it in the queue, whose summaries it waits for.
    early = _early(pending)
    joblog.event("start", time.monotonic())
    try:
        while pending or any(w.job for w in pool):
            while pending and skip(pending[0]):
                pending.popleft()
            while (pending or any(w.wants for w in pool)) and len(pool) < limit:
                pool.append(_Worker(ctx, options))
            _grant(pool)
            _resume(pool, pending, summaries, snapshots)
            for w in list(pool):
                while pending and skip(pending[0]):
                    pending.popleft()
                if w.idle and pending:
                    job = _next(pending, early, w, pool, summaries is not None)
                    if job is None:
                        continue
                    if summaries and job.summaries is None:
                        job.summaries = (dict(summaries) if job.shard is None
                                         else snapshots.setdefault(job.index, dict(summaries)))
                    if not _start(w, job, pending):
                        _died_idle(w, job, pending, early, pool)
                        continue
                    started(job)
            busy = [w for w in pool if w.job]
            if not busy:
                continue
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], _wait_for(busy, timeout))
            for w in busy:
                outcome = None
                if w.conn in ready or w.process.sentinel in ready:
                    outcome = _collect(w)
                elif not w.ready_at and time.monotonic() - w.started >= timeout:
                    outcome = _failed(w.job, f"not checked: took longer than {timeout:g} s "
                                             f"(the per-unit limit, --timeout)")
                    w.kill()
                    pool.remove(w)
                if outcome is not None:
                    yield from _finish(w, outcome, pool)
        joblog.event("drained", time.monotonic())
    finally:
        _stop(pool, idle=held is None)
        joblog.event("end", time.monotonic())


class Held:
    """Workers that outlive one `run` (the runner's phases): a later round goes to processes that
    imported the analysis, read the preset's tables and share analyses across units already."""

    def __init__(self) -> None:
        self.workers: list[_Worker] = []

    def close(self) -> None:
        _stop(self.workers, idle=True)
        self.workers.clear()


def _stop(pool: list, idle: bool) -> None:
    """Kills the busy workers of `pool` and, with `idle`, ends the idle ones (they are sent
    None to leave their loop); those left idle stay in `pool` for a later run."""
    for w in pool:
        if idle and w.job is None and w.process.is_alive():
            try:
                w.conn.send(None)
            except OSError:
                pass
    for w in list(pool):
        if w.job is not None:
            w.kill()
            pool.remove(w)
        elif idle:
            w.process.join(timeout=1)
            w.kill()


def _wait_for(busy: list, timeout: float) -> float | None:
    """Seconds until the first busy worker's time limit (an early lead's wait for the units
    ahead of it is not its unit's time); None: no limit runs."""
    now = time.monotonic()
    deadlines = [w.started + timeout - now for w in busy if not w.ready_at]
    return max(0.0, min(deadlines)) if deadlines else None


def _died_idle(w: _Worker, job: Job, pending: deque, early: list, pool: list) -> None:
    """`w` died while idle (the OOM killer, say): replaced, its job kept (the early lead first
    again, waiting for the same jobs)."""
    pending.appendleft(job)
    if _leads(job) and job.shard.early:
        early.append((job, w.awaits))
    w.kill()
    pool.remove(w)


def _start(w: _Worker, job: Job, pending: deque) -> bool:
    """Sends `job` to idle `w`; a shared parse's lead takes its unit's other shard jobs out of
    the queue (its children check them, in slots lent as workers go idle: `_grant`)."""
    try:
        w.conn.send(job)
    except OSError:
        return False
    w.job = job
    w.started = w.began = time.monotonic()
    if _leads(job) and w.gate is not None:  # else each shard job parses in a worker of its own
        w.followers = [j for j in pending if _follows(j, job)]
        for j in w.followers:
            pending.remove(j)
            j.summaries = job.summaries
    return True


def _early(pending: deque) -> list:
    """[(the queue's early lead, the indices of the jobs ahead of it)], or []."""
    ahead = set()
    for j in pending:
        if getattr(j.shard, "early", False) and _leads(j):
            return [(j, ahead)]
        ahead.add(j.index)
    return []


def _next(pending: deque, early: list, w: _Worker, pool: list, live: bool) -> "Job | None":
    """The job idle `w` takes out of the queue: the early lead first (where `w` can fork), which
    waits for every job ahead of it and running (`live`: their summaries go to later units);
    else the head of the queue, unless it waits for another idle worker it prefers."""
    if early and not any(j is early[0][0] for j in pending):  # skipped (included by another unit)
        early.clear()
    if early and w.gate is not None:
        lead, ahead = early.pop()
        pending.remove(lead)
        w.awaits = set(ahead) | {x.job.index for x in pool if x.job} if live else set()
        return lead
    if _elsewhere(pending[0], w, pool):
        return None
    return pending.popleft()


def _resume(pool: list, pending: deque, summaries: dict | None, snapshots: dict) -> None:
    """Sends each early lead that has parsed the run's summaries, once every job it waits for is
    done (their outcomes taken in by the caller, which fills `summaries`); its shards' jobs take
    the same table, for the merge's replay."""
    live = {j.index for j in pending} | {w.job.index for w in pool if w.job}
    for w in pool:
        if not w.ready_at or w.job is None:
            continue
        w.awaits &= live - {w.job.index}
        if w.awaits:
            continue
        table = dict(summaries) if summaries is not None else None
        if table is not None:
            w.job.summaries = snapshots[w.job.index] = table
            for f in w.followers:
                f.summaries = table
        try:
            w.conn.send((forking.TABLE, w.job.index, table))
        except OSError:  # the lead died: its sentinel says so next
            pass
        now = time.monotonic()
        w.started += now - w.ready_at  # the wait is not its unit's time (--timeout)
        w.waited, w.ready_at = (w.ready_at, now), 0.0


def _grant(pool: list) -> None:
    """Lends idle workers' slots to the children leads announced, before any new job starts:
    the busy processes stay at most -j."""
    for lead in pool:
        while lead.wants > 0 and lead.job is not None:
            other = next((x for x in pool if x.idle), None)
            if other is None:
                return
            lead.grant(other)


def _finish(w: _Worker, outcome: "Outcome | None", pool: list) -> Iterator[Outcome]:
    """The outcomes of `w`'s job (a lead's: its children's first, then its own, so the fixup
    goes where the parse is), the worker replaced where it died or ran out of memory."""
    children = _children(w, outcome)
    w.job, w.followers, w.slots = None, [], []
    w.awaits, w.ready_at, w.waited = set(), 0.0, ()
    w.release()
    if (_out_of_memory(outcome.result) or not w.process.is_alive()) and w in pool:
        w.kill()
        pool.remove(w)
    yield from children
    yield outcome


def _children(w: _Worker, outcome: "Outcome") -> list:
    """A lead's followers' outcomes: each child's part, failure or death; the lead's own failure
    for all of them where it failed (its children died with it)."""
    got = {c.number: c for c in getattr(outcome.part, "children", ())}
    out = []
    for i, job in enumerate(w.followers):
        c = got.get(job.shard.number)
        slot = w.slots[i] if i < len(w.slots) else outcome.worker
        if c is None:
            o = replace(outcome, job=job, part=None, cacheable=False, cpu=0.0)
            if outcome.part is not None:
                o = _failed(job, "not checked: its forked child sent nothing")
        elif c.part is not None:
            o = Outcome(job, c.part.result, outcome.cacheable, outcome.hashes, c.part, c.cpu, slot, c.began, c.ended)
        elif c.error:
            o = Outcome(job, UnitResult(file=job.display, errors=[ToolError(job.display, c.error)]), False)
        else:
            o = _failed(job, f"not checked: the worker process died ({signal_name(c.died)}) "
                             f"while parsing or analyzing this unit")
        o.worker = slot
        if c is not None and c.part is not None:
            joblog.job(o)
        out.append(o)
    if outcome.part is not None and outcome.part.children:
        outcome.part = replace(outcome.part, children=())
    return out


def _collect(w: _Worker) -> Outcome | None:
    """The worker's outcome; None for a lead's announcement of its children (forking.LEND)."""
    job = w.job
    try:
        if w.conn.poll():
            message = w.conn.recv()
            if message[0] == forking.LEND and message[1] == job.index:
                w.wants += message[2]
                return None
            if message[0] == forking.READY and message[1] == job.index:
                w.ready_at = time.monotonic()
                return None
            if message[0] == forking.RETURN and message[1] == job.index:
                w.release()  # its children are done: their slots go back before its fixup
                return None
            index, result, cacheable, hashes, part, cpu = message
            if index == job.index:
                outcome = Outcome(job, result, cacheable, hashes, part, cpu, w.process.pid, w.began, time.monotonic(),
                                  w.waited)
                # A fixup helper's slot was lent after the children's (fixsplit.py).
                joblog.job(outcome, w.slots[len(w.followers)] if len(w.slots) > len(w.followers) else 0)
                return outcome
    except (EOFError, OSError):
        pass
    w.process.join(timeout=5)
    return _failed(job, f"not checked: the worker process died ({signal_name(w.process.exitcode)}) "
                        f"while parsing or analyzing this unit")


def _elsewhere(job: Job, w: _Worker, pool: list) -> bool:
    """Whether the job waits for another idle worker it prefers."""
    return bool(job.worker) and job.worker != w.process.pid and any(
        x.process.pid == job.worker and x.idle and x.process.is_alive() for x in pool)


def _out_of_memory(result: UnitResult) -> bool:
    return any(e.message.startswith(OUT_OF_MEMORY[:26]) for e in result.errors)


def _failed(job: Job, message: str) -> Outcome:
    from refcheck.workspace.hints import TIMEOUT_HINT

    # A unit over the time limit is fixed by a higher one; a dead worker by nothing a flag gives.
    hint = TIMEOUT_HINT if "took longer than" in message else ""
    return Outcome(job, UnitResult(file=job.display, errors=[ToolError(job.display, message, hint=hint)]),
                   False)
