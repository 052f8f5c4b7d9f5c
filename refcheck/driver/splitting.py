"""A worker's side of a split unit (driver/shards.py): which definitions each shard checks, and
the fixup job's replay of the whole-unit order. `prep` is engine._Prepared, `unit` an
unitcheck.UnitCheck."""

from __future__ import annotations

from refcheck.driver import chains, cycles, fixsplit, shards, stealing
from refcheck.driver.shards import How


def share(prep, shard, head: float = 0.0) -> dict:
    """Each shard's definitions (number -> indices, in source order): its share of `split` (by
    the costs the parent sent, the same to every shard, else estimated); none in round 1 for a
    fixup (it re-checks single definitions with the final summaries: nothing to reuse). `head`:
    CPU seconds shard 0 spent for all (a shared parse's lead; 0 where each shard splits alone)."""
    if not isinstance(shard, shards.Shard):
        return {}
    plan = layout(prep, shard, head)
    return {k: sorted(plan.share(k)) for k in range(shard.count)}


def layout(prep, shard, head: float = 0.0) -> stealing.Layout:
    """The split as groups and their shards (`share`), for shards that take each other's groups."""
    measured = dict(shard.measured)
    cost = shards.costs(prep.places, prep.names, [size(fn) for fn in prep.parsed.functions], measured)
    unit = 1.0 if measured else shards.ESTIMATE_SECONDS
    groups = shards.together(prep.places, prep.names, words(prep), cost, shard.count)
    assigned = shards.split(groups, cost, shard.count, head / unit)
    return stealing.layout(groups, assigned, prep.selected)


def words(prep) -> dict:
    """Each place's identifiers, from the bytes of its first definition's extent."""
    import re

    from refcheck.frontend.clangutil import read_source

    ident = re.compile(rb"[A-Za-z_]\w*")
    out: dict = {}
    for fn, place in zip(prep.parsed.functions, prep.places):
        if place not in out:
            extent = fn.extent
            data = read_source(extent.start.file.name) if extent.start.file else b""
            out[place] = {w.decode("ascii") for w in ident.findall(data[extent.start.offset:extent.end.offset])}
    return out


def size(fn) -> int:
    """A definition's bytes: its cost estimate for the shard split."""
    extent = fn.extent
    return max(1, extent.end.offset - extent.start.offset)


def fixup(unit, plan, table, records: dict, helper=None) -> dict:
    """The whole-unit order replayed over the shards' records (shards.replay): the definitions
    whose check saw other summaries than that order gives, checked again, then the second round
    for stale summaries (`helper`, a lead's Lender: split with a forked helper, fixsplit.py).
    Returns the records of the definitions checked here."""
    records = dict(records)
    checked: dict = {}
    unit.second = True  # no cache hit, no instance result: they were made with other summaries
    plan.rechecking()

    def recheck(index: int):
        unit.definition(index, plan, table)
        checked[index] = unit.record(index)
        return checked[index]

    known = unit.summaries.known
    original = dict(records)
    shards.replay(records, known, recheck)
    # The unit's imported summaries are the ones every check of the whole-unit order asked for:
    # the shards' checks that order keeps, and the ones here (an instance's outcome taken asks
    # nothing itself; a cache hit's asks count, as in _check).
    unit.summaries.ever.update(n for i, r in original.items() if i not in checked and r.how is not How.SHARED
                               for n, _ in r.used)
    again = fixsplit.second_round(unit, plan, table, shards.stale(records, known), recheck, helper)
    records.update(again)
    checked.update(again)
    chains.settle_records(records, known, recheck)
    cycles.settle_records(unit, records, recheck)
    # Where the cycles' rounds fell back, the records before them stand (`checked` holds the
    # last round's otherwise).
    checked.update({i: records[i] for i in checked})
    return checked
