"""A shared parse's fixup (splitting.fixup, run by the lead: leading.fixed) with its second round
in two processes, so that the other worker does not sit idle through it (issue 30, -j2 wall).

The second round checks again, in source order, the definitions whose used summaries the
replayed table contradicts, each from the table the ones before it left (as a whole unit's
check does). Here the lead forks one helper, which waits for a slot the pool lends it as the
shards' children did (forking.start); both take the stale definitions one at a time in source
order from one list (stealing.Claims, one definition a group), each checking its own from the
table the round started with plus its own earlier ones. The merge then walks the whole round in
source order from the table it started with: a record is taken where the summaries it used are
the ones that order gives at its place (shards.digests), else the definition is checked again
here. So the outcome is the sequential round's whoever checked what; a helper that dies, or gets
no slot before the lead has claimed everything, leaves its definitions to the lead.
"""

from __future__ import annotations

from refcheck.driver import forking, shards, stealing

# Fewer stale definitions than this are checked here: a fork and a slot's round trip cost more
# than one check saves.
MIN_STALE = 2


def second_round(unit, plan, table, stale: list[int], recheck, helper) -> dict:
    """The stale definitions' records (index -> Record), checked again as the whole unit's second
    round (`recheck(index)` checks one here); with `helper` (a forking.Lender) split as above.
    `unit`, `plan`, `table`: unitcheck.UnitCheck, the reuse plan, the per-function table."""
    claims = None
    if helper is not None and len(stale) >= MIN_STALE and forking.native_threads_only_python(tries=1):
        claims = stealing.Claims.make(stealing.Layout(tuple((i,) for i in stale), (0,) * len(stale)))
    if claims is None:
        return {i: recheck(i) for i in stale}
    known = unit.summaries.known
    start = dict(known)

    def work(number: int):  # the helper: its claims checked from the table the round started with
        cfg = unit.cfg_time
        return _checked(unit, plan, table, claims, number), unit.cfg_time - cfg

    try:
        running = forking.start([1], work, helper)
    except OSError:  # no fork now (EAGAIN, ENOMEM): all here, as without a helper
        return {i: recheck(i) for i in stale}
    try:
        try:
            mine = _checked(unit, plan, table, claims, 0)
        except BaseException:
            forking.collect(running, kill=True)
            raise
        # Every definition is claimed now; a helper that claimed none has nothing to send (it may
        # still wait for its slot): stopped rather than waited for.
        (child,) = forking.collect(running, kill=not any(claims.taken[g] == 2 for g in range(len(stale))))
    finally:
        helper.give_back()
    theirs: dict = {}
    if child.part is not None:
        theirs, cfg = child.part
        unit.cfg_time += cfg
    helper.helped = child if theirs else None
    return _merged(unit, table, stale, mine, theirs, start, recheck)


def _merged(unit, table, stale: list[int], mine: dict, theirs: dict, start: dict, recheck) -> dict:
    """The round in source order from `start`: each record kept where its used summaries are the
    order's there (a helper's adopted into this unit's state), else its definition checked again."""
    known = unit.summaries.known
    known.clear()
    known.update(start)
    out = {}
    for i in stale:
        r = theirs.get(i, mine.get(i))
        if r is None or shards.digests(r.used, known) != r.used:
            out[i] = recheck(i)
            continue
        if i in theirs:
            unit.adopt(i, r, table)
        else:
            shards.learn(known, r.name, r.summary)
        out[i] = r
    return out


def _checked(unit, plan, table, claims: stealing.Claims, number: int) -> dict:
    """The stale definitions this process claims, one at a time in source order (the other
    process claims from the same list), checked; their records."""
    out = {}
    for g, (i,) in enumerate(claims.layout.groups):
        if claims.claim(g, number):
            unit.definition(i, plan, table)
            out[i] = unit.record(i)
    return out
