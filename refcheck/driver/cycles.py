"""Cycles of a unit's functions settled optimistically (issue 32).

Source order with one re-check of the stale definitions finds the least record of a cycle of
functions: libportal's `do_open (call)` hands `call` to `parent_export (..., parent_exported,
call)` whose callback calls `do_open (data)` again; `parent_exported`, summarised first, borrows
its data, so do_open's branch only lends `call`, so do_open takes nothing over, so every caller
leaks `call`. Here every member of a cycle (definitions that used one another's records) starts
from an optimistic record, each pointer parameter it does not already give up taken over
(CONSUME), and the members and whatever used them are checked again until no record changes
(at most ROUNDS rounds). The members, and the definitions between two of them, go first, round
by round until their records hold; only then their users, whose checks cannot change a member's
record: checked along, a user is checked again each round a member's record moves (cffi's
22-member cycle: 25 users checked under records that fell back the round after). A member that drops the parameter on one path infers no steal, its
record falls back, and its users with it; where the rounds do not settle, the unit keeps the
ordinary outcome (the snapshot taken before).

Every member's record is marked `Summary.assumed` while the rounds run and where they settle:
the optimistic one placed, and each a member's check infers under it. A hand-over to such a
record is no evidence of a steal, and the mark is part of the record's equality and digest, so
what a check concludes stays a function of the definition and the records it asked: the
per-function cache, a replayed check or a shared instance never gives a check made under a
cycle's assumption to one made without it, nor the reverse.
"""

from __future__ import annotations

from dataclasses import replace

from refcheck.conventions.summary import DEFAULT, Effect, Source, Summary
from refcheck.driver.cyclic import inner, members

ROUNDS = 4
_GIVEN = (Effect.RELEASE, Effect.CONSUME, Effect.SINK, Effect.STORE, Effect.KEEP, Effect.SINK_FLOATING)


def optimistic(record: Summary, fn, refuted=frozenset()) -> Summary:
    """The record with each pointer parameter it neither gives up nor names conditionally taken
    over, but those `refuted`: the assumption the rounds check."""
    from refcheck.frontend.clangutil import has_pointer_type

    params = list(fn.get_arguments())
    told = {i for i, e in record.effects(len(params)).items() if e in _GIVEN}
    told |= set(record.conditional_effects(len(params))) | set(refuted)
    extra = tuple((i, Effect.CONSUME) for i, p in enumerate(params) if i not in told and has_pointer_type(p))
    if not extra:
        return record
    kept = tuple(a for a in record.arguments if a[0] not in {i for i, _ in extra})
    return replace(record, arguments=tuple(sorted(kept + extra, key=lambda a: a[0])), source=Source.INFERRED)


def marked(known: dict, name: str) -> None:
    """Marks the member's record in `known` as the cycle's (`Summary.assumed`)."""
    record = known.get(name)
    if record is not None and not record.assumed:
        known[name] = replace(record, assumed=True)


def unconfirmed(records: dict, extra: dict) -> dict:
    """Name -> the parameter indices its optimistic record assumed (`extra`, as `records` are the
    settled ones, by name) that no member gives up for real: each leans (`Summary.leans`) only on
    members none of which gives anything up but by leaning in turn. libnice's pseudotcp:
    `attempt_send (self)` and `closedown (self)` hand `self` only to each other, so the rounds
    agree on a take-over nothing performs; libportal's `parent_exported (data)` hands its data
    only to `do_open (call)`, which frees `call` or hands it to an async call's callback: real.
    By name, not position: a member giving up any parameter for real confirms those leaning on it."""
    leaning = {name: dict(r.leans) for name, r in records.items()}
    real = {name for name, r in records.items()
            if any(e in _GIVEN and i not in leaning[name] for i, e in r.arguments if isinstance(i, int))}
    for _ in range(len(records)):
        more = {name for name, leans in leaning.items() if name not in real
                and any(real.intersection(on) for on in leans.values())}
        if not more:
            break
        real |= more
    out = {}
    for name, leans in leaning.items():
        bad = {i for i, on in leans.items() if i in extra[name] and not real.intersection(on)}
        if bad:
            out[name] = bad
    return out


def _extra(assumed: Summary, own: Summary) -> set:
    """The parameter indices the optimistic record takes over and the member's own does not give up."""
    given = {i for i, e in own.arguments if e in _GIVEN}
    return {i for i, e in assumed.arguments if e is Effect.CONSUME and i not in given}


