"""Earlier checks of a definition, replayed when the records it asked are again what they were.

A unit's later rounds (the stale round, the cycle rounds of `driver.cycles`, a fixup's replay)
check a definition again because a record it asked changed. A check is a function of the
definition and the records it asks (the premise of `UnitCheck.stale` and of the per-function
cache), so where every record an earlier check asked is now equal to what that check saw, the
check would repeat it: the earlier outcome is taken instead of a build and an analysis. That
happens where the cycle rounds' optimistic records fall back: the last round checks the members
and their users with the records they had before the rounds (simplejson: 9 of its 19 cycle
re-checks).

A cycle's records are marked (`Summary.assumed`) from its first round on, and the mark is part of
a record's equality; but the lowering reads it only where a call hands something over to the
record's function (`SummaryTable.marks_read`). So an earlier check that read no mark of a name
is repeated where that name's record differs from what it saw by the mark alone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Check:
    """One fresh check of a definition: the records it asked as it saw them (name, record or
    None: its own name's before the check's own record was learnt), and what it left."""

    seen: tuple
    spans: tuple  # unitcheck.UnitCheck.spans' entry: (findings, errors, functions, counts)
    own: object  # the summary it inferred
    used_at: tuple
    seconds: float
    marks_read: frozenset = frozenset()  # the names whose `assumed` mark the check read

    def saw(self, name: str, record, now) -> bool:
        """Whether `now`, name's record, is what the check saw as `record`, as far as it read it."""
        if now == record:
            return True
        return name not in self.marks_read and _unmarked(now) == _unmarked(record)


@dataclass(frozen=True)
class Earlier:
    """A unit's checks in one run of it (phase 1), for its next (phase 2): by definition index,
    with the definitions' names to tell that the indices mean the same definitions."""

    names: tuple
    checks: dict


class Repeats:
    """The fresh checks of a unit's definitions, by index (only the later rounds look, and
    phase 2's first: `adopted`)."""

    def __init__(self, earlier: Earlier | None = None, names: list | None = None) -> None:
        self.checks: dict[int, list[Check]] = {}
        # Phase 2: its phase 1's checks, where they are of the same definitions.
        self.adopted = earlier is not None and names is not None and earlier.names == tuple(names)
        if self.adopted:
            self.checks = {i: list(c) for i, c in earlier.checks.items()}

    def earlier(self, names: list) -> Earlier:
        """These checks, for the unit's next run (phase 2)."""
        return Earlier(tuple(names), {i: tuple(c) for i, c in self.checks.items()})

    def note(self, index: int, check: Check) -> None:
        self.checks.setdefault(index, []).append(check)

    def find(self, index: int, known: dict) -> Check | None:
        """The latest earlier check of `index` whose every asked record is what `known` holds now."""
        for check in reversed(self.checks.get(index, ())):
            if all(check.saw(name, record, known.get(name)) for name, record in check.seen):
                return check
        return None


def _unmarked(record):
    """The record without a cycle's mark (None stays None)."""
    return replace(record, assumed=False) if record is not None and record.assumed else record


def repeat(unit, index: int, earlier: Check) -> None:
    """Definition `index` of the unit's check (unitcheck.UnitCheck) checked again with the records
    `earlier` saw: that check's findings, errors, counts, asks and record, as a fresh one leaves them."""
    findings, errors, functions, by = earlier.spans
    unit.findings.extend(findings)
    unit.result.errors.extend(errors)
    unit.result.functions += functions
    for k, n in by:
        unit.counts[k] += n
    unit.summaries.asked = {n for n, _ in earlier.seen}
    unit.summaries.ever.update(unit.summaries.asked)  # as the check's own asks would
    unit._learn(index, earlier.own)
    # The records' digests now, as a fresh check leaves them (a mark it did not read differs).
    unit.used_at[index] = unit.summaries.used(unit.summaries.asked - {unit.names[index]})
    unit.spans[index] = earlier.spans
