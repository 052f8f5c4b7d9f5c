"""More stale rounds for a unit's chains of helpers defined after their callers (issue 32).

A unit's definitions are checked in source order, then the stale ones once more with the unit's
table then. One round settles one link: in `f1 -> f2 -> f3`, defined in that order, the second
round checks f1 with f2's first record (made before f3's was known) and only then f2 again, so
f1's outcome rests on a record the unit no longer holds. Such a unit's result then depended on
where its records started from: in phase 2 the run's table used to hold the unit's own exports
from its last check, a round ahead, so the same unit gave other findings checked before or after
the units it calls (libsecret's GTask helpers: `service_ensure_for_flags_async` before
`secret_service_ensure_session`, RC001 in four callers in one order only). Here the stale
definitions outside cycles (`cyclic.members`: `driver.cycles` settles those, from optimistic
records) are checked again until none is stale, at most ROUNDS rounds, so that the unit's records
are the same whatever they started from.
"""

from __future__ import annotations

from refcheck.driver.cyclic import members

# A chain of n definitions in reverse source order needs n - 2 rounds after the second.
ROUNDS = 8


def settle(unit, plan, table) -> None:
    """A whole unit's check (unitcheck.UnitCheck) after its second round: its stale definitions
    outside cycles checked again, round by round."""
    ring = frozenset(members(dict(enumerate(unit.names)), unit.used_at))
    for _ in range(ROUNDS):
        again = unit.stale(skip=ring)
        if not again:
            return
        for index in again:
            unit.definition(index, plan, table)


def settle_records(records: dict, known: dict, recheck) -> None:
    """`settle` for a split unit's fixup (splitting.fixup): over the shards' records, with
    `recheck(index)` checking one again."""
    from refcheck.driver import shards

    ring = frozenset(members({i: r.name for i, r in records.items()}, {i: r.used for i, r in records.items()}))
    for _ in range(ROUNDS):
        again = [i for i in shards.stale(records, known) if i not in ring]
        if not again:
            return
        for index in again:
            records[index] = recheck(index)