def settle(unit, plan, table) -> None:
    """Checks the unit's cycles again from the optimistic records until they agree (see above);
    where they agree on parameters no member gives up for real (`unconfirmed`), again without
    assuming those, at most ROUNDS times."""
    cycle = members(dict(enumerate(unit.names)), unit.used_at)
    if not cycle:
        return
    refuted: dict = {}
    for _ in range(ROUNDS):
        own = {i: unit.own[i] for i in cycle}
        assumed = {i: optimistic(own[i], unit.parsed.functions[i], refuted.get(i, ())) for i in cycle}
        if not refuted and all(assumed[i] == own[i] for i in cycle):
            return  # nothing to assume (where a retry assumes less, its rounds still run)
        saved = unit.snapshot()
        for i in cycle:
            unit.summaries.known[unit.names[i]] = replace(assumed[i], assumed=True)
        if not _rounds(unit, plan, table, cycle):
            unit.restore(saved)
            return
        known = unit.summaries.known
        bad = unconfirmed({unit.names[i]: known.get(unit.names[i], DEFAULT) for i in cycle},
                          {unit.names[i]: _extra(assumed[i], own[i]) for i in cycle})
        if not bad:
            return
        unit.restore(saved)
        for i in cycle:
            refuted[i] = frozenset(refuted.get(i, ())) | bad.get(unit.names[i], set())


def _rounds(unit, plan, table, cycle: list) -> bool:
    """Checks the cycle's members and their users again until no record changes (True)."""
    stale = unit.stale()
    unit.take_back([i for i in cycle if i not in stale])
    pending = set(stale) | set(cycle)
    known, inside = unit.summaries.known, set(cycle)
    first, counts = inner(dict(enumerate(unit.names)), unit.used_at, cycle), [0, 0]

    def check(i: int) -> None:
        unit.definition(i, plan, table)
        if i in inside:
            marked(known, unit.names[i])

    while pending:
        now = _this_round(pending, first, counts)
        if now is None:
            return False
        changed = [i for i in now if _changed(unit, i, check)]
        waiting = pending.difference(now)  # users put off: taken back already
        stale = unit.stale(skip=waiting)
        extra = [i for i in changed if i not in stale]
        unit.take_back(extra)
        pending = waiting | set(stale) | set(extra)
    return True


def _this_round(pending: set, first: set, counts: list) -> list | None:
    """The definitions a round checks: the pending members (and those between them) while any
    is pending, else the pending users; None past ROUNDS rounds of either kind."""
    now = sorted(pending & first)
    kind = 0 if now else 1
    counts[kind] += 1
    if counts[kind] > ROUNDS:
        return None
    return now or sorted(pending)


def _changed(unit, index: int, check) -> bool:
    """Checks definition `index` again; True where it called itself and its own record changed
    under it (the self-call saw the record before: the unit's `stale` leaves a function's own
    name out)."""
    name = unit.names[index]
    before = unit.summaries.known.get(name)
    check(index)
    return name in unit.summaries.asked and unit.summaries.known.get(name) != before


def settle_records(unit, records: dict, recheck) -> None:
    """`settle` for a split unit's fixup (refcheck.driver.splitting): over the shards' records,
    `recheck(index)` checking one again; where the rounds do not settle, the records before."""
    cycle = members({i: r.name for i, r in records.items()}, {i: r.used for i, r in records.items()})
    refuted: dict = {}
    for _ in range(ROUNDS if cycle else 0):
        assumed = {i: optimistic(records[i].summary, unit.parsed.functions[i], refuted.get(i, ())) for i in cycle}
        if not refuted and all(assumed[i] == records[i].summary for i in cycle):
            return
        known = unit.summaries.known
        saved, saved_known = dict(records), dict(known)
        settled = _record_rounds(unit, records, recheck, cycle, assumed)
        bad = unconfirmed({records[i].name: known.get(records[i].name, DEFAULT) for i in cycle},
                          {records[i].name: _extra(assumed[i], saved[i].summary) for i in cycle}) if settled else {}
        if settled and not bad:
            return
        records.update(saved)
        known.clear()
        known.update(saved_known)
        if not settled:
            return
        for i in cycle:
            refuted[i] = frozenset(refuted.get(i, ())) | bad.get(records[i].name, set())


def _record_rounds(unit, records: dict, recheck, cycle: list, assumed: dict) -> bool:
    """`_rounds` over a split unit's records: True where they settled."""
    from refcheck.driver import shards

    known = unit.summaries.known
    for i in cycle:
        known[records[i].name] = replace(assumed[i], assumed=True)
    inside = set(cycle)

    def check(i: int) -> None:
        records[i] = recheck(i)
        if i in inside:
            marked(known, records[i].name)

    pending = set(shards.stale(records, known)) | set(cycle)
    first, counts = inner({i: r.name for i, r in records.items()}, {i: r.used for i, r in records.items()},
                          cycle), [0, 0]
    while pending:
        now = _this_round(pending, first, counts)
        if now is None:
            return False
        changed = [i for i in now if _changed(unit, i, check)]
        pending = pending.difference(now) | set(shards.stale(records, known)) | set(changed)
    return True
