"""A shared parse's lead (shards.Shard with `shared`, number 0; driver/forking.py): the worker that
parses a split unit once, forks a child per other shard and checks its own share beside them. An
early lead (Shard.early) parsed while the units ahead of it in the run's order were checked, and
takes their summaries from the parent before anything else (pool.run)."""

from __future__ import annotations

import time
from dataclasses import replace

from refcheck.driver import preloading, shards, splitting, stealing
from refcheck.findings import UnitResult


def with_table(settings):
    """An early lead's settings with the summaries of the units ahead of it, once the parent has
    them all (the job's own where it sends none: a phase 2 round's fixed table)."""
    table = settings.lender.table()
    return settings if table is None else replace(settings, summaries=table)


def lead(prep, shard, lender, began: float, job_cpu: float, run, prepare):
    """Forks a child per other shard, which waits for its slot and checks its share in this
    parse; checks its own; returns its Part with the children's, and the unit's fixup run here
    (`fixed`). The shards take each other's groups at the end (stealing.py). `job_cpu`: the CPU
    clock when the lead's work for all began (shard 0 gets that much less to check); `run`:
    engine._run; `prepare(settings)`: engine._prepare on this parse. Where a thread other than
    Python's is alive (a fork could inherit a held lock) it checks every share itself instead,
    in one round in source order."""
    from refcheck.driver import forking
    from refcheck.reuse.plan import shared_instances

    prep.instances = shared_instances(prep.parsed, prep.conv)  # the keys' walk of the top level, once
    split = splitting.layout(prep, shard, time.process_time() - job_cpu)
    others = [k for k in range(shard.count) if k != shard.number]
    preloading.join()
    if not forking.native_threads_only_python():
        part = run(prep, sorted(prep.selected), shard, began)
        children = tuple(forking.Child(k, shards.Part(UnitResult(prep.rel), {})) for k in others)
        return replace(part, children=children, fixed=fixed(prep, part, children, run, prepare))
    claims = stealing.Claims.make(split)

    def share(number: int) -> list[int]:  # group after group where the shards take each other's
        return split.share(number) if claims is not None else sorted(split.share(number))

    def work(number: int):
        # The parse and the fixed work are the lead's (the merge sums the parts' stage times).
        return run(replace(prep, parse_seconds=0.0), share(number), replace(shard, number=number),
                   time.perf_counter(), claims)

    running = forking.start(others, work, lender)
    try:
        part = run(prep, share(shard.number), shard, began, claims)
    except BaseException:
        forking.collect(running, kill=True)
        raise
    children = forking.collect(running)
    if running:  # their slots back before the fixup: another job may take them meanwhile
        lender.give_back()
    # The fixup's second round may fork a helper into a slot lent again (fixsplit.py).
    return replace(part, children=children, fixed=fixed(prep, part, children, run, prepare,
                                                        lender if running else None))


def fixed(prep, part, children: tuple, run, prepare, helper=None):
    """The unit's fixup (splitting.fixup) run here, on this parse, once every shard's records are
    in, or that none is needed (shards.Fixed): the parent would send it back to this worker as
    a job, and the other worker would idle through the round trip too. A fresh unit state from
    the same start table, as that job's. None where a child failed or the fixup raised: the
    parent then decides, as it does for shards that parse apart. `helper`: the lead's Lender,
    where its second round may be split with a forked helper (fixsplit.py)."""
    if any(c.part is None for c in children):
        return None
    cpu, began = time.process_time(), time.monotonic()
    try:
        parts = (part, *(c.part for c in children))
        job = shards.Fixup.over(parts)
        settings = replace(prep.settings, shard=job, lender=None, helper=helper)
        got = run(prepare(settings), [], job, time.perf_counter())
        # Nothing checked again: the parent merges the shards' records as they are where they
        # follow the whole-unit order (as it decides without this). Asked only then: a unit that
        # needs its fixup (lib/TH's THTensor.c always does) saves this second replay.
        if not got.records and not shards.needs_fixup(job.records, prep.settings.summaries):
            return shards.Fixed(None)
    except Exception:  # noqa: BLE001 - the parent's fixup job reports it as the unit's error
        return None
    helped = helper.helped if helper is not None else None
    return shards.Fixed(got, time.process_time() - cpu, began, time.monotonic(),
                        None if helped is None else replace(helped, part=None))
