"""The shards of one shared parse (forking.py) taking work from each other at the end, so that
they finish together whatever the split's estimate got wrong (under --no-cache it is one from
the definitions' bytes) and however late a child got its slot.

The split's groups (whole places, with the callers kept beside their callees: shards.together)
are listed in the order of their first definitions; each shard checks its own groups in that
order, every definition of a group in source order, and claims a group before its first one. A
shard done with its own takes the unclaimed group latest in another shard's list (the one its
owner would reach last), until none is left. The claims are one byte per group in memory the
lead maps before the fork, taken under a lock made there too. Which shard checks a group changes
only how the work is done: the parent replays the whole-unit order over the records whoever made
them (shards.replay), and the fixup checks again what a shard saw differently.

POSIX only (the shared parse is); where the lock cannot be made (no sem_open), no shard steals.
"""

from __future__ import annotations

import mmap
from dataclasses import dataclass


@dataclass(frozen=True)
class Layout:
    """The split of one unit: its groups (definition indices in source order), in the order of
    their first definitions, and each group's shard."""

    groups: tuple
    owner: tuple

    def share(self, number: int) -> list[int]:
        """Shard `number`'s definitions, group after group."""
        return [i for g, k in zip(self.groups, self.owner) if k == number for i in g]


def layout(groups: list, assigned: list[int], selected: list[int]) -> Layout:
    """`groups[i]`/`assigned[i]`: definition i's group and shard (shards.together and split);
    only the `selected` definitions are listed."""
    members: dict = {}
    shard: dict = {}
    for i in selected:
        members.setdefault(groups[i], []).append(i)
        shard[groups[i]] = assigned[i]
    return Layout(tuple(tuple(m) for m in members.values()), tuple(shard[g] for g in members))


class Claims:
    """Which shard took each group: 0 for none yet, else its number + 1."""

    def __init__(self, plan: Layout) -> None:
        import multiprocessing

        self.layout = plan
        self.taken = mmap.mmap(-1, max(1, len(plan.groups)))  # MAP_SHARED: the children see it
        self.lock = multiprocessing.get_context("fork").Lock()

    @classmethod
    def make(cls, plan: Layout) -> "Claims | None":
        try:
            return cls(plan)
        except (ImportError, OSError, ValueError):  # no sem_open: each shard checks its own share
            return None

    def claim(self, group: int, number: int) -> bool:
        with self.lock:
            if self.taken[group]:
                return False
            self.taken[group] = number + 1
            return True

    def steal(self, number: int) -> int | None:
        """The unclaimed group of another shard latest in its list, claimed; None: all taken."""
        with self.lock:
            for g in range(len(self.layout.groups) - 1, -1, -1):
                if not self.taken[g] and self.layout.owner[g] != number:
                    self.taken[g] = number + 1
                    return g
        return None


def check(unit, plan, table, claims: Claims, number: int, plan_for) -> tuple[list[int], list[int]]:
    """Shard `number`'s definitions checked (`unit.definition`): its own groups while unclaimed,
    then others' (each with `plan_for(indices)`, a reuse plan for the stolen group). Returns
    the indices checked, in the order checked, and those of them taken from others."""
    done: list[int] = []
    stolen: list[int] = []
    for g, owner in enumerate(claims.layout.owner):
        if owner == number and claims.claim(g, number):
            for i in claims.layout.groups[g]:
                unit.definition(i, plan, table)
                done.append(i)
    while (g := claims.steal(number)) is not None:
        group = list(claims.layout.groups[g])
        extra = plan_for(group)
        stolen.extend(group)
        for i in group:
            unit.definition(i, extra, table)
            done.append(i)
    return done, stolen


def shard(prep, unit, plan, claims: Claims, number: int, plan_of):
    """A shared parse's shard `number` checked (`check`): its records, the names the stolen
    groups' instance keys asked for, and (groups taken, their definitions' CPU seconds).
    `prep`, `unit`: engine._Prepared, unitcheck.UnitCheck; `plan_of(prep, indices, stolen)`: a
    reuse plan and its keys' asks (engine._plan)."""
    asked: set = set()
    groups: list = []

    def plan_for(group: list[int]):  # a stolen group's; its keys' time is the frontend's
        extra, names = plan_of(prep, group, True)
        groups.append(group)
        unit.cfg_time += extra.key_seconds
        asked.update(names)
        return extra

    done, stolen = check(unit, plan, prep.table, claims, number, plan_for)
    return {i: unit.record(i) for i in done}, asked, (len(groups), round(sum(unit.seconds[i] for i in stolen), 3))
